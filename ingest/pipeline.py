"""The ingest pipeline: read -> parse -> resolve -> graph write -> embed -> record.

Every run parses the commit's files (from a cache keyed by blob SHA), resolves again the files
a change can reach (``ingest.incremental``: the others keep their stored subgraphs; a commit
that changes no source or project file resolves nothing), then writes only the files whose
subgraph differs from what the stores hold, judged by a branch-independent fingerprint per
file. The embed stage writes a branch's node rows while their vectors are computed, on
another connection, committing them once the vectors are stored. So an update, a branch
cloned from a base, a force-push and a re-run after a crash all converge on exactly what a
fresh ingest writes: inbound edges of unchanged files that pointed at changed, renamed or
deleted symbols are rewritten (re-resolved or dangling) because those files' fingerprints
change too.

Crash safety: a file's fingerprint is cleared before its subgraph is rewritten and set after;
the branch's metadata (its indexed commit) is written last, after every graph and vector
write succeeded. A crash leaves the previous record in place and a re-run converges.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dulwich.objects import Commit
from dulwich.repo import Repo

from branchgraph.core import git
from branchgraph.core.collector import collector_paused
from branchgraph.core.embed.base import Embedder, content_key
from branchgraph.core.embed.text import enriched_text
from branchgraph.core.errors import GitError
from branchgraph.core.extract import (
    EXTRACTOR_VERSION,
    ParsedFile,
    decode_parsed,
    extract_all,
    name_problem,
)
from branchgraph.core.files import (
    DEFAULT_MAX_FILE_BYTES,
    SKIP_SUBMODULE,
    SKIP_SYMLINK,
    SKIP_TOO_LARGE,
    classify,
    path_problem,
    source_lines,
)
from branchgraph.core.languages import is_project_file, language_for_path
from branchgraph.core.model import BRANCH_PREFIX_LEN, SYMBOL_LABELS, FileSubgraph, branch_prefix, subgraph_fingerprint
from branchgraph.graph.protocols import BranchRecord, FileState, GraphWriter, IngestTarget, NodeEmbeddingRow
from branchgraph.ingest.documents import DOCUMENT_VERSION, symbol_document, written_lines
from branchgraph.ingest.incremental import (
    FileRecord,
    PreviousResolution,
    branch_counts,
    fact,
    fact_key,
    fingerprint,
    is_current,
)
from branchgraph.ingest.read_log import PROJECT, stored_key
from branchgraph.ingest.repo_keys import repo_key
from branchgraph.ingest.resolvers import ResolvedUpdate, resolve_update
from branchgraph.ingest.subgraphs import DeferredSource, ParsedSource

# (stage, done, total): the CLI draws progress bars from these calls.
Progress = Callable[[str, int, int], None]

# Past this many vector rows written, the planner's statistics are refreshed.
_ROWS_BEFORE_ANALYZE = 2000
_TEXTS_PER_EMBED = 256
# A base branch is worth cloning while at most this share of the new commit's files differ.
_BASE_MAX_CHANGED_SHARE = 0.5
# A project file (package.json, tsconfig.json) larger than this is no configuration.
_MAX_PROJECT_FILE_BYTES = 1 << 20

STRATEGY_BULK = "bulk"  # nothing stored for the branch: write everything at once
STRATEGY_UPDATE = "update"  # rewrite the files whose subgraph changed
STRATEGY_BRANCH_OFF = "branch-off"  # copy an indexed base inside the stores, then update


@dataclass(frozen=True, slots=True)
class IngestStores:
    """Where an ingest writes: the graph, PostgreSQL (vectors, parse cache, index state) and
    the embedder (None: graph only)."""

    graph: GraphWriter
    rows: IngestTarget
    embedder: Embedder | None


@dataclass(frozen=True, slots=True)
class IngestOptions:
    """What to index and how."""

    branch: str | None = None  # default: the checked-out branch
    rev: str | None = None  # index this commit under ``branch`` instead of its tip
    base: str | None = None  # a new branch's base to clone (default: the nearest indexed one)
    full: bool = False  # re-parse and rewrite every file
    repo_name: str | None = None  # default: ``repo_keys.repo_key`` (the folder's name unless taken)
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    wait_for_lock: bool = True  # False: raise IngestLocked when another ingest of the branch runs


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


@dataclass(frozen=True, slots=True)
class _Run:
    """One ingest in progress: which branch of which repository, into which stores."""

    repo: Repo
    name: str
    branch: str
    stores: IngestStores
    report: Progress


@dataclass(slots=True)
class _Parsed:
    files: list[ParsedSource]
    skipped: Counter[str]
    work: Counter[str]


@dataclass(slots=True)
class _Written:
    subgraphs: list[FileSubgraph]  # the files whose subgraphs were (re)written
    removed: list[str]  # paths whose subgraphs were deleted
    states: list[FileState]  # to record once vectors are written
    work: Counter[str]


def ingest_branch(
    repo_path: str | Path,
    stores: IngestStores,
    options: IngestOptions = IngestOptions(),
    progress: Progress | None = None,
) -> IngestSummary:
    """Index one commit of a repository as a branch into the graph and vector stores.

    An indexed branch is updated incrementally; a new branch is cloned from the indexed
    branch nearest to it (``options.base`` to choose one) when that is cheaper than a fresh
    ingest; ``options.full`` re-parses and rewrites every file.
    """
    repo = git.open_repo(repo_path)
    root = git.repo_root(repo)
    branch = options.branch or git.current_branch(repo)
    commit = git.resolve_commit(repo, branch, options.rev)
    name = options.repo_name or repo_key(root, repo, stores.rows.branches())
    run = _Run(repo, name, branch, stores, progress or (lambda stage, done, total: None))
    graph, rows, embedder = stores.graph, stores.rows, stores.embedder
    summary = IngestSummary(repo=name, branch=branch, commit=commit.id.decode("ascii"))
    summary.embedder = f"{embedder.model_id}/{embedder.dims}" if embedder else "none"
    clock = _Stopwatch()
    work: Counter[str] = Counter()

    with rows.ingest_lock(name, branch, wait=options.wait_for_lock), contextlib.ExitStack() as held, collector_paused():
        previous = rows.branch_record(name, branch)
        if previous is not None and previous.counts.get("files", 0) and not graph.has_branch(name, branch):
            # PostgreSQL remembers the branch but the graph lost it (a wiped or restored Neo4j):
            # the branch is rebuilt, never taken for up to date.
            rows.delete_branch(name, branch)
            previous = None
        summary.previous_commit = previous.indexed_commit if previous else None
        stored_nothing = previous is None and rows.branch_is_new(name, branch) and not graph.has_branch(name, branch)
        if previous is None and not stored_nothing:
            # A first ingest that died part-way left its run marker and part of a graph: a bulk
            # write's nodes without their edges, or a branch-off's copy of some of its base's
            # labels with the file states of all of them. No record says what that holds, so it
            # goes, and the branch starts anew (the parse cache keeps what the run had parsed).
            graph.delete_branch(name, branch)
            rows.delete_branch(name, branch)
            stored_nothing = True
        if options.base is not None and not stored_nothing:
            raise GitError(f"{branch!r} is already indexed; --base only applies to a branch's first ingest")
        base_record = None
        if stored_nothing and not options.full:
            base_record = _choose_base(run, summary.commit, options.base)
        if base_record is not None:
            # The base stays as its stored resolution is read until it is cloned: an update of
            # it waits (files the change does not reach are taken from the base as they are).
            held.enter_context(rows.ingest_lock(name, base_record.branch))
            base_record = rows.branch_record(name, base_record.branch)
        summary.strategy = STRATEGY_BRANCH_OFF if base_record else STRATEGY_BULK if stored_nothing else STRATEGY_UPDATE
        summary.base = base_record.branch if base_record else None
        # Readers of the branch wait while what they see changes, so an answer never mixes
        # two commits (``IndexState.reading``). A branch-off takes the lock now: the copy of its
        # base needs nothing the branch's own files give, so it runs while they are read,
        # parsed and resolved.
        base_copied: Callable[[], None] | None = None
        if base_record is not None:
            held.enter_context(rows.writing(name, branch))
            rows.start_run(name, branch, summary.commit)
            graph.ensure_schema()
            base_copied = held.enter_context(_copying_base(graph, rows, name, base_record.branch, branch))

        # Another embedder than the branch's (or its base's) vectors were made with: every
        # symbol gets a vector from the new one, so a branch never mixes models or sizes.
        inherited = previous or base_record
        switched_model = inherited is not None and inherited.embedder != summary.embedder
        # Rows built by an older document format are rewritten too (their vectors are reused).
        outdated_rows = inherited is not None and inherited.counts.get("documents") != DOCUMENT_VERSION
        rewrite_all = options.full or switched_model or outdated_rows

        with clock.stage("read"):
            # --full trusts nothing stored: the tree is read whole and its listing stored anew.
            tracked, listed = _tracked_files(run, commit, None if options.full else inherited)
            entries, project_entries, skipped = _source_entries(tracked)
            project_files = _project_files(repo, project_entries)
            stored, in_graph, states = None, None, None
            if inherited is not None and not rewrite_all:
                # The files a new branch's graph holds once its base is cloned are the base's,
                # and so are its file states.
                in_graph = set(graph.files_except(name, inherited.branch, ()))
                stored_states = rows.file_resolutions(name, inherited.branch)
                states = {s.path: (s.blob_sha, s.fingerprint) for s in stored_states}
                stored = _stored_resolution(run, inherited.branch, stored_states, in_graph)
        # No source or project file differs from what the stores hold (a docs-only commit, a
        # re-run): nothing is parsed or resolved, the stored records say what the branch holds.
        kept = (
            stored
            if previous is not None
            and stored is not None
            and _nothing_changed(stored, entries, fingerprint(project_files.items()), options.max_file_bytes)
            else None
        )
        with clock.stage("parse"):
            parsed = (
                _Parsed([], Counter(), Counter(files_parsed=0, parse_cache_hits=0))
                if kept is not None
                else _parse(run, entries, options.max_file_bytes, options.full, _deferrable(stored, inherited))
            )
        work.update(parsed.work)
        summary.skipped = dict(sorted((skipped + parsed.skipped).items()))
        if kept is not None:
            current = {e.path for e in entries}
            summary.files = len(entries)
            summary.parse_errors = sum(r.counts.get("parse_errors", 0) for r in kept.records.values())
            summary.conflict_files = previous.conflict_files if previous else []
        else:
            current = {f.path for f in parsed.files}
            summary.files = len(parsed.files)
            summary.parse_errors = sum(f.parse_errors for f in parsed.files)
            summary.conflict_files = [f.path for f in parsed.files if f.has_conflicts]
        with clock.stage("resolve"):
            if kept is not None:
                resolved = ResolvedUpdate([], {}, {}, branch_counts(r.counts for r in kept.records.values()))
            else:
                resolved = resolve_update(name, branch, parsed.files, project_files, stored)
        counts = resolved.counts
        summary.nodes, summary.edges, summary.dangling = counts.nodes, counts.edges, counts.dangling
        summary.unresolved_rate = counts.unresolved_rate
        work["files_resolved"] = len(resolved.subgraphs)

        with contextlib.nullcontext() if base_copied else rows.writing(name, branch):
            if base_copied is None:
                rows.start_run(name, branch, summary.commit)
            with clock.stage("graph_write"):
                if base_copied is None:
                    graph.ensure_schema()
                else:
                    base_copied()
                diff_from = base_record.indexed_commit if base_record else summary.previous_commit
                diff = _diff(repo, diff_from, summary.commit)
                summary.changes = diff.to_dict()
                written = _write_graph(run, resolved, current, summary.strategy, options.full, in_graph, states)
            work.update(written.work)
            summary.files_deleted = len(written.removed)
            with clock.stage("embed"):
                summary.embeddings = _embed(
                    run,
                    resolved.subgraphs if switched_model or outdated_rows else written.subgraphs,
                    written.removed,
                    diff.renamed,
                    whole_branch=summary.strategy == STRATEGY_BULK or switched_model or outdated_rows,
                )
            with clock.stage("record"):
                if not listed:
                    rows.put_tree_listing(name, summary.commit, git.encode_listing(tracked))
                # A file's state says its graph *and* vector rows are current, so it is set last.
                rows.set_file_states(name, branch, written.states, written.removed)
                rows.update_resolutions(name, branch, {p: r.to_json() for p, r in resolved.restamped.items()})
                rows.record_branch(
                    BranchRecord(
                        repo=name,
                        branch=branch,
                        repo_path=str(root),
                        indexed_commit=summary.commit,
                        indexed_at=datetime.now(UTC),
                        embedder=summary.embedder,
                        counts={
                            "files": summary.files,
                            "nodes": summary.nodes,
                            "edges": summary.edges,
                            "dangling": summary.dangling,
                            "documents": DOCUMENT_VERSION,
                        },
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


def _tracked_files(run: _Run, commit: Commit, since: BranchRecord | None) -> tuple[list[git.TreeFile], bool]:
    """The commit's tracked files, and whether the stores hold their listing already. Reading
    django's whole tree takes 0.6 s; the listing stored for the commit ``since`` is indexed at,
    changed by the subtrees that differ, takes milliseconds."""
    if since is not None:
        stored = run.stores.rows.tree_listing(run.name, since.indexed_commit)
        if stored is not None:
            files = git.tree_files_since(run.repo, commit, since.indexed_commit, git.decode_listing(stored))
            if files is not None:
                return files, since.indexed_commit == commit.id.decode("ascii")
    return list(git.tree_files(run.repo, commit)), False


def _source_entries(tracked: list[git.TreeFile]) -> tuple[list[git.TreeFile], list[git.TreeFile], Counter[str]]:
    """Tracked files in a language branchgraph parses, and the project files their resolvers
    read (``package.json``, ``tsconfig.json``, ...); links and submodules are counted apart."""
    entries: list[git.TreeFile] = []
    project: list[git.TreeFile] = []
    skipped: Counter[str] = Counter()
    for entry in tracked:
        if is_project_file(entry.path) and not entry.is_symlink and not entry.is_submodule:
            project.append(entry)
        if not language_for_path(entry.path):
            continue
        problem = path_problem(entry.path)
        if problem:
            skipped[problem] += 1
        elif entry.is_submodule:
            skipped[SKIP_SUBMODULE] += 1
        elif entry.is_symlink:
            # A symlink's blob is its target path; following it could leave the repository.
            skipped[SKIP_SYMLINK] += 1
        else:
            entries.append(entry)
    return entries, project, skipped


def _project_files(repo: Repo, entries: list[git.TreeFile]) -> dict[str, bytes]:
    """The project files' contents by path; a huge one (a generated lock-like file) is left
    out, as if absent."""
    files = {}
    for entry in entries:
        data = git.read_blob(repo, entry.blob_sha)
        if len(data) <= _MAX_PROJECT_FILE_BYTES:
            files[entry.path] = data
    return files


@dataclass(frozen=True, slots=True)
class _Deferrable:
    """What the stores say of a file whose cached parse need not be decoded until read: the
    blob its record describes, its size and syntax errors, and whether it holds conflict
    markers (all the same for the same blob)."""

    blob_sha: str
    size: int
    parse_errors: int
    has_conflicts: bool
    has_sites: bool


def _deferrable(stored: PreviousResolution | None, inherited: BranchRecord | None) -> dict[str, _Deferrable]:
    """The files an update may leave undecoded: those with a complete, current record (a
    file skipped last time has none, so its checks run again)."""
    if stored is None or inherited is None:
        return {}
    conflicts = set(inherited.conflict_files)
    return {
        path: _Deferrable(
            blob, counts["bytes"], counts.get("parse_errors", 0), path in conflicts, bool(counts["sites"])
        )
        for path, record in stored.records.items()
        if (blob := stored.blobs.get(path)) and "bytes" in (counts := record.counts) and "sites" in counts
    }


def _parse(
    run: _Run,
    entries: list[git.TreeFile],
    max_file_bytes: int,
    bypass_cache: bool,
    deferrable: Mapping[str, _Deferrable] | None = None,
) -> _Parsed:
    """Parsed files of the commit: from the parse cache by blob SHA, else read and parsed.
    Returns them with the files skipped (by reason) and the parse work done. A cached parse
    of a ``deferrable`` file (the blob its record describes) is decoded only when read."""
    cache = run.stores.rows
    deferrable = deferrable or {}
    encoded: dict[str, bytes] = {}
    parsed: dict[str, ParsedFile] = {}
    skipped: Counter[str] = Counter()
    work: Counter[str] = Counter()
    by_language: dict[str, list[git.TreeFile]] = {}
    for entry in entries:
        spec = language_for_path(entry.path)
        assert spec is not None  # _source_entries kept only parseable paths
        by_language.setdefault(spec.name, []).append(entry)
    misses: list[tuple[str, git.TreeFile, bytes]] = []
    for language, group in by_language.items():
        cached = {} if bypass_cache else cache.cached_parses((e.blob_sha for e in group), language, EXTRACTOR_VERSION)
        for done, entry in enumerate(group, 1):
            if entry.blob_sha in cached:
                known = deferrable.get(entry.path)
                if known is not None and known.blob_sha == entry.blob_sha:
                    encoded[entry.blob_sha] = cached[entry.blob_sha]
                elif entry.blob_sha not in parsed:
                    parsed[entry.blob_sha] = decode_parsed(cached[entry.blob_sha])
                continue
            verdict = classify(git.read_blob(run.repo, entry.blob_sha), max_file_bytes)
            if isinstance(verdict, str):
                skipped[verdict] += 1
            else:
                misses.append((language, entry, verdict.data))
            run.report("read", done, len(group))
        work["parse_cache_hits"] += sum(1 for e in group if e.blob_sha in cached)
    # Every language's files in one pool: a pool per language started its children anew for
    # each (hono's TypeScript, TSX and JavaScript: three).
    new_rows: dict[str, list[tuple[str, bytes]]] = {}
    jobs = [(language, data) for language, _, data in misses]
    for done, ((language, entry, _), (result, cache_row)) in enumerate(zip(misses, extract_all(jobs), strict=True), 1):
        parsed[entry.blob_sha] = result
        new_rows.setdefault(language, []).append((entry.blob_sha, cache_row))
        run.report("parse", done, len(misses))
    for language, rows in new_rows.items():
        cache.put_parses(language, EXTRACTOR_VERSION, rows)
    work["files_parsed"] += len(misses)
    files: list[ParsedSource] = []
    for entry in entries:
        known = deferrable.get(entry.path)
        if known is not None and known.blob_sha == entry.blob_sha and entry.blob_sha in encoded:
            if known.size > max_file_bytes:
                skipped[SKIP_TOO_LARGE] += 1  # indexed before the limit was lowered
            else:
                data = encoded[entry.blob_sha]
                files.append(
                    DeferredSource(
                        entry.path, entry.blob_sha, data, known.parse_errors, known.has_conflicts, known.has_sites
                    )
                )
            continue
        found = parsed.get(entry.blob_sha)
        if found is None:
            continue  # skipped above
        if found.size > max_file_bytes:
            skipped[SKIP_TOO_LARGE] += 1  # cached before the limit was lowered
            continue
        problem = name_problem(found)
        if problem:
            skipped[problem] += 1
            continue
        files.append(ParsedSource(entry.path, entry.blob_sha, found))
    return _Parsed(files, skipped, work)


def _choose_base(run: _Run, commit: str, wanted: str | None) -> BranchRecord | None:
    """The indexed branch cheapest to clone for a new branch: the named one, else the one whose
    indexed commit differs from ``commit`` in the fewest files (when few enough to pay off)."""
    repo = run.repo
    # A base the graph lost (dropped from Neo4j alone, or a restored backup) has nothing to clone.
    candidates = [
        r
        for r in run.stores.rows.branches(run.name)
        if r.branch != run.branch
        and git.commit_exists(repo, r.indexed_commit)
        and run.stores.graph.has_branch(run.name, r.branch)
    ]
    if wanted is not None:
        chosen = next((r for r in candidates if r.branch == wanted), None)
        if chosen is None:
            raise GitError(f"--base {wanted!r} is not an indexed branch of this repository")
        return chosen
    best, best_cost = None, 0
    for record in candidates:
        cost = git.diff_commits(repo, record.indexed_commit, commit, detect_renames=False).count
        if best is None or cost < best_cost:
            best, best_cost = record, cost
    if best is None:
        return None
    tracked = git.diff_commits(repo, None, commit, detect_renames=False).count
    return best if best_cost <= tracked * _BASE_MAX_CHANGED_SHARE else None


@contextmanager
def _copying_base(
    graph: GraphWriter, rows: IngestTarget, repo: str, base: str, branch: str
) -> Iterator[Callable[[], None]]:
    """Copy the base branch to the new ``branch`` in both stores, in the background and side by
    side (they are separate servers; django's copies took 5.0 s in Neo4j and 4.5 s in
    PostgreSQL, one after the other before). Yields a call that waits for both and raises
    what either raised; when the ingest fails, leaving waits for both copies to end. The copy
    is unrecorded until the ingest records the branch: a run that failed leaves it to the next,
    which drops it (``ingest_branch``)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        copies = [
            pool.submit(graph.clone_branch, repo, base, branch),
            pool.submit(rows.clone_branch, repo, base, branch, branch_prefix(repo, branch), BRANCH_PREFIX_LEN),
        ]

        def copied() -> None:
            for copy in copies:
                copy.result()

        yield copied


def _diff(repo: Repo, old: str | None, new: str) -> git.TreeDiff:
    if old is not None and not git.commit_exists(repo, old):
        old = None  # history rewritten and collected: compare with nothing
    return git.diff_commits(repo, old, new)


def _stored_resolution(run: _Run, branch: str, states: list[FileState], in_graph: set[str]) -> PreviousResolution:
    """What the stores hold of a branch's resolution (the branch itself, or the base a new
    branch is cloned from), from its file ``states``. A file the graph lacks counts as
    unfinished, so it is redone."""
    # A record made by other code (an upgrade) describes nothing: the file is redone.
    current = {s.path: s.resolution for s in states if s.resolution is not None and is_current(s.resolution)}
    blobs = {
        s.path: s.blob_sha if s.fingerprint is not None and s.path in current and s.path in in_graph else ""
        for s in states
    }
    records = {path: FileRecord.from_json(document) for path, document in current.items()}
    return PreviousResolution(blobs, records, lambda keys: run.stores.rows.dependents(run.name, branch, keys))


def _nothing_changed(
    stored: PreviousResolution, entries: list[git.TreeFile], project_print: str, max_file_bytes: int
) -> bool:
    """Whether every source file is the blob its complete, current record was made from (and
    still within the size limit), none was deleted, and the project files are those the
    records' resolvers read."""
    # Equal blobs also say every record is there: an unfinished or outdated one has blob "".
    if {e.path: e.blob_sha for e in entries} != stored.blobs:
        return False
    if any(r.counts.get("bytes", max_file_bytes + 1) > max_file_bytes for r in stored.records.values()):
        return False
    key = stored_key(PROJECT)
    project_fact = fact(key, project_print)
    return all(f == project_fact for r in stored.records.values() for f in r.facts if fact_key(f) == key)


def _write_graph(
    run: _Run,
    resolved: ResolvedUpdate,
    current: set[str],
    strategy: str,
    rewrite_all: bool,
    in_graph: set[str] | None,
    states: dict[str, tuple[str, str | None]] | None,
) -> _Written:
    """Write what differs from the stored graph (which holds ``in_graph``'s files and their
    ``states``, when already read) for a commit of the ``current`` files; return what was
    written and removed, the file states to record once their vector rows are written too,
    and the work done."""
    graph, state = run.stores.graph, run.stores.rows
    name, branch = run.name, run.branch
    subgraphs = resolved.subgraphs
    work: Counter[str] = Counter()
    blobs = {}
    fingerprints = {s.path: subgraph_fingerprint(s) for s in subgraphs}
    if strategy == STRATEGY_BULK:
        run.report("write", 0, 1)
        graph.write_new_branch(name, branch, subgraphs, lambda done, total: run.report("write", done, total))
        written, removed = subgraphs, []
    else:
        if states is None:
            states = state.file_states(name, branch)
        # The graph is asked, not only the states: a crashed run may have left files they miss,
        # and a graph that lost files (restored from an older backup) must get them back.
        if in_graph is None:
            in_graph = set(graph.files_except(name, branch, ()))
        blobs = {path: blob for path, (blob, _) in states.items()}
        written = [
            s
            for s in subgraphs
            if rewrite_all or s.path not in in_graph or states.get(s.path, (None, None))[1] != fingerprints[s.path]
        ]
        removed = sorted((set(states) | in_graph) - current)
        state.mark_files_dirty(name, branch, [s.path for s in written])
        work.update(graph.replace_files(name, branch, written, lambda done, total: run.report("write", done, total)))
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
    # Every file resolved again gets its new record, written or not (its reads may differ).
    states_to_record = [
        FileState(
            s.path,
            blob_of[s.path],
            fingerprints[s.path],
            resolved.records[s.path].reads,
            resolved.records[s.path].to_json(),
        )
        for s in subgraphs
    ]
    return _Written(written, removed, states_to_record, work)


def _file_blob(subgraph: FileSubgraph) -> str:
    return str(next(n.props["blob_sha"] for n in subgraph.nodes if n.label == "File"))


def _class_members(subgraph: FileSubgraph) -> dict[str, list[tuple[int, int]]]:
    """Class id -> the spans of the members it defines."""
    spans = {n.id: (n.props["start_line"], n.props["end_line"]) for n in subgraph.nodes if n.label in SYMBOL_LABELS}
    out: dict[str, list[tuple[int, int]]] = {}
    for e in subgraph.edges:
        if e.type == "DEFINES" and e.src_label == "Class" and e.dst in spans:
            out.setdefault(e.src, []).append(spans[e.dst])
    return out


class _EmbeddingFailed(Exception):
    """Raised in the node-row writer when computing the vectors failed: its rows roll back."""


def _embed(
    run: _Run, written: list[FileSubgraph], removed: list[str], renamed: dict[str, str], whole_branch: bool
) -> dict[str, int]:
    """Vector rows for the symbols of the written files; returns how many embeddings were
    computed, reused and carried. Texts already embedded are reused, and an unchanged symbol
    of a renamed file keeps its vector (its text differs only in the path and qualname), so a
    rename costs no embedding calls."""
    store, embedder, name, branch = run.stores.rows, run.stores.embedder, run.name, run.branch
    scope = None if whole_branch else [s.path for s in written] + removed
    if embedder is None:
        # Graph only: the branch keeps no vector rows that would describe an older commit.
        store.replace_node_embeddings(name, branch, [], scope)
        return {"computed": 0, "reused": 0, "carried": 0}
    rows: list[NodeEmbeddingRow] = []
    pending: dict[str, str] = {}
    for s in written:
        lines = source_lines(git.read_blob(run.repo, _file_blob(s)).decode("utf-8"))
        members = _class_members(s)
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
                body="\n".join(written_lines(lines[p["start_line"] - 1 : p["end_line"]])),
                enclosing_class=p["qualname"].rsplit(".", 1)[0] if n.label == "Method" else None,
            )
            key = content_key(embedder, text)
            pending[key] = text
            lexical = symbol_document(
                p["qualname"],
                s.path,
                p["signature"],
                p["docstring"],
                lines,
                (p["start_line"], p["end_line"]),
                members.get(n.id, ()),
            )
            rows.append(
                NodeEmbeddingRow(
                    n.id,
                    n.label,
                    s.path,
                    p["qualname"],
                    key,
                    lexical,
                    p["content_hash"],
                    p["start_line"],
                    p["end_line"],
                    bool(p.get("has_conflict")),
                )
            )
    missing = store.missing_content_keys(pending)
    renamed_from = {new: old for old, new in renamed.items()}
    moves = [
        (renamed_from[r.path], r.label, r.symbol_hash or "", r.content_key)
        for r in rows
        if r.path in renamed_from and r.content_key in missing
    ]
    carried = store.carry_vectors(name, branch, embedder.model_id, moves)
    to_embed = sorted(missing - carried)
    # The node rows are written on a second connection while the vectors are computed, and
    # commit once the vectors are stored: one after the other, the two took about equal
    # halves of django's embed stage.
    stored = threading.Event()
    failed = threading.Event()

    def wait_for_vectors() -> None:
        stored.wait()
        if failed.is_set():
            raise _EmbeddingFailed("the embedding stage failed; the node rows are rolled back")

    with ThreadPoolExecutor(max_workers=1) as writer:
        node_rows = writer.submit(
            store.replace_node_embeddings, name, branch, rows, scope, wait_for_vectors if to_embed else None
        )
        try:
            for start in range(0, len(to_embed), _TEXTS_PER_EMBED):
                keys = to_embed[start : start + _TEXTS_PER_EMBED]
                vectors = embedder.embed([pending[k] for k in keys])
                store.put_embeddings(embedder.model_id, list(zip(keys, vectors, strict=True)))
                run.report("embed", min(start + _TEXTS_PER_EMBED, len(to_embed)), len(to_embed))
        except BaseException:
            failed.set()
            raise
        finally:
            stored.set()
        if to_embed or carried:
            store.ensure_vector_index(embedder.model_id, embedder.dims)
        node_rows.result()
    if whole_branch or len(rows) > _ROWS_BEFORE_ANALYZE:
        store.refresh_statistics()
    return {"computed": len(to_embed), "reused": len(pending) - len(to_embed) - len(carried), "carried": len(carried)}
