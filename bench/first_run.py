"""A newcomer's first run, timed (issue 13): install into a fresh virtual environment, then
with an empty HOME (nothing cached: the managed Neo4j's jars are downloaded) ingest a
repository twice, then ingest django while sampling the managed Neo4j's resident memory.

The bound printed beside each figure, measured in the same run: the install beside `pip
download` of the same requirements (what the network and wheel cache cost alone), and the
first ingest beside the second (what downloads and server start cost above the work itself).

    python bench/first_run.py [--repo PATH] [--django Django==5.1.4]
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from corpus import commit_sdist, fetch_sdist

from branchgraph.core.processes import process_rss_mb

ROOT = Path(__file__).resolve().parent.parent


def timed(command: list[str], **kwargs) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, **kwargs)
    return time.perf_counter() - start


def folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def peak_rss_mb(pid_file: Path, stop: threading.Event, peak: list[int]) -> None:
    import json

    while not stop.is_set():
        with contextlib.suppress(OSError, ValueError, KeyError):
            peak[0] = max(peak[0], process_rss_mb(json.loads(pid_file.read_text())["pid"]) or 0)
        time.sleep(0.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", default=str(ROOT), help="the repository to ingest first (default: this one)")
    parser.add_argument("--django", default="Django==5.1.4", help="PACKAGE==VERSION for the memory figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="branchgraph-first-run-") as tmp:
        base = Path(tmp)
        venv = base / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "--quiet"]
        download = timed([*pip, "download", "--dest", str(base / "wheels"), str(ROOT)])
        install = timed([*pip, "install", str(ROOT)])
        print(f"install: {install:.1f} s (pip download of the same requirements: {download:.1f} s)")
        home = base / "home"
        home.mkdir()
        env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8"}
        repo = base / "repo"
        shutil.copytree(args.repo, repo, ignore=shutil.ignore_patterns(".venv", ".branchgraph", "bench", "*.egg-info"))
        branchgraph = [str(venv / "bin" / "branchgraph")]
        try:
            first = timed([*branchgraph, "ingest", "--quiet"], cwd=repo, env=env)
            second = timed([*branchgraph, "ingest", "--quiet"], cwd=repo, env=env)
            downloaded = folder_mb(home / ".cache" / "branchgraph")
            wheel = folder_mb(venv / "lib")
            print(
                f"first ingest with downloads and server start: {first:.1f} s; second ingest: {second:.1f} s "
                f"(ratio {first / second:.1f}x)"
            )
            print(f"downloaded at first use: {downloaded:.0f} MB; installed environment: {wheel:.0f} MB")
        finally:
            subprocess.run([*branchgraph, "services", "stop"], cwd=repo, env=env, check=False)
        package, version = args.django.split("==")
        django = base / f"{package}-{uuid.uuid4().hex[:6]}"
        commit_sdist(fetch_sdist(package, version), django)
        stop, peak = threading.Event(), [0]
        sampler = threading.Thread(
            target=peak_rss_mb, args=(django / ".branchgraph" / "neo4j" / "server.json", stop, peak), daemon=True
        )
        sampler.start()
        try:
            seconds = timed([*branchgraph, "ingest", "--quiet"], cwd=django, env=env)
        finally:
            stop.set()
            subprocess.run([*branchgraph, "services", "stop"], cwd=django, env=env, check=False)
        print(f"{package} {version}: ingest {seconds:.1f} s; managed Neo4j peak resident memory {peak[0]} MB")


if __name__ == "__main__":
    main()
