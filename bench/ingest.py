"""Full-ingest benchmark on a real corpus: the django sdist from PyPI, committed to git.

Prints files, nodes, edges, seconds per stage, files/s, peak RSS, and the ratio of the
total to a bare tree-sitter parse of the same files measured in the same run (the bound).
Figures are printed, never asserted: the machine is shared and noisy.

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/ingest.py [--embedder none]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from branchgraph import api
from branchgraph.config import Config
from branchgraph.ingest.languages import new_parser

CACHE = Path(__file__).parent / ".cache"


def fetch_sdist(package: str, version: str) -> Path:
    """The sdist tarball from PyPI (cached under bench/.cache)."""
    CACHE.mkdir(exist_ok=True)
    found = sorted(CACHE.glob(f"{package}-{version}.tar.gz")) + sorted(CACHE.glob(f"{package.lower()}-{version}.tar.gz"))
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:", "-d", str(CACHE), f"{package}=={version}"],
            check=True,
        )
        found = sorted(CACHE.glob(f"{package.lower()}-{version}.tar.gz")) + sorted(CACHE.glob(f"{package}-{version}.tar.gz"))
    if not found:
        raise SystemExit(f"pip did not leave a {package}-{version}.tar.gz in {CACHE}")
    return found[0]


def commit_tree(sdist: Path, workdir: Path) -> Path:
    """Unpack the sdist and commit it as the first commit of branch main."""
    with tarfile.open(sdist) as tar:
        tar.extractall(workdir, filter="data")
    (root,) = [p for p in workdir.iterdir() if p.is_dir()]
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@branchgraph.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", sdist.name], check=True)
    return root


def bare_parse_seconds(root: Path) -> tuple[int, float]:
    """Files and seconds for tree-sitter alone on every .py file (read from disk first)."""
    sources = [p.read_bytes() for p in sorted(root.rglob("*.py")) if ".git" not in p.parts]
    parser = new_parser("python")
    start = time.perf_counter()
    for data in sources:
        parser.parse(data)
    return len(sources), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package", default="Django")
    parser.add_argument("--version", default="5.1.4")
    parser.add_argument("--embedder", default="none", help="none (graph only, the target's setting), hashing or openai")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON document")
    args = parser.parse_args()

    sdist = fetch_sdist(args.package, args.version)
    with tempfile.TemporaryDirectory(prefix="branchgraph-bench-") as tmp:
        root = commit_tree(sdist, Path(tmp))
        parsed_files, bare = bare_parse_seconds(root)
        config = Config.load(root)
        config = Config(**{**{f: getattr(config, f) for f in config.__slots__}, "embedder": args.embedder, "index_dir": Path(tmp) / "index"})
        first = api.ingest(root, config=config)
        again = api.ingest(root, config=config)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    figures = {
        "corpus": f"{args.package}-{args.version}",
        "embedder": first.embedder,
        "files": first.files,
        "skipped": first.skipped,
        "nodes": sum(first.nodes.values()),
        "nodes_by_label": first.nodes,
        "edges": sum(first.edges.values()),
        "edges_by_type": first.edges,
        "unresolved_rate": first.unresolved_rate,
        "dangling": first.dangling,
        "seconds_first_ingest": first.seconds,
        "seconds_reingest": again.seconds,
        "files_per_second": round(first.files / first.seconds["total"], 1),
        "peak_rss_mib": round(rss_mib, 1),
        "bare_parse_files": parsed_files,
        "bare_parse_seconds": round(bare, 3),
        "ratio_total_to_bare_parse": round(first.seconds["total"] / bare, 1),
        "ratio_reingest_to_bare_parse": round(again.seconds["total"] / bare, 1),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"corpus            {figures['corpus']} ({first.files} files parsed, skipped {first.skipped or 'none'})")
    print(f"graph             {figures['nodes']} nodes {first.nodes}")
    print(f"                  {figures['edges']} edges {first.edges}")
    print(f"unresolved rate   {first.unresolved_rate:.1%}  dangling {first.dangling}")
    print(f"first ingest (s)  {first.seconds}")
    print(f"re-ingest (s)     {again.seconds}")
    print(f"files/s           {figures['files_per_second']}")
    print(f"peak RSS          {figures['peak_rss_mib']} MiB")
    print(f"bare parse        {bare:.3f} s for {parsed_files} files")
    print(f"ratio             total/bare parse = {figures['ratio_total_to_bare_parse']}x (re-ingest {figures['ratio_reingest_to_bare_parse']}x)")


if __name__ == "__main__":
    main()
