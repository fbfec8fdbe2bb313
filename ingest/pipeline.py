"""The ingest pipeline: read -> parse -> resolve -> graph write -> embed -> record.

The branch's metadata (its indexed commit) is written last, after every graph and vector
write succeeded: a crash leaves the previous record in place and a re-run converges,
because every write replaces what the same file wrote before.
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

from branchgraph.graph.lexical import lexical_text
from branchgraph.graph.model import SYMBOL_LABELS, FileSubgraph
from branchgraph.graph.pgstore import BranchRecord, NodeEmbeddingRow, PgStore
from branchgraph.graph.store import GraphStore
from branchgraph.ingest import git
from branchgraph.ingest.embed.base import Embedder, content_key
from branchgraph.ingest.embed.text import enriched_text
from branchgraph.ingest.extract import extract_all
from branchgraph.ingest.files import SKIP_SUBMODULE, SKIP_SYMLINK, SourceText, classify
from branchgraph.ingest.languages import language_for_path
from branchgraph.ingest.resolve_python import SourceFile, resolve_python

# (stage, done, total): the CLI draws progress bars from these calls.
Progress = Callable[[str, int, int], None]

REFERENCE_EDGE_TYPES = ("CALLS", "IMPORTS", "INHERITS_FROM", "PARAM_TYPE", "RETURNS_TYPE")
_FILES_PER_WRITE = 200
_TEXTS_PER_EMBED = 256


@dataclass(slots=True)
class IngestSummary:
    """What an ingest did; ``to_dict`` is the ``ingest --json`` document."""

    repo: str
    branch: str
    commit: str
    files: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    parse_errors: int = 0
    conflict_files: list[str] = field(default_factory=list)
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    dangling: dict[str, int] = field(default_factory=dict)
    unresolved_rate: float = 0.0
    embeddings: dict[str, int] = field(default_factory=lambda: {"computed": 0, "reused": 0})
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
    repo_name: str | None = None,
    max_file_bytes: int = 1_000_000,
    progress: Progress | None = None,
) -> IngestSummary:
    """Index one commit of a repository as ``branch`` into the graph and vector stores."""
    report = progress or (lambda stage, done, total: None)
    repo = git.open_repo(repo_path)
    root = git.repo_root(repo)
    branch = branch or git.current_branch(repo)
    commit = git.resolve_commit(repo, branch, rev)
    name = repo_name or repo_name_for(root)
    summary = IngestSummary(repo=name, branch=branch, commit=commit.id.decode("ascii"))
    summary.embedder = f"{embedder.model_id}/{embedder.dims}" if embedder else "none"
    clock = _Stopwatch()

    with pg.ingest_lock(name, branch):
        with clock.stage("read"):
            sources = _read_sources(repo, commit, max_file_bytes, summary, report)
        with clock.stage("parse"):
            files = []
            jobs = [(language_for_path(entry.path).name, source.data) for entry, source in sources]
            for done, ((entry, source), parsed) in enumerate(zip(sources, extract_all(jobs)), 1):
                files.append(SourceFile(entry.path, entry.blob_sha, parsed))
                report("parse", done, len(sources))
        summary.files = len(files)
        summary.parse_errors = sum(f.parsed.parse_errors for f in files)
        summary.conflict_files = [f.path for f in files if f.conflict_lines]
        with clock.stage("resolve"):
            subgraphs = resolve_python(name, branch, files)
        _count(subgraphs, summary)
        with clock.stage("graph_write"):
            graph.ensure_schema()
            new_branch = pg.branch_is_new(name, branch) and not graph.has_branch(name, branch)
            pg.start_run(name, branch, summary.commit)
            if new_branch:
                report("write", 0, 1)
                graph.write_new_branch(name, branch, subgraphs)
                report("write", 1, 1)
            else:
                for start in range(0, len(subgraphs), _FILES_PER_WRITE):
                    graph.replace_files(name, branch, subgraphs[start : start + _FILES_PER_WRITE])
                    report("write", min(start + _FILES_PER_WRITE, len(subgraphs)), len(subgraphs))
                summary.files_deleted = graph.delete_files_except(name, branch, [s.path for s in subgraphs])
                graph.prune_unresolved(name, branch)
        with clock.stage("embed"):
            texts = {entry.path: source.text for entry, source in sources}
            _embed(pg, embedder, name, branch, subgraphs, texts, summary, report)
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
            )
        )
    summary.seconds = clock.seconds
    summary.seconds["total"] = round(sum(clock.seconds.values()), 3)
    return summary


def _read_sources(repo, commit, max_file_bytes: int, summary: IngestSummary, report: Progress) -> list[tuple[git.TreeFile, SourceText]]:
    candidates = [entry for entry in git.tree_files(repo, commit) if language_for_path(entry.path)]
    skipped: Counter[str] = Counter()
    sources = []
    for done, entry in enumerate(candidates, 1):
        if entry.is_submodule:
            skipped[SKIP_SUBMODULE] += 1
        elif entry.is_symlink:
            # A symlink's blob is its target path; following it could leave the repository.
            skipped[SKIP_SYMLINK] += 1
        else:
            verdict = classify(git.read_blob(repo, entry.blob_sha), max_file_bytes)
            if isinstance(verdict, str):
                skipped[verdict] += 1
            else:
                sources.append((entry, verdict))
        report("read", done, len(candidates))
    summary.skipped = dict(sorted(skipped.items()))
    return sources


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
    pg: PgStore,
    embedder: Embedder | None,
    repo: str,
    branch: str,
    subgraphs: list[FileSubgraph],
    texts: dict[str, str],
    summary: IngestSummary,
    report: Progress,
) -> None:
    if embedder is None:
        # Graph only: the branch keeps no vector rows that would describe an older commit.
        pg.replace_node_embeddings(repo, branch, [])
        return
    rows: list[NodeEmbeddingRow] = []
    pending: dict[str, str] = {}
    for s in subgraphs:
        lines = texts[s.path].splitlines()
        for n in s.nodes:
            if n.label not in SYMBOL_LABELS:
                continue
            p = n.props
            body = "\n".join(lines[p["start_line"] - 1 : p["end_line"]])
            enclosing = p["qualname"].rsplit(".", 1)[0] if n.label == "Method" else None
            text = enriched_text(
                path=s.path,
                label=n.label,
                qualname=p["qualname"],
                signature=p["signature"],
                docstring=p["docstring"],
                body=body,
                enclosing_class=enclosing,
            )
            key = content_key(embedder, text)
            pending[key] = text
            rows.append(
                NodeEmbeddingRow(n.id, n.label, s.path, p["qualname"], key, lexical_text(p["qualname"], s.path, p["signature"], p["docstring"][:500]))
            )
    missing = sorted(pg.missing_content_keys(pending))
    for start in range(0, len(missing), _TEXTS_PER_EMBED):
        keys = missing[start : start + _TEXTS_PER_EMBED]
        vectors = embedder.embed([pending[k] for k in keys])
        pg.put_embeddings(embedder.model_id, list(zip(keys, vectors)))
        report("embed", min(start + _TEXTS_PER_EMBED, len(missing)), len(missing))
    summary.embeddings = {"computed": len(missing), "reused": len(pending) - len(missing)}
    pg.replace_node_embeddings(repo, branch, rows)
