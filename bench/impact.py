"""Impact analysis speed on django (issue 11's figures), against bounds measured in the same run.

1. `impact --symbol` for the django functions with the most users (those with more than 100
   transitive users within 3 hops): p50/p95 over repeated runs, beside the one variable-length
   Cypher query a user would write for the same walk (`impact_upstream`).
2. `impact --diff` of a 10-file commit (one line changed inside a function of each of 10
   files): its time beside the incremental ingest of that same commit.
3. `diff` of two branches 40 files apart: its time beside the branch-off ingest of the second.

Each is timed in one workspace, as the HTTP and MCP servers answer: the first answer in an
indexed state reads everything from the graph, the repeats find what it read kept
(`impact/state_memo.py`); both are printed.

Test selection is scored against coverage.py's dynamic contexts in `bench/impact_tests.py`.

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/impact.py [--corpus Django==5.1.4]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import uuid
from pathlib import Path

from corpus import commit_sdist, drop_repo, fetch_sdist, git, scratch

from branchgraph import api
from retrieval import percentile

RUNS = 15


def busiest_functions(ws: api.Workspace, repo: str, n: int = 12) -> list[str]:
    rows = ws.graph.read_query(
        "MATCH (f:Function {repo: $repo, branch: 'main'})<-[:CALLS]-(c) "
        "RETURN f.qualname AS q, count(c) AS users ORDER BY users DESC, q LIMIT $n",
        {"repo": repo, "n": n},
    )
    return [r["q"] for r in rows]


def ms(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def change_files(root: Path, count: int, seed: int) -> None:
    """Change one line inside a function in each of ``count`` files, and commit."""
    rng = random.Random(seed)
    files = sorted(p for p in root.glob("django/**/*.py") if "\n    return " in p.read_text(errors="ignore"))
    for path in rng.sample(files, count):
        text = path.read_text()
        path.write_text(text.replace("\n    return ", "\n    # reviewed\n    return ", 1))
    git(root, "commit", "-qam", f"{count} files")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", default="Django==5.1.4", help="PACKAGE==VERSION from PyPI")
    args = parser.parse_args()
    package, version = args.corpus.split("==")
    with scratch("branchgraph-bench-impact-", embedder="none") as (config, tmp):
        root = tmp / f"{package}-{uuid.uuid4().hex[:8]}"
        commit_sdist(fetch_sdist(package, version), root)
        try:
            summary = api.ingest(root, config=config)
            with api.Workspace(root, config=config) as ws:
                # Users counted by the one query, so that no impact answer is kept before the
                # first one timed below.
                wide = []
                for qualname in busiest_functions(ws, summary.repo):
                    users = len(ws.named("impact_upstream", {"qualnames": [qualname], "depth": 3}))
                    if users > 100:
                        wide.append((qualname, users))
                print(f"{package} {version}: {len(wide)} functions with over 100 users within 3 hops")
                for qualname, users in wide[:5]:
                    # As a server answers (the HTTP and MCP servers hold one workspace): the
                    # first answer reads the walk from the graph, the repeats find it kept.
                    first = ms(lambda q=qualname: ws.impact(symbols=[q]))
                    ours = [ms(lambda q=qualname: ws.impact(symbols=[q])) for _ in range(RUNS)]
                    tests = len(ws.impact(symbols=[qualname]).tests)
                    query = [
                        ms(lambda q=qualname: ws.named("impact_upstream", {"qualnames": [q], "depth": 3}))
                        for _ in range(RUNS)
                    ]
                    print(
                        f"  {qualname}: {users} users, {tests} tests; impact first {first:.0f} ms, then p50 "
                        f"{statistics.median(ours):.0f} ms, p95 {percentile(ours, 95):.0f} ms (target 200); one Cypher query for the walk "
                        f"p50 {statistics.median(query):.0f} ms (ratio {statistics.median(ours) / statistics.median(query):.2f})"
                    )
                change_files(root, 10, seed=11)
                update = api.ingest(root, config=config).seconds["total"] * 1000
                first = ms(lambda: ws.impact(diff="HEAD"))  # a new indexed state: nothing kept yet
                diff = [ms(lambda: ws.impact(diff="HEAD")) for _ in range(5)]
                report = ws.impact(diff="HEAD")
                print(
                    f"impact --diff of a 10-file commit ({len(report.changed)} symbols changed, {len(report.impacted)} "
                    f"users): first {first:.0f} ms, then p50 {statistics.median(diff):.0f} ms (target 1000); the "
                    f"incremental ingest of the same commit {update:.0f} ms (ratio {first / update:.2f} first)"
                )
                git(root, "checkout", "-qb", "feature")
                change_files(root, 40, seed=12)
                branch_off = api.ingest(root, branch="feature", config=config).seconds["total"] * 1000
                first = ms(lambda: ws.diff("main", "feature"))
                graph_diff = [ms(lambda: ws.diff("main", "feature")) for _ in range(5)]
                d = ws.diff("main", "feature")
                print(
                    f"diff of two branches {len(d.files['modified'])} files apart "
                    f"({sum(len(v) for v in d.symbols.values())} symbols changed): first {first:.0f} ms, then p50 "
                    f"{statistics.median(graph_diff):.0f} ms (target 2000); the branch-off ingest of the second "
                    f"{branch_off:.0f} ms (ratio {first / branch_off:.2f} first)"
                )
        finally:
            drop_repo(root, config)


if __name__ == "__main__":
    main()
