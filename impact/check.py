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
_CLOSE_NAMES = 10  # bare names compared before the nearer definitions are chosen among them
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
    symbols: dict[str, list[Named]] = {}
    for r in graph.named_query("symbol_names", {"repo": repo, "branch": branch}, limit=5_000_000):
        symbols.setdefault(r["name"], []).append(Named(r["qualname"], r["path"], r["label"]))
    return [
        Finding(r["path"], r["line"], r["raw"], r["edge"], r["user"], nearest_names(r["raw"], r["path"], symbols))
        for r in kept
    ]


@dataclass(frozen=True, slots=True)
class Named:
    """A symbol a misspelt reference may have meant."""

    qualname: str
    path: str
    label: str


def nearest_names(raw: str, path: str, symbols: dict[str, list[Named]]) -> list[str]:
    """The qualified names ``raw`` (written in ``path``) most likely meant: symbols whose bare
    name is close to its last part, the closest first; among about equally close ones, those
    defined nearer (the same file, then the same directory) and of the kind a call of that form
    reaches (``x.meth`` a method, ``fn`` a function or class)."""
    name = raw.rsplit(".", 1)[-1]
    member = "." in raw
    ranked: list[tuple[tuple[float, bool, bool, bool], str]] = []
    for close in difflib.get_close_matches(name, symbols, _CLOSE_NAMES, _CUTOFF):
        similarity = round(difflib.SequenceMatcher(None, name, close).ratio(), 1)
        for s in symbols[close]:
            near = (s.path == path, _directory(s.path) == _directory(path), (s.label == "Method") == member)
            ranked.append(((similarity, *near), s.qualname))
    ranked.sort(key=lambda pair: pair[1])
    ranked.sort(key=lambda pair: pair[0], reverse=True)  # stable: equal scores stay by qualname
    return list(dict.fromkeys(q for _, q in ranked))[:_SUGGESTIONS]


def _directory(path: str) -> str:
    return path.rpartition("/")[0]


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
