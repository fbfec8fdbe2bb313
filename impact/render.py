"""An impact report or a branch diff as a pull-request comment (Markdown) and as a Mermaid graph."""

from __future__ import annotations

from collections import Counter

from branchgraph.impact.analysis import FAR_TIER, TIERS, ImpactReport
from branchgraph.impact.branch_diff import BranchDiff

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
            lines += ["", f"#### {title}", "", "| symbol | file | call sites | via |", "|---|---|---|---|"]
            lines += [
                f"| `{i.qualname}` | {i.path}:{i.start_line} | {', '.join(map(str, i.lines))} | {' → '.join(i.via[1:])} |"
                for i in rows
            ]
    if report.tests:
        lines += ["", "#### Tests to run", "", "```sh", *(c.command for c in report.commands), "```"]
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
    drawn = set(changed) | {i.qualname for i in shown}
    for i in shown:
        lines.append(f'  {node(i.qualname)}["{i.qualname}"] --> {node(i.via[1])}')
        if i.via[1] not in drawn:  # the method an override overrides: calling it runs the override
            drawn.add(i.via[1])
            lines.append(f'  {node(i.via[1])}["{i.via[1]}"] -.->|dispatches to| {node(i.via[2])}')
    for path, count in Counter(i.path for i in rest).most_common():
        lines.append(f'  {node("file:" + path)}["{count} more in {path}"]')
    lines.append("  classDef changed fill:#fdd,stroke:#c33")
    return "\n".join(lines)


def diff_markdown(d: BranchDiff) -> str:
    s = d.symbols
    lines = [
        f"### branchgraph diff `{d.base}` → `{d.head}`",
        "",
        f"Files: {len(d.files['added'])} added, {len(d.files['removed'])} removed, {len(d.files['modified'])} modified. "
        f"Symbols: {len(s['added'])} added, {len(s['removed'])} removed, {len(s['modified'])} modified, "
        f"{len(s['signature'])} with a new signature. {len(d.broken)} references broken; {len(d.tests)} tests affected.",
        "",
        "| edges | added | removed |",
        "|---|---|---|",
        *[
            f"| {kind} | {d.edges_added[kind]} | {d.edges_removed[kind]} |"
            for kind in sorted(set(d.edges_added) | set(d.edges_removed))
        ],
    ]
    for group in ("removed", "signature", "added", "modified"):
        if s[group]:
            lines += ["", f"#### {group.capitalize()}", ""]
            lines += [f"- `{x['qualname']}` ({x['path']}:{x['start_line']})" for x in s[group]]
    if d.broken:
        lines += ["", "#### Broken references (resolved on the base, dangling now)", ""]
        lines += [f"- {b['path']}:{b['line']}: `{b['raw']}` in `{b['user']}` (was `{b['was']}`)" for b in d.broken]
    if d.tests:
        lines += ["", "#### Tests affected", ""] + [f"- `{t['qualname']}` ({t['path']})" for t in d.tests]
    return "\n".join(lines) + "\n"


def diff_mermaid(d: BranchDiff) -> str:
    """The changed symbols grouped by change, and each broken reference, at most ``MERMAID_NODES`` nodes."""
    lines = ["flowchart LR"]
    count = 0
    for group, style in (("removed", "removed"), ("signature", "changed"), ("added", "added"), ("modified", "changed")):
        for x in d.symbols[group]:
            if count >= MERMAID_NODES:
                break
            lines.append(f'  s{count}["{group}: {x["qualname"]}"]:::{style}')
            count += 1
    for b in d.broken[: max(MERMAID_NODES - count, 0)]:
        lines.append(f'  b{count}["{b["user"]}"] -. "{b["raw"]} dangles" .-> r{count}["{b["was"]}"]:::removed')
        count += 1
    lines += ["  classDef removed fill:#fdd,stroke:#c33", "  classDef added fill:#dfd,stroke:#3a3",
              "  classDef changed fill:#ffd,stroke:#aa3"]  # fmt: skip
    return "\n".join(lines)
