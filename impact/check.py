"""The validation gate (`branchgraph check`): every reference that new or changed code makes
must resolve on the branch or be external. Each one that does not is reported where it is,
with the nearest names the branch does define (a misspelt, renamed or invented function)."""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from typing import Any

from branchgraph.graph.protocols import GraphReader

RULE_ID = "branchgraph/unresolved-reference"
_SUGGESTIONS = 3
_CUTOFF = 0.75


@dataclass(frozen=True, slots=True)
class Finding:
    path: str
    line: int | None
    raw: str
    edge: str
    user: str | None
    suggestions: list[str]  # qualified names of the nearest existing symbols

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def unresolved_in(graph: GraphReader, repo: str, branch: str, lines: dict[str, set[int] | None]) -> list[Finding]:
    """Unresolved references on the given lines of each file (None: every line of it)."""
    rows = graph.named_query("check_dangling", {"repo": repo, "branch": branch, "paths": sorted(lines)}, limit=100_000)
    kept = [r for r in rows if (wanted := lines[r["path"]]) is None or r["line"] in wanted]
    if not kept:
        return []
    names = {
        r["name"]: r["qualname"]
        for r in graph.named_query("symbol_names", {"repo": repo, "branch": branch}, limit=1_000_000)
    }
    return [
        Finding(
            r["path"],
            r["line"],
            r["raw"],
            r["edge"],
            r["user"],
            [names[n] for n in difflib.get_close_matches(r["raw"].rsplit(".", 1)[-1], names, _SUGGESTIONS, _CUTOFF)],
        )
        for r in kept
    ]


def to_sarif(findings: list[Finding], version: str) -> dict[str, Any]:
    """SARIF 2.1.0, as code-scanning annotations take it."""
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "branchgraph",
                        "version": version,
                        "rules": [
                            {
                                "id": RULE_ID,
                                "shortDescription": {"text": "A reference that resolves to nothing on the branch"},
                            }
                        ],
                    }
                },
                "results": [
                    {
                        "ruleId": RULE_ID,
                        "level": "error",
                        "message": {"text": _message(f)},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": f.path},
                                    "region": {"startLine": f.line or 1},
                                }
                            }
                        ],
                    }
                    for f in findings
                ],
            }
        ],
    }


def _message(f: Finding) -> str:
    hint = f"; did you mean {', '.join(f.suggestions)}?" if f.suggestions else ""
    return f"`{f.raw}` resolves to nothing on this branch{hint}"


def to_text(findings: list[Finding]) -> str:
    if not findings:
        return "every reference in the checked code resolves on the branch or is external\n"
    return "".join(f"{f.path}:{f.line}: {_message(f)}\n" for f in findings)
