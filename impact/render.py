"""An impact report as a pull-request comment (Markdown) and as a Mermaid graph."""

from __future__ import annotations

from collections import Counter

from branchgraph.impact.analysis import FAR_TIER, TIERS, ImpactReport

MERMAID_NODES = 30
_TIER_TITLES = {
    TIERS[1]: "Will break (direct users)",
    TIERS[2]: "Likely affected (2 hops)",
    FAR_TIER: "May need testing",
}


def to_markdown(report: ImpactReport) -> str:
    counts = Counter(i.tier for i in report.impacted)
    unknown_count = sum(len(v) for v in report.unknowns.values())
    lines = [
        f"### branchgraph impact: **{report.risk}** risk",
        "",
        f"`{report.branch}` at `{report.commit[:12]}`: {len(report.changed)} changed symbols, "
        f"{counts[TIERS[1]]} will break, {counts[TIERS[2]]} likely affected, {counts[FAR_TIER]} may need testing, "
        f"{len(report.tests)} tests to run, {unknown_count} unresolved possible users.",
        "",
        *[f"- {reason}" for reason in report.reasons],
        *[f"- :warning: {note}" for note in report.notes],
        "",
        "| change | symbol | file |",
        "|---|---|---|",
        *[f"| {c['change']} | `{c['qualname']}` | {c['path']}:{c['start_line']} |" for c in report.changed],
    ]
    for tier, title in _TIER_TITLES.items():
        rows = [i for i in report.impacted if i.tier == tier]
        if rows:
            lines += ["", f"#### {title}", "", "| symbol | file | via |", "|---|---|---|"]
            lines += [f"| `{i.qualname}` | {i.path}:{i.start_line} | {' → '.join(i.via[1:])} |" for i in rows]
    if report.tests:
        lines += ["", "#### Tests to run", "", "```sh", "pytest " + " ".join(t.pytest_id for t in report.tests), "```"]
    if report.unknowns:
        lines += ["", "#### Unresolved references that may be users", ""]
        for path, items in sorted(report.unknowns.items()):
            lines.append(f"- {path}: " + ", ".join(f"`{u.raw}` (line {u.line})" for u in items))
    if report.impacted:
        lines += ["", "```mermaid", to_mermaid(report), "```"]
    return "\n".join(lines) + "\n"


def to_mermaid(report: ImpactReport) -> str:
    """Changed symbols and their users as a flowchart, users pointing at what they use; past
    ``MERMAID_NODES`` the farthest users are drawn as one node per file."""
    changed = [c["qualname"] for c in report.changed]
    shown = [i for i in report.impacted][: max(MERMAID_NODES - len(changed), 0)]
    rest = report.impacted[len(shown) :]
    ids: dict[str, str] = {}

    def node(name: str) -> str:
        if name not in ids:
            ids[name] = f"n{len(ids)}"
        return ids[name]

    lines = ["flowchart BT"]
    for name in changed:
        lines.append(f'  {node(name)}["{name}"]:::changed')
    for i in shown:
        lines.append(f'  {node(i.qualname)}["{i.qualname}"] --> {node(i.via[1])}')
    for path, count in Counter(i.path for i in rest).most_common():
        lines.append(f'  {node("file:" + path)}["{count} more in {path}"]')
    lines.append("  classDef changed fill:#fdd,stroke:#c33")
    return "\n".join(lines)
