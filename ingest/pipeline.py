"""The ingest pipeline: read -> parse -> resolve -> graph write -> embed -> record.

Every run resolves the whole commit (parses come from a cache keyed by blob SHA), then
writes only the files whose subgraph differs from what the stores hold, judged by a
branch-independent fingerprint per file. So an update, a branch cloned from a base, a
force-push and a re-run after a crash all converge on exactly what a fresh ingest writes:
inbound edges of unchanged files that pointed at changed, renamed or deleted symbols are
rewritten (re-resolved or dangling) because those files' fingerprints change too.

Crash safety: a file's fingerprint is cleared before its subgraph is rewritten and set after;
the branch's metadata (its indexed commit) is written last, after every graph and vector
write succeeded. A crash leaves the previous record in place and a re-run converges.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from dulwich.repo import Repo

from branchgraph.errors import GitError
from branchgraph.graph.lexical import lexical_text
from branchgraph.graph.model import BRANCH_PREFIX_LEN, SYMBOL_LABELS, FileSubgraph, branch_prefix, subgraph_fingerprint
from branchgraph.graph.pgstore import BranchRecord, NodeEmbeddingRow, PgStore
from branchgraph.graph.store import GraphStore
from branchgraph.ingest import git
from branchgraph.ingest.embed.base import Embedder, content_key
from branchgraph.ingest.embed.text import enriched_text
from branchgraph.ingest.extract import EXTRACTOR_VERSION, ParsedFile, decode_parsed, encode_parsed, extract_all
from branchgraph.ingest.files import SKIP_SUBMODULE, SKIP_SYMLINK, SKIP_TOO_LARGE, classify
from branchgraph.ingest.languages import language_for_path
from branchgraph.ingest.resolve_python import SourceFile, resolve_python

# (stage, done, total): the CLI draws progress bars from these calls.
Progress = Callable[[str, int, int], None]

REFERENCE_EDGE_TYPES = ("CALLS", "IMPORTS", "INHERITS_FROM", "PARAM_TYPE", "RETURNS_TYPE")
_FILES_PER_WRITE = 200
# Past this many vector rows written, the planner's statistics are refreshed.
_ROWS_BEFORE_ANALYZE = 2000
_TEXTS_PER_EMBED = 256
# A base branch is worth cloning while at most this share of the new commit's files differ.
_BASE_MAX_CHANGED_SHARE = 0.5

STRATEGY_BULK = "bulk"  # nothing stored for the branch: write everything at once
STRATEGY_UPDATE = "update"  # rewrite the files whose subgraph changed
STRATEGY_BRANCH_OFF = "branch-off"  # copy an indexed base inside the stores, then update


@dataclass(slots=True)
class IngestSummary:
    """What an ingest did; ``to_dict`` is the ``ingest --json`` document."""

    repo: str
    branch: str
    commit: str
    strategy: str = STRATEGY_BULK
    base: str | None = None  # the branch cloned from (branch-off)
    previous_commit: str | None = None  # what the branch was indexed at before
    changes: dict[str, int] = field(default_factory=dict)  # tree diff against previous/base commit
    files: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    parse_errors: int = 0
    conflict_files: list[str] = field(default_factory=list)
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    dangling: dict[str, int] = field(default_factory=dict)
    unresolved_rate: float = 0.0
    work: dict[str, int] = field(default_factory=dict)
    embeddings: dict[str, int] = field(default_factory=lambda: {"computed": 0, "reused": 0, "carried": 0})
    embedder: str = "none"
    files_deleted: int = 0
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class _Stopwatch:
    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = round(self.seconds.get(name, 0.0) + time.perf_counter() - start, 3)


def repo_name_for(root: Path) -> str:
    name = root.name
    return name[:-4] if name.endswith(".git") else name


def ingest_branch(
    repo_path: str | Path,
    graph: GraphStore,
    pg: PgStore,
    embedder: Embedder | None,
    *,
    branch: str | None = None,
    rev: str | None = None,
    base: str | None = None,
    full: bool = False,
    repo_name: str | None = None,
    max_file_bytes: int = 1_000_000,
    wait_for_lock: bool = True,
    progress: Progress | None = None,
) -> IngestSummary:
    """Index one commit of a repository as ``branch`` into the graph and vector stores.

    An indexed branch is updated incrementally; a new branch is cloned from the indexed
    branch nearest to it (``base`` to choose one) when that is cheaper than a fresh ingest;
    ``full`` re-parses and rewrites every file.
    """
    report = progress or (lambda stage, done, total: None)
    repo = git.open_repo(repo_path)
    root = git.repo_root(repo)
    branch = branch or git.current_branch(repo)
    commit = git.resolve_commit(repo, branch, rev)
    name = repo_name or repo_name_for(root)
    summary = IngestSummary(repo=name, branch=branch, commit=commit.id.decode("ascii"))
    summary.embedder = f"{embedder.model_id}/{embedder.dims}" if embedder else "none"
    clock = _Stopwatch()
    work: Counter[str] = Counter()

    with pg.ingest_lock(name, branch, wait=wait_for_lock):
        previous = pg.branch_record(name, branch)
        summary.previous_commit = previous.indexed_commit if previous else None
        stored_nothing = previous is None and pg.branch_is_new(name, branch) and not graph.has_branch(name, branch)
        if base is not None and not stored_nothing:
            raise GitError(f"{branch!r} is already indexed; --base only applies to a branch's first ingest")
        base_record = None
        if stored_nothing and not full:
            base_record = _choose_base(repo, pg, name, branch, summary.commit, base)
        summary.strategy = (
            STRATEGY_BRANCH_OFF if base_record else STRATEGY_BULK if stored_nothing else STRATEGY_UPDATE
        )
        summary.base = base_record.branch if base_record else None

        with clock.stage("read"):
            entries, skipped = _source_entries(repo, commit)
        with clock.stage("parse"):
            files = _parse(repo, pg, entries, skipped, max_file_bytes, full, work, report)
        summary.skipped = dict(sorted(skipped.items()))
        summary.files = len(files)
        summary.parse_errors = sum(f.parsed.parse_errors for f in files)
        summary.conflict_files = [f.path for f in files if f.conflict_lines]
        with clock.stage("resolve"):
            subgraphs = resolve_python(name, branch, files)
        _count(subgraphs, summary)

        pg.start_run(name, branch, summary.commit)
        with clock.stage("graph_write"):
            graph.ensure_schema()
            if base_record is not None:
                graph.clone_branch(name, base_record.branch, branch)
                pg.clone_branch(name, base_record.branch, branch, branch_prefix(name, branch), BRANCH_PREFIX_LEN)
            diff_from = base_record.indexed_commit if base_record else summary.previous_commit
            diff = _diff(repo, diff_from, summary.commit)
            summary.changes = diff.to_dict()
            written, removed, states = _write_graph(graph, pg, name, branch, subgraphs, summary.strategy, full, work, report)
        summary.files_deleted = len(removed)
        # Another embedder than the branch's (or its base's) vectors were made with: every
        # symbol gets a vector from the new one, so a branch never mixes models or sizes.
        inherited = previous.embedder if previous else base_record.embedder if base_record else None
        switched_model = inherited is not None and inherited != summary.embedder
        with clock.stage("embed"):
            _embed(
                repo,
                pg,
                embedder,
                name,
                branch,
                subgraphs if switched_model else written,
                removed,
                diff.renamed,
                summary.strategy == STRATEGY_BULK or switched_model,
                summary,
                report,
            )
        # A file's state says its graph *and* vector rows are current, so it is set last.
        pg.set_file_states(name, branch, states, removed)
        pg.record_branch(
            BranchRecord(
                repo=name,
                branch=branch,
                repo_path=str(root),
                indexed_commit=summary.commit,
                indexed_at=datetime.now(timezone.utc),
                embedder=summary.embedder,
                counts={"files": summary.files, "nodes": summary.nodes, "edges": summary.edges, "dangling": summary.dangling},
                unresolved_rate=summary.unresolved_rate,
                base_branch=summary.base or (previous.base_branch if previous else None),
                rename_map=diff.renamed,
                conflict_files=summary.conflict_files,
            )
        )
    summary.work = dict(sorted(work.items()))
    summary.seconds = clock.seconds
    summary.seconds["total"] = round(sum(clock.seconds.values()), 3)
    return summary


def _source_entries(repo: Repo, commit) -> tuple[list[git.TreeFile], Counter[str]]:
    """Tracked files in a language branchgraph parses; links and submodules are counted apart."""
    entries: list[git.TreeFile] = []
    skipped: Counter[str] = Counter()
    for entry in git.tree_files(repo, commit):
        if not language_for_path(entry.path):
            continue
        if entry.is_submodule:
            skipped[SKIP_SUBMODULE] += 1
        elif entry.is_symlink:
            # A symlink's blob is its target path; following it could leave the repository.
            skipped[SKIP_SYMLINK] += 1
        else:
            entries.append(entry)
    return entries, skipped


def _parse(
    repo: Repo,
    pg: PgStore,
    entries: list[git.TreeFile],
    skipped: Counter[str],
    max_file_bytes: int,
    bypass_cache: bool,
    work: Counter[str],
    report: Progress,
) -> list[SourceFile]:
    """Parsed files of the commit: from the parse cache by blob SHA, else read and parsed."""
    parsed: dict[str, ParsedFile] = {}
    by_language: dict[str, list[git.TreeFile]] = {}
    for entry in entries:
        by_language.setdefault(language_for_path(entry.path).name, []).append(entry)
    for language, group in by_language.items():
        cached = {} if bypass_cache else pg.cached_parses((e.blob_sha for e in group), language, EXTRACTOR_VERSION)
        misses: list[tuple[git.TreeFile, bytes]] = []
        for done, entry in enumerate(group, 1):
            if entry.blob_sha in cached:
                parsed[entry.blob_sha] = decode_parsed(cached[entry.blob_sha])
                continue
            verdict = classify(git.read_blob(repo, entry.blob_sha), max_file_bytes)
            if isinstance(verdict, str):
                skipped[verdict] += 1
            else:
                misses.append((entry, verdict.data))
            report("read", done, len(group))
        new_rows = []
        jobs = [(language, data) for _, data in misses]
        for done, ((entry, _), result) in enumerate(zip(misses, extract_all(jobs)), 1):
            parsed[entry.blob_sha] = result
            new_rows.append((entry.blob_sha, encode_parsed(result)))
            report("parse", done, len(misses))
        pg.put_parses(language, EXTRACTOR_VERSION, new_rows)
        work["files_parsed"] += len(misses)
        work["parse_cache_hits"] += sum(1 for e in group if e.blob_sha in cached)
    files = []
    for entry in entries:
        result = parsed.get(entry.blob_sha)
        if result is None:
            continue  # skipped above
        if result.size > max_file_bytes:
            skipped[SKIP_TOO_LARGE] += 1  # cached before the limit was lowered
            continue
        files.append(SourceFile(entry.path, entry.blob_sha, result))
    return files


def _choose_base(repo: Repo, pg: PgStore, name: str, branch: str, commit: str, wanted: str | None) -> BranchRecord | None:
    """The indexed branch cheapest to clone for a new branch: the named one, else the one whose
    indexed commit differs from ``commit`` in the fewest files (when few enough to pay off)."""
    candidates = [r for r in pg.branches(name) if r.branch != branch and git.commit_exists(repo, r.indexed_commit)]
    if wanted is not None:
        chosen = next((r for r in candidates if r.branch == wanted), None)
        if chosen is None:
            raise GitError(f"--base {wanted!r} is not an indexed branch of this repository")
        return chosen
    best, best_cost = None, None
    for record in candidates:
        cost = git.diff_commits(repo, record.indexed_commit, commit, detect_renames=False).count
        if best_cost is None or cost < best_cost:
            best, best_cost = record, cost
    if best is None:
        return None
    tracked = git.diff_commits(repo, None, commit, detect_renames=False).count
    return best if best_cost <= tracked * _BASE_MAX_CHANGED_SHARE else None


def _diff(repo: Repo, old: str | None, new: str) -> git.TreeDiff:
    if old is not None and not git.commit_exists(repo, old):
        old = None  # history rewritten and collected: compare with nothing
    return git.diff_commits(repo, old, new)


def _write_graph(
    graph: GraphStore,
    pg: PgStore,
    name: str,
    branch: str,
    subgraphs: list[FileSubgraph],
    strategy: str,
    rewrite_all: bool,
    work: Counter[str],
    report: Progress,
) -> tuple[list[FileSubgraph], list[str]]:
    """Write what differs from the stored graph; return the written subgraphs, the removed
    paths, and the file states to record once their vector rows are written too."""
    blobs = {}
    fingerprints = {s.path: subgraph_fingerprint(s) for s in subgraphs}
    if strategy == STRATEGY_BULK:
        report("write", 0, 1)
        graph.write_new_branch(name, branch, subgraphs)
        report("write", 1, 1)
        written, removed = subgraphs, []
    else:
        states = pg.file_states(name, branch)
        blobs = {path: blob for path, (blob, _) in states.items()}
        written = [s for s in subgraphs if rewrite_all or states.get(s.path, (None, None))[1] != fingerprints[s.path]]
        current = {s.path for s in subgraphs}
        removed = sorted(set(states) - current)
        pg.mark_files_dirty(name, branch, [s.path for s in written])
        for start in range(0, len(written), _FILES_PER_WRITE):
            work.update(graph.replace_files(name, branch, written[start : start + _FILES_PER_WRITE]))
            report("write", min(start + _FILES_PER_WRITE, len(written)), len(written))
        # The graph is asked, not the states: a crashed run may have left files they miss.
        removed = sorted(set(removed) | set(graph.files_except(name, branch, current)))
        work.update(graph.delete_files(name, branch, removed))
        if written or removed:
            graph.prune_unresolved(name, branch)
    blob_of = {s.path: _file_blob(s) for s in subgraphs}
    work["files_written"] = len(written)
    work["files_removed"] = len(removed)
    # Files rewritten although their content did not change: their references were re-resolved.
    re_resolved = [s for s in written if s.path in blobs and blobs[s.path] == blob_of[s.path]]
    work["files_re_resolved"] = len(re_resolved)
    work["edges_re_resolved"] = sum(len(s.edges) for s in re_resolved)
    work["nodes_written"] = sum(len(s.nodes) for s in written)
    work["edges_written"] = sum(len(s.edges) for s in written)
    states = [(s.path, blob_of[s.path], fingerprints[s.path]) for s in written]
    return written, removed, states


def _file_blob(subgraph: FileSubgraph) -> str:
    return next(n.props["blob_sha"] for n in subgraph.nodes if n.label == "File")


def _count(subgraphs: list[FileSubgraph], summary: IngestSummary) -> None:
    nodes: Counter[str] = Counter()
    edges: Counter[str] = Counter()
    reasons = {}
    for s in subgraphs:
        nodes.update(n.label for n in s.nodes)
        edges.update(e.type for e in s.edges)
        reasons.update({u.id: u.props["reason"] for u in s.unresolved})
    nodes["Unresolved"] = len(reasons)
    dangling: Counter[str] = Counter(reasons[e.dst] for s in subgraphs for e in s.edges if not e.resolved)
    resolved = sum(1 for s in subgraphs for e in s.edges if e.resolved and e.type in REFERENCE_EDGE_TYPES)
    in_repo = resolved + dangling["unresolved"]
    summary.nodes = dict(sorted(nodes.items()))
    summary.edges = dict(sorted(edges.items()))
    summary.dangling = dict(sorted(dangling.items()))
    summary.unresolved_rate = round(dangling["unresolved"] / in_repo, 4) if in_repo else 0.0


def _embed(
    repo: Repo,
    pg: PgStore,
    embedder: Embedder | None,
    name: str,
    branch: str,
    written: list[FileSubgraph],
    removed: list[str],
    renamed: dict[str, str],
    whole_branch: bool,
    summary: IngestSummary,
    report: Progress,
) -> None:
    """Vector rows for the symbols of the written files. Texts already embedded are reused,
    and an unchanged symbol of a renamed file keeps its vector (its text differs only in the
    path and qualname), so a rename costs no embedding calls."""
    scope = None if whole_branch else [s.path for s in written] + removed
    if embedder is None:
        # Graph only: the branch keeps no vector rows that would describe an older commit.
        pg.replace_node_embeddings(name, branch, [], scope)
        return
    rows: list[NodeEmbeddingRow] = []
    pending: dict[str, str] = {}
    for s in written:
        lines = git.read_blob(repo, _file_blob(s)).decode("utf-8").splitlines()
        for n in s.nodes:
            if n.label not in SYMBOL_LABELS:
                continue
            p = n.props
            text = enriched_text(
                path=s.path,
                label=n.label,
                qualname=p["qualname"],
                signature=p["signature"],
                docstring=p["docstring"],
                body="\n".join(lines[p["start_line"] - 1 : p["end_line"]]),
                enclosing_class=p["qualname"].rsplit(".", 1)[0] if n.label == "Method" else None,
            )
            key = content_key(embedder, text)
            pending[key] = text
            lexical = lexical_text(p["qualname"], s.path, p["signature"], p["docstring"][:500])
            rows.append(
                NodeEmbeddingRow(
                    n.id, n.label, s.path, p["qualname"], key, lexical, p["content_hash"],
                    p["start_line"], p["end_line"], bool(p.get("has_conflict")),
                )
            )
    missing = pg.missing_content_keys(pending)
    renamed_from = {new: old for old, new in renamed.items()}
    moves = [(renamed_from[r.path], r.label, r.symbol_hash, r.content_key) for r in rows if r.path in renamed_from and r.content_key in missing]
    carried = pg.carry_vectors(name, branch, embedder.model_id, moves)
    missing = sorted(missing - carried)
    for start in range(0, len(missing), _TEXTS_PER_EMBED):
        keys = missing[start : start + _TEXTS_PER_EMBED]
        vectors = embedder.embed([pending[k] for k in keys])
        pg.put_embeddings(embedder.model_id, list(zip(keys, vectors)))
        report("embed", min(start + _TEXTS_PER_EMBED, len(missing)), len(missing))
    if missing or carried:
        pg.ensure_vector_index(embedder.model_id, embedder.dims)
    summary.embeddings = {"computed": len(missing), "reused": len(pending) - len(missing) - len(carried), "carried": len(carried)}
    pg.replace_node_embeddings(name, branch, rows, scope)
    if whole_branch or len(rows) > _ROWS_BEFORE_ANALYZE:
        pg.refresh_statistics()
