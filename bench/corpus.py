"""Benchmark corpora: real code from PyPI sdists, committed to git repositories."""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from branchgraph.core.config import Config

CACHE = Path(__file__).parent / ".cache"
GIT_IDENTITY = ["-c", "user.name=bench", "-c", "user.email=bench@branchgraph.invalid"]


def fetch_sdist(package: str, version: str) -> Path:
    """The sdist tarball from PyPI (cached under bench/.cache)."""
    CACHE.mkdir(exist_ok=True)

    def found() -> list[Path]:
        # Older sdists keep the project's capitals (Flask-2.2.0.tar.gz).
        wanted = f"{package}-{version}.tar.gz".lower().replace("_", "-")
        return sorted(p for p in CACHE.glob(f"*-{version}.tar.gz") if p.name.lower().replace("_", "-") == wanted)

    if not found():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(CACHE),
                f"{package}=={version}",
            ],
            check=True,
        )
    if not found():
        raise SystemExit(f"pip did not leave a {package}-{version}.tar.gz in {CACHE}")
    return found()[0]


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *GIT_IDENTITY, *args], check=True, capture_output=True, text=True
    ).stdout


def commit_sdist(sdist: Path, root: Path, message: str | None = None) -> str:
    """Make ``root``'s tree exactly the sdist's content and commit it; return the commit id."""
    if not (root / ".git").exists():
        root.mkdir(parents=True, exist_ok=True)
        git(root, "init", "-q", "-b", "main")
    for child in root.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(sdist) as tar:
        tar.extractall(tmp, filter="data")
        (top,) = [p for p in Path(tmp).iterdir() if p.is_dir()]
        for child in top.iterdir():
            shutil.move(str(child), root / child.name)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message or sdist.name)
    return git(root, "rev-parse", "HEAD").strip()


def drop_repo(root: Path, config) -> None:
    """Remove every branch a benchmark indexed for this repository from the graph."""
    from branchgraph.ingest.repo_keys import repo_name_for
    from branchgraph.stores import open_graph_store

    with open_graph_store(config, root) as graph:
        for row in graph.read_query(
            "MATCH (f:File {repo: $repo}) RETURN DISTINCT f.branch AS b", {"repo": repo_name_for(root)}
        ):
            graph.delete_branch(repo_name_for(root), row["b"])


@contextlib.contextmanager
def scratch(prefix: str, **changes: object) -> Iterator[tuple[Config, Path]]:
    """The loaded configuration with a temporary index directory (and ``changes``), and the
    temporary folder holding it, for the repositories a benchmark commits. The private servers
    started in it — a managed Neo4j when no BRANCHGRAPH_NEO4J_URI is set — are stopped at the
    end, so none outlives its deleted directory."""
    from branchgraph import api
    from branchgraph.core.config import Config

    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        config = dataclasses.replace(Config.load(), index_dir=Path(tmp) / "index", **changes)
        try:
            yield config, Path(tmp)
        finally:
            api.stop_services(config=config)


@contextlib.contextmanager
def scratch_config(prefix: str, **changes: object) -> Iterator[Config]:
    """``scratch`` for a benchmark that keeps its repositories elsewhere."""
    with scratch(prefix, **changes) as (config, _):
        yield config
