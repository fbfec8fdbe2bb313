"""From entry symbols and their expansion to the items of a context: one candidate per node
with its best score and why it is there, its text read by span, nested text folded into the
item that holds it, and a reading order with definitions before their users."""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

from branchgraph.core.extract import conflict_extents
from branchgraph.core.languages import language_for_path
from branchgraph.retrieval.ranking import neighbour_score
from branchgraph.retrieval.source import BranchSources, FileText, Span

# A search hit the graph also reaches from an entry gains this share of the neighbour score.
GRAPH_SUPPORT = 0.3

# An outline is a map, not the code: on the real tasks of bench/real_tasks.py full outlines took
# a quarter of an 8,000-token context. It keeps this many lines of a class's header (its
# docstring and class attributes), signature lines for this many members, then their names.
OUTLINE_HEADER_LINES = 12
OUTLINE_MEMBERS = 12
OUTLINE_NAMES_CHARS = 160

# Kinds whose neighbour is code the entry uses: shown before the entry. The rest (callers,
# tests) use the entry and come after it.
_DEFINITION_KINDS = frozenset({"callee", "type", "base", "enclosing class"})


@dataclass
class Candidate:
    id: str
    kind: str  # node label
    qualname: str
    path: str
    span: Span
    score: float
    reason: str
    parent: str | None  # the item that connects it to its entry; None for entries and search matches
    is_entry: bool
    reasons: list[str] = field(default_factory=list)
    text: str = ""
    stale: bool = False
    outline: bool = False
    truncated: bool = False  # cut to its first lines to fit the budget
    has_conflict: bool = False
    folded: list[str] = field(default_factory=list)  # qualnames shown inside this item's text
    members: list[dict] | None = None  # a class's direct members from the graph (for outlines)
    qualified: bool = False  # the question names it with a dotted name (``requests.get``)
    search: Any = None  # its SearchHit when search found it
    search_score: float = 0.0  # its normalised fused search score (0: found only through the graph)
    graph_score: float = 0.0  # its strongest link from an entry (entry score x edge weight x decay)
    linked_entries: set[str] = field(default_factory=set)  # entries that reach it through the graph
    link_kinds: set[str] = field(default_factory=set)  # the kinds of edge that reached it ("callee", "member", ...)
    tokens: int = 0
    source: FileText | None = field(default=None, repr=False)  # the copy its text came from

    @property
    def matched(self) -> bool:
        """Found by search (an entry or a further match), not only through the graph."""
        return self.search is not None

    @property
    def named(self) -> bool:
        """The question names it (an identifier of the query is its name)."""
        return self.search is not None and bool(self.search.exact)


@dataclass(frozen=True, slots=True)
class _Member:
    start_line: int
    end_line: int
    signature: str
    name: str


@dataclass(frozen=True, slots=True)
class Uses:
    """``definition`` is code that ``user`` relies on (ordering: definition first)."""

    definition: str
    user: str


def gather(
    entries: list[tuple[Any, float]], matches: list[tuple[Any, float]], rows: list[dict]
) -> tuple[dict[str, Candidate], list[Uses], int]:
    """Candidates from entry hits, further search matches (not expanded) and expansion rows,
    each with its structural score: a hit's normalised search score, or its entry's score
    carried along the edge that reached it. Returns them, the use relations between them, and
    how many neighbours were left out for merge conflicts."""
    candidates: dict[str, Candidate] = {}
    for (hit, score), is_entry in [*((e, True) for e in entries), *((m, False) for m in matches)]:
        reason = "entry" if is_entry else "search match"
        candidates[hit.id] = Candidate(
            hit.id,
            hit.kind,
            hit.qualname,
            hit.path,
            Span(hit.start_line or 1, hit.end_line or hit.start_line or 1),
            score,
            reason,
            None,
            is_entry,
            [reason],
            has_conflict=hit.has_conflict,
            search=hit,
            search_score=score,
        )
    entry_scores = {hit.id: score for hit, score in entries}
    qualnames = {c.id: c.qualname for c in candidates.values()}
    qualnames.update({row["id"]: row["qualname"] for row in rows})
    uses: list[Uses] = []
    conflicted: set[str] = set()
    for row in rows:
        entry_id = row["entry_id"]
        if entry_id not in entry_scores or row["start_line"] is None:
            continue
        if row["has_conflict"]:
            conflicted.add(row["id"])
            continue
        parent = row["via"] or entry_id
        reason = f"{row['kind']} of {qualnames.get(parent, row['entry'])}"
        score = neighbour_score(entry_scores[entry_id], row["kind"], row["distance"])
        uses.append(Uses(row["id"], parent) if row["kind"] in _DEFINITION_KINDS else Uses(parent, row["id"]))
        found = candidates.get(row["id"])
        if found is None:
            candidates[row["id"]] = Candidate(
                row["id"],
                row["label"],
                row["qualname"],
                row["path"],
                Span(row["start_line"], row["end_line"]),
                score,
                reason,
                parent,
                False,
                [reason],
                members=row.get("members"),
                graph_score=score,
                linked_entries={entry_id},
                link_kinds={row["kind"]},
            )
            continue
        found.graph_score = max(found.graph_score, score)
        found.linked_entries.add(entry_id)
        found.link_kinds.add(row["kind"])
        found.reasons.append(reason)
        if not found.is_entry and (score > found.score or found.parent is None):
            found.score, found.reason, found.parent = max(score, found.score), reason, parent
    # A search hit the graph also reaches is supported once, by its strongest link.
    for c in candidates.values():
        if c.matched:
            c.score += GRAPH_SUPPORT * c.graph_score
    return candidates, uses, len(conflicted - set(candidates))


def read_texts(candidates: dict[str, Candidate], sources: BranchSources, warnings: list[str]) -> None:
    """Fill in each candidate's text; drop those whose file cannot be read."""
    sources.prefetch([c.path for c in candidates.values()])
    for c in sorted(candidates.values(), key=lambda c: (not c.is_entry, -c.score)):
        source = sources.file(c.path)
        if source is None:
            warnings.append(f"{c.path} is not readable at the indexed commit; {c.qualname} left out")
            del candidates[c.id]
            continue
        if source.drifted:
            source = _relocate(c, source, sources, warnings)
            if source is None:
                del candidates[c.id]
                continue
        c.source = source
        if c.has_conflict:
            c.span = _conflict_span(c.span, source)
        c.text = source.text(c.span)
        # A class is an outline: its methods are items of their own (an entry class's methods
        # are candidates through expansion), ranked and trimmed one by one, so a question about
        # one method of a 400-line class does not get the whole class. A class whose methods
        # all fit reads as it would in full; one without methods is its full text.
        c.outline = c.kind == "Class"
    warnings.extend(sources.warnings)
    write_outlines(list(candidates.values()))


def write_outlines(items: list[Candidate]) -> None:
    """(Re)write the text of the outlined classes among ``items``: one signature line per
    member that no other item shows in full. Run again after the budget dropped items, so a
    dropped method gets its signature line back."""
    by_path: dict[str, list[Candidate]] = {}
    for c in items:
        by_path.setdefault(c.path, []).append(c)
    for c in items:
        if c.outline:
            c.text = _outline(c, by_path[c.path])


def _conflict_span(span: Span, source: FileText) -> Span:
    """A torn symbol's span reaches to the next definition: its body sits between the conflict
    markers that cut its parse short."""
    defs = source.definitions
    extents = conflict_extents(defs, len(source.lines))
    for d, end in zip(defs, extents, strict=True):
        if d.start_line == span.start_line:
            return Span(span.start_line, max(span.end_line, end))
    return span


def _relocate(c: Candidate, source: FileText, sources: BranchSources, warnings: list[str]) -> FileText | None:
    """A drifted file: find the symbol again by re-parsing it; when it is gone from the
    working tree, show the indexed version. Either way the item is stale."""
    c.stale = True
    span = source.relocate(c.qualname, c.span)
    if span is not None:
        c.span = span
        return source
    indexed = sources.indexed_copy(c.path)
    if indexed is None:
        warnings.append(f"{c.qualname} is gone from the working tree and its indexed blob is missing; left out")
        return None
    warnings.append(f"{c.qualname} is gone from the working tree copy of {c.path}; showing the indexed version")
    return indexed


def _outline(c: Candidate, same_file: list[Candidate]) -> str:
    """A class without its method bodies: the header (docstring, class attributes) and one
    signature line per method. Methods shown in full elsewhere are left out, so no text
    appears twice."""
    source = c.source
    if source is None:
        return c.text
    if c.members is not None and not c.stale:
        # The graph's members of the class: no need to decode the file's parse.
        children = sorted(
            (_Member(m["start_line"], m["end_line"], m["signature"] or "", m["name"]) for m in c.members),
            key=lambda m: m.start_line,
        )
    else:
        defs = source.definitions
        index = next(
            (i for i, d in enumerate(defs) if (d.start_line, d.end_line) == (c.span.start_line, c.span.end_line)), None
        )
        if index is None:
            return c.text
        children = [_Member(d.start_line, d.end_line, d.signature, d.name) for d in defs if d.parent == index]
    if not children:
        return c.text
    shown = {(o.span.start_line, o.span.end_line) for o in same_file if not o.outline and o.source is source}
    lines = source.lines
    # The header runs to the first member inside the class; a type whose methods are all
    # declared after it (Go's structs) is its whole own text, never the code that follows it.
    inside = [d for d in children if d.start_line <= c.span.end_line]
    out = lines[c.span.start_line - 1 : inside[0].start_line - 1 if inside else c.span.end_line]
    while out and not out[-1].strip():
        out.pop()
    hidden = [d for d in children if (d.start_line, d.end_line) not in shown]
    first = lines[children[0].start_line - 1] if children[0].start_line - 1 < len(lines) else ""
    indent = first[: len(first) - len(first.lstrip())]
    if len(out) > OUTLINE_HEADER_LINES:
        out = [*out[:OUTLINE_HEADER_LINES], f"{indent}..."]
    language = language_for_path(c.path)
    elided = language.conventions.elided_body if language is not None else ": ..."
    # One line a name: TypeScript's overload signatures, Java's overloads, a Python property's
    # setter would each take a line (hono's HonoRequest: 5 of 12 were `param`).
    by_name: dict[str, list[_Member]] = {}
    for d in hidden:
        by_name.setdefault(d.name, []).append(d)
    groups = list(by_name.values())
    for member, *others in groups[:OUTLINE_MEMBERS]:
        signature = member.signature.splitlines()[0] if member.signature else member.name
        also = f" (+{len(others)} more signature{'s' if len(others) > 1 else ''})" if others else ""
        out.append(f"{indent}{signature}{elided}{also}")
    rest = [group[0] for group in groups[OUTLINE_MEMBERS:]]
    if rest:
        names = ", ".join(d.name for d in rest)
        if len(names) > OUTLINE_NAMES_CHARS:
            cut = names.rfind(", ", 0, OUTLINE_NAMES_CHARS)
            names = names[: cut if cut > 0 else OUTLINE_NAMES_CHARS] + ", ..."
        out.append(f"{indent}# {len(rest)} more: {names}")
    return "\n".join(out)


def fold_nested(candidates: dict[str, Candidate]) -> None:
    """A symbol whose text lies inside another item's full text (a method of a class shown in
    full) is not repeated: it is folded into that item, which inherits its reasons."""
    full = sorted(
        (c for c in candidates.values() if not c.outline), key=lambda c: (c.path, c.span.start_line, -c.span.end_line)
    )
    folded: dict[str, str] = {}
    open_items: list[Candidate] = []
    for c in full:
        open_items = [o for o in open_items if o.path == c.path and o.span.end_line >= c.span.end_line]
        holder = next((o for o in open_items if o.span.start_line <= c.span.start_line and c.stale == o.stale), None)
        if holder is not None and holder.id != c.id:
            folded[c.id] = holder.id
            holder.reasons.extend(f"{c.qualname}: {r}" for r in c.reasons)
            holder.folded.extend([c.qualname, *c.folded])
            _absorb(holder, c)
            continue
        open_items.append(c)
    _remove_absorbed(candidates, folded)


# A definition of a name this short, next to another definition of it in the same file, is a
# declaration of it (an ``@overload`` stub, a TypeScript overload signature, a two-line property
# getter beside its setter): one item with its neighbour. "Next to": at most this many lines
# between them (two blank lines and two decorators).
DECLARATION_LINES = 6
ADJACENT_GAP = 4


def merge_overloads(candidates: dict[str, Candidate]) -> None:
    """Definitions of one name in one file: short ones next to another (``@overload``
    declarations and their implementation) are one item with the definition they declare,
    spanning them all, with the best score of them; longer ones stay items of their own — a
    property's getter and setter, Java's overloads, the two versions of a function under ``if
    sys.version_info``: each has code of its own, and the longest alone had hidden the rest.
    Items hanging from an absorbed one move to its absorber."""
    groups: dict[tuple[str, str], list[Candidate]] = {}
    for c in candidates.values():
        groups.setdefault((c.path, c.qualname), []).append(c)
    merged: dict[str, str] = {}
    for group in groups.values():
        if len(group) < 2:
            continue
        for run in _adjacent_runs(sorted(group, key=lambda c: (c.span.start_line, c.span.end_line, c.id))):
            bodies = [c for c in run if _lines(c) > DECLARATION_LINES] or [
                max(run, key=lambda c: (_lines(c), c.is_entry, c.id))
            ]
            body_ids = {b.id for b in bodies}
            # Declarations precede what they declare: each joins the next definition with a body
            # (chosen for all before absorbing grows the spans).
            declared = [
                (c, next((b for b in bodies if b.span.start_line > c.span.start_line), bodies[-1]))
                for c in run
                if c.id not in body_ids
            ]
            for c, keep in declared:
                keep.reasons.extend(r for r in c.reasons if r not in keep.reasons)
                keep.span = Span(min(keep.span.start_line, c.span.start_line), max(keep.span.end_line, c.span.end_line))
                _absorb(keep, c)
                merged[c.id] = keep.id
    _remove_absorbed(candidates, merged)


def _lines(c: Candidate) -> int:
    return c.span.end_line - c.span.start_line + 1


def _adjacent_runs(ordered: list[Candidate]) -> list[list[Candidate]]:
    """``ordered`` (by line) cut where more than ``ADJACENT_GAP`` lines part two definitions."""
    runs = [[ordered[0]]]
    for c in ordered[1:]:
        if c.span.start_line - runs[-1][-1].span.end_line - 1 > ADJACENT_GAP:
            runs.append([])
        runs[-1].append(c)
    return runs


def _absorb(keep: Candidate, other: Candidate) -> None:
    """``keep`` stands for ``other`` from now on: the better score, and an entry if either was."""
    keep.score = max(keep.score, other.score)
    keep.is_entry = keep.is_entry or other.is_entry
    if keep.is_entry:
        keep.parent = None


def _remove_absorbed(candidates: dict[str, Candidate], absorbed: dict[str, str]) -> None:
    """Drop the absorbed candidates; what hung from one hangs from its absorber."""
    for inner in absorbed:
        del candidates[inner]
    for c in candidates.values():
        while c.parent in absorbed:
            c.parent = absorbed[c.parent]
        if c.parent == c.id:
            c.parent = None


def reading_order(items: list[Candidate], uses: list[Uses]) -> list[str]:
    """Definitions before their users; otherwise best first. Cycles (recursion) are broken
    at the best-scoring item."""
    ids = {item.id for item in items}
    score = {item.id: item.score for item in items}
    after: dict[str, set[str]] = {i: set() for i in ids}
    waiting: dict[str, int] = dict.fromkeys(ids, 0)
    for u in uses:
        if u.definition in ids and u.user in ids and u.definition != u.user and u.user not in after[u.definition]:
            after[u.definition].add(u.user)
            waiting[u.user] += 1
    ready = [(-score[i], i) for i in ids if waiting[i] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    placed: set[str] = set()
    while len(order) < len(ids):
        if not ready:
            stuck = max((i for i in ids if i not in placed), key=lambda i: (score[i], i))
            waiting[stuck] = 0
            ready = [(-score[stuck], stuck)]
        _, item_id = heapq.heappop(ready)
        if item_id in placed:
            continue
        placed.add(item_id)
        order.append(item_id)
        for user in after[item_id]:
            waiting[user] -= 1
            if waiting[user] == 0 and user not in placed:
                heapq.heappush(ready, (-score[user], user))
    return order
