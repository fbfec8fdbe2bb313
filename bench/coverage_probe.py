"""Where the gold symbols that context() never considers are (tuning half only): for each
tuning case, whether each gold symbol is a candidate, and if not, whether its file holds a
candidate, and the file's rank among the candidates' files by best search score.

    python bench/coverage_probe.py --source flask=/path/to/flask.git --source attrs=...
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from corpus import CACHE, drop_repo, scratch_config
from real_tasks import BRANCH, BUDGET, bare_clone, hits, replay
from task_mining import mine_cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", action="append", required=True)
    parser.add_argument("--per-repo", type=int, default=60)
    args = parser.parse_args()
    outcome: Counter[str] = Counter()
    spent: Counter[str] = Counter()
    rows = []
    with scratch_config("branchgraph-probe-", embedder="local") as config:
        for spec in args.source:
            name, path = spec.split("=", 1)
            root = bare_clone(Path(path), name)
            cases = [c for c in mine_cases(root, name, args.per_repo) if not c.held_out]
            try:
                for _, case, ws in replay(root, cases, config):
                    seen = []

                    def observe(candidates, matrix, seen=seen):
                        seen.extend(candidates)

                    answer = ws.context(case.query, branch=BRANCH, budget_tokens=BUDGET, observe=observe)
                    spent["items"] += len(answer.items)
                    spent["outline"] += sum(i.tokens for i in answer.items if i.outline)
                    spent["support"] += sum(i.tokens for i in answer.items if "test" in i.path)
                    spent["total"] += answer.tokens
                    spent["cases"] += 1
                    best: dict[str, float] = {}
                    for c in seen:
                        best[c.path] = max(best.get(c.path, 0.0), c.search_score)
                    files = sorted(best, key=lambda p: -best[p])
                    for g in case.gold:
                        if any(hits((c.path, c.span.start_line, c.span.end_line, False), g) for c in seen):
                            outcome["candidate"] += 1
                            continue
                        rank = files.index(g.path) + 1 if g.path in files else None
                        key = "file absent" if rank is None else ("file rank <=3" if rank <= 3 else "file rank >3")
                        outcome[key] += 1
                        rows.append(
                            {"repo": name, "query": case.query, "gold": g.name, "path": g.path, "file_rank": rank}
                        )
            finally:
                drop_repo(root, config)
    print(json.dumps(outcome, indent=1))
    print({k: round(v / spent["cases"], 1) for k, v in spent.items()})
    (CACHE / "coverage_probe.json").write_text(json.dumps(rows, indent=1))
    for r in rows[:40]:
        print(r["repo"], r["file_rank"], r["gold"], "|", r["query"][:70], file=sys.stderr)


if __name__ == "__main__":
    main()
