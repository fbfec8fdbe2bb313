"""Symbols of a few files of a commit, parsed and named the way an ingest would, without
writing anything: what a branch that is not indexed yet holds in the files it changed
(``context`` answers from the nearest indexed base overlaid with them)."""

from __future__ import annotations

from typing import Any

from dulwich.repo import Repo

from branchgraph.core import git
from branchgraph.core.extract import extract
from branchgraph.core.files import SourceText, classify, path_problem, source_lines
from branchgraph.core.languages import is_project_file, language_for_path
from branchgraph.core.model import SYMBOL_LABELS, SymbolText
from branchgraph.ingest.resolvers import resolve_commit
from branchgraph.ingest.subgraphs import ParsedSource


def symbols_at(
    repo: Repo, commit: str, paths: set[str], repo_key: str, branch: str, max_bytes: int
) -> list[SymbolText]:
    """The symbols of ``paths`` at ``commit``, with ids and qualified names as an ingest of
    that branch gives them (names other files would lend, such as an imported base class,
    are not needed for that). Files an ingest would skip are skipped."""
    files: list[ParsedSource] = []
    project: dict[str, bytes] = {}
    lines: dict[str, list[str]] = {}
    for entry in git.tree_files(repo, git.commit_object(repo, commit)):
        wanted = entry.path in paths
        if not (wanted or is_project_file(entry.path)) or entry.is_symlink or entry.is_submodule:
            continue
        if path_problem(entry.path) is not None:
            continue
        data = git.read_blob(repo, entry.blob_sha)
        if is_project_file(entry.path):
            project[entry.path] = data
        spec = language_for_path(entry.path)
        source = classify(data, max_bytes)
        if not wanted or spec is None or not isinstance(source, SourceText):
            continue
        files.append(ParsedSource(entry.path, entry.blob_sha, extract(spec.name, data)))
        lines[entry.path] = source_lines(source.text)
    out = []
    for subgraph in resolve_commit(repo_key, branch, files, project):
        for node in subgraph.nodes:
            if node.label not in SYMBOL_LABELS:
                continue
            props: dict[str, Any] = node.props
            start, end = int(props["start_line"]), int(props["end_line"])
            text = "\n".join(lines[node.path][start - 1 : end])
            out.append(SymbolText(node.id, node.label, str(props["qualname"]), node.path, start, end, text))
    return out
