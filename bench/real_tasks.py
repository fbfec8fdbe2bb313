"""Retrieval on real development tasks: commits of public Python projects, each asked as its
commit message at its parent commit, scored on the functions the commit changed.

For every case (``task_mining.py``) the repository is indexed at the parent commit (one
branch, updated incrementally from case to case, oldest first) and these are ranked:

- ``context``: ``context()`` with an 8,000-token budget, items in rank order;
- ``fulltext`` / ``vector``: branchgraph's full-text-only and vector-only entry search;
- ``bm25``: Okapi BM25 (k1 1.2, b 0.75) over every function's and method's own source text,
  identifier-split as branchgraph's full-text search is, no graph, no vectors; and the same
  with branchgraph's own length normalisation (``search.BM25_B``), so that tuning it is not
  counted as a lead over plain text search;
- ``candidates`` (a diagnostic, not an answer): every candidate ``context()`` ranked, in the
  ranker's order, before assembly folds, outlines and trims them; the gap to ``context`` is
  what assembly loses.

Metrics, each on the tuning half and on the held-out half (fixed by commit id; no choice is
made on it):

- symbol recall@5/10/20: the share of gold symbols hit by the top k items; an item hits a
  gold symbol when it is in the same file and their line spans have intersection over union
  >= 0.5 (a 400-line class shown for a 10-line method does not);
- file recall@5: the share of gold files among the files of the top 5 items;
- recall@all: the share of gold symbols anywhere in the list (for ``candidates``: the gold
  search and the graph bring at all);
- budget recall: the share of gold symbols at least half of whose lines are shown in full
  (not as an outline) within 8,000 tokens: for ``context`` its answer, for the lists their
  texts best first until the budget is spent.

    python bench/real_tasks.py --source flask=/path/to/flask.git --source attrs=... [--per-repo 60]

Each ``--source`` is any git repository (a bare clone will do); it is cloned (bare) into
bench/.cache/histories. Per-case results go to bench/.cache/real_tasks.json.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

from corpus import CACHE, drop_repo, scratch_config
from task_mining import Case, GoldSymbol, git, mine_cases

from branchgraph import api
from branchgraph.core.config import Config
from branchgraph.core.extract import extract
from branchgraph.core.languages import language_for_path
from branchgraph.core.lexical import lexical_text, query_terms
from branchgraph.retrieval.context import DEFAULT_ENTRIES, ContextItem
from branchgraph.retrieval.learned import shipped_ranker
from branchgraph.retrieval.search import BM25_B

BUDGET = 8000
KS = (5, 10, 20)
BRANCH = "tasks"

# (path, start_line, end_line, not shown in full: an outline or cut to fit): one ranked item
Item = tuple[str, int, int, bool]


# ----- scoring -----------------------------------------------------------------------------


def context_item(item: ContextItem) -> Item:
    """A ``context()`` item as scored: an outline or an item cut to fit is not shown in full."""
    return (item.path, item.start_line, item.end_line, item.outline or item.truncated)


def iou(a: tuple[int, int], b: tuple[int, int]) -> float:
    inter = min(a[1], b[1]) - max(a[0], b[0]) + 1
    if inter <= 0:
        return 0.0
    return inter / ((a[1] - a[0] + 1) + (b[1] - b[0] + 1) - inter)


def hits(item: Item, gold: GoldSymbol) -> bool:
    return item[0] == gold.path and iou((item[1], item[2]), (gold.start_line, gold.end_line)) >= 0.5


def recall_at(items: list[Item], gold: list[GoldSymbol], k: int) -> float:
    top = items[:k]
    return sum(any(hits(i, g) for i in top) for g in gold) / len(gold)


def file_recall(items: list[Item], gold: list[GoldSymbol], k: int = 5) -> float:
    files = {g.path for g in gold}
    return len(files & {i[0] for i in items[:k]}) / len(files)


def shown_in_full(shown: list[Item], gold: list[GoldSymbol]) -> float:
    """Share of gold symbols at least half of whose lines some non-outline item shows."""

    def covered(g: GoldSymbol) -> bool:
        need = (g.end_line - g.start_line + 1) / 2
        for path, start, end, outline in shown:
            if path == g.path and not outline and min(end, g.end_line) - max(start, g.start_line) + 1 >= need:
                return True
        return False

    return sum(covered(g) for g in gold) / len(gold)


def within_budget(items: list[Item], length_of: Callable[[Item], int]) -> list[Item]:
    """A list's items best first while their text fits the budget (4 characters a token, plus
    a header line each, as context() counts)."""
    out, used = [], 0
    for item in items:
        cost = math.ceil(length_of(item) / 4) + 12
        if used + cost > BUDGET:
            break
        out.append(item)
        used += cost
    return out


# ----- the BM25 baseline --------------------------------------------------------------------


class SourceAtCommit:
    """Functions and methods of a commit with their text, parsed once per blob."""

    def __init__(self, repo: Path):
        self.repo = repo
        self._by_blob: dict[str, tuple[list[str], list[tuple[int, int, Counter[str], int]]]] = {}
        self._files: dict[str, list[tuple[str, str]]] = {}

    def files(self, commit: str) -> list[tuple[str, str]]:
        """The parsed-language blobs of a commit (listed once per commit: both BM25 baselines and
        the text lengths ask for them)."""
        if commit not in self._files:
            self._files[commit] = self._list(commit)
        return self._files[commit]

    def _list(self, commit: str) -> list[tuple[str, str]]:
        out = []
        for line in git(self.repo, "ls-tree", "-r", commit).splitlines():
            meta, path = line.split("\t", 1)
            mode, kind, sha = meta.split()
            if kind == "blob" and language_for_path(path) is not None and mode != "120000":
                out.append((path, sha))
        return out

    def blob(self, sha: str, language: str) -> tuple[list[str], list[tuple[int, int, Counter[str], int]]]:
        if sha not in self._by_blob:
            data = subprocess.run(["git", "-C", str(self.repo), "cat-file", "blob", sha], capture_output=True).stdout
            lines = data.decode("utf-8", "replace").splitlines()
            symbols = []
            if len(data) <= 1_000_000:
                for d in extract(language, data).definitions:
                    if d.kind == "function":
                        tokens = lexical_text("\n".join(lines[d.start_line - 1 : d.end_line])).split()
                        symbols.append((d.start_line, d.end_line, Counter(tokens), len(tokens)))
            self._by_blob[sha] = (lines, symbols)
        return self._by_blob[sha]


def _language(path: str) -> str:
    spec = language_for_path(path)
    assert spec is not None  # SourceAtCommit.files lists parsed languages only
    return spec.name


def bm25_ranking(source: SourceAtCommit, commit: str, query: str, k1: float = 1.2, b: float = 0.75) -> list[Item]:
    docs = []
    for path, sha in source.files(commit):
        for start, end, tf, length in source.blob(sha, _language(path))[1]:
            docs.append((path, start, end, tf, length))
    if not docs:
        return []
    terms = query_terms(query)
    avg = statistics.fmean(d[4] for d in docs) or 1.0
    df = Counter(t for d in docs for t in set(terms) if t in d[3])
    n = len(docs)
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    scored = []
    for path, start, end, tf, length in docs:
        score = 0.0
        for t in terms:
            f = tf.get(t, 0)
            if f:
                score += idf[t] * f * (k1 + 1) / (f + k1 * (1 - b + b * length / avg))
        if score > 0:
            scored.append((-score, path, start, end))
    scored.sort()
    return [(path, start, end, False) for _, path, start, end in scored[:50]]


# ----- running the cases ---------------------------------------------------------------------


def bare_clone(source: Path, name: str) -> Path:
    target = CACHE / "histories" / f"{name}.git"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "--quiet", "--bare", str(source), str(target)], check=True)
    return target


def apply_settings(settings: dict[str, object]) -> dict[str, object]:
    """Set module constants (``branchgraph.retrieval.search.RRF_K``: value); return the old values."""
    old = {}
    for dotted, value in settings.items():
        module_name, attr = dotted.rsplit(".", 1)
        module = importlib.import_module(module_name)
        old[dotted] = getattr(module, attr)
        setattr(module, attr, value)
    return old


def replay(root: Path, cases: list[Case], config: Config) -> Iterator[tuple[int, Case, api.Workspace]]:
    """Each case, oldest first, with the repository indexed at its parent commit (one branch,
    updated incrementally) and a workspace open on it."""
    ordered = sorted(cases, key=lambda c: c.date)
    # The workspace opens an indexed branch: index the oldest case's parent first.
    api.ingest(root, branch=BRANCH, rev=ordered[0].parent, config=config)
    with api.Workspace(root, config=config) as ws:
        for n, case in enumerate(ordered, 1):
            api.ingest(root, branch=BRANCH, rev=case.parent, config=config)
            yield n, case, ws


def run_repo(
    root: Path,
    cases: list[Case],
    config: Config,
    progress: Callable[[str], None],
    grid: list[dict] = (),
    keep_items: int = 20,
) -> list[dict]:
    source = SourceAtCommit(root)
    results = []
    for n, case, ws in replay(root, cases, config):
        ranked: list[Item] = []

        def observe(candidates, matrix, ranked=ranked):
            # The candidates as the ranking orders them, before assembly folds and trims them.
            model = shipped_ranker()
            scores = model.probabilities(matrix) if model is not None else matrix[:, 0]
            order = sorted(range(len(candidates)), key=lambda i: -scores[i])
            ranked.extend(
                (candidates[i].path, candidates[i].span.start_line, candidates[i].span.end_line, False) for i in order
            )

        started = time.perf_counter()
        answer = ws.context(case.query, branch=BRANCH, budget_tokens=BUDGET, observe=observe)
        seconds = time.perf_counter() - started
        context_items = [context_item(i) for i in answer.items]
        lists = {
            "fulltext": [
                (h.path, h.start_line or 0, h.end_line or 0, False)
                for h in ws.search(case.query, branch=BRANCH, k=50, mode="lexical")
            ],
            "vector": [
                (h.path, h.start_line or 0, h.end_line or 0, False)
                for h in ws.search(case.query, branch=BRANCH, k=50, mode="dense")
            ],
            "bm25": bm25_ranking(source, case.parent, case.query),
            # The baseline with the length normalisation branchgraph's own search uses, so that
            # tuning that constant is not counted as a lead over plain text search.
            f"bm25 (b {BM25_B})": bm25_ranking(source, case.parent, case.query, b=BM25_B),
            "candidates": ranked,
        }
        text_length = _text_length(source, case.parent)
        row = {
            "case": case.to_dict(),
            "held_out": case.held_out,
            "context_seconds": seconds,
            "metrics": {},
            "items": {},
        }
        for variant in grid:
            settings = dict(variant.get("set", {}))
            old = apply_settings(settings)
            try:
                other = ws.context(
                    case.query, branch=BRANCH, budget_tokens=BUDGET, entries=variant.get("entries", DEFAULT_ENTRIES)
                )
            finally:
                apply_settings(old)
            lists["context:" + variant["name"]] = [context_item(i) for i in other.items]
        for method, items in [("context", context_items), *lists.items()]:
            shown = items if method.startswith("context") else within_budget(items, text_length)
            row["metrics"][method] = {
                **{f"R@{k}": recall_at(items, case.gold, k) for k in KS},
                "R@all": recall_at(items, case.gold, len(items)),
                "fileR@5": file_recall(items, case.gold),
                "budget": shown_in_full(shown, case.gold),
            }
            row["items"][method] = items[:keep_items]
        results.append(row)
        progress(
            f"{case.repo} {n}/{len(cases)}: R@10 context {row['metrics']['context']['R@10']:.2f}, "
            f"bm25 {row['metrics']['bm25']['R@10']:.2f}"
        )
    return results


def _text_length(source: SourceAtCommit, commit: str) -> Callable[[Item], int]:
    blobs = dict(source.files(commit))

    def length(item: Item) -> int:
        sha = blobs.get(item[0])
        if sha is None:
            return 0
        lines = source.blob(sha, _language(item[0]))[0]
        return len("\n".join(lines[item[1] - 1 : item[2]]))

    return length


def summarize(results: list[dict]) -> str:
    out = []
    for split, label in ((False, "tuning"), (True, "held-out")):
        rows = [r for r in results if r["held_out"] == split]
        if not rows:
            continue
        repos = Counter(r["case"]["repo"] for r in rows)
        out.append(f"\n{label}: {len(rows)} cases ({', '.join(f'{k} {v}' for k, v in sorted(repos.items()))})")
        out.append(f"{'method':<30} {'R@5':>6} {'R@10':>6} {'R@20':>6} {'fileR@5':>8} {'budget':>7} {'R@all':>6}")
        for method in rows[0]["metrics"]:
            m = {
                key: statistics.fmean(r["metrics"][method][key] for r in rows)
                for key in ("R@5", "R@10", "R@20", "fileR@5", "budget", "R@all")
            }
            out.append(
                f"{method[:30]:<30} {m['R@5']:>6.3f} {m['R@10']:>6.3f} {m['R@20']:>6.3f} "
                f"{m['fileR@5']:>8.3f} {m['budget']:>7.3f} {m['R@all']:>6.3f}"
            )
        by_repo = defaultdict(list)
        for r in rows:
            by_repo[r["case"]["repo"]].append(r)
        out.append(
            "R@10 by repository (context / bm25): "
            + ", ".join(
                f"{repo} {statistics.fmean(r['metrics']['context']['R@10'] for r in rs):.2f} / "
                f"{statistics.fmean(r['metrics']['bm25']['R@10'] for r in rs):.2f}"
                for repo, rs in sorted(by_repo.items())
            )
        )
    seconds = sorted(r["context_seconds"] for r in results)
    out.append(
        f"\ncontext() on these repositories: p50 {1000 * seconds[len(seconds) // 2]:.0f} ms, "
        f"p95 {1000 * seconds[int(len(seconds) * 0.95)]:.0f} ms"
    )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", action="append", required=True, help="NAME=PATH of a git repository (repeatable)")
    parser.add_argument("--per-repo", type=int, default=60, help="cases per repository (newest first)")
    parser.add_argument("--embedder", default="local")
    parser.add_argument(
        "--split",
        choices=("both", "tuning", "held-out"),
        default="both",
        help="run only one half (tuning: while tuning)",
    )
    parser.add_argument("--out", type=Path, default=CACHE / "real_tasks.json")
    parser.add_argument(
        "--grid",
        type=Path,
        help="JSON list of variants to score beside the default: {name, set: {module.CONSTANT: value}, entries}"
        " (entries: as context() defaults when left out)",
    )
    parser.add_argument(
        "--keep-items",
        type=int,
        default=20,
        help="items of each list kept in --out per case (more: to read where the gold was lost)",
    )
    args = parser.parse_args()
    grid = json.loads(args.grid.read_text()) if args.grid else []
    results = []
    with scratch_config("branchgraph-tasks-", embedder=args.embedder) as config:
        for spec in args.source:
            name, path = spec.split("=", 1)
            root = bare_clone(Path(path), name)
            cases = mine_cases(root, name, args.per_repo)
            if args.split != "both":
                cases = [c for c in cases if c.held_out == (args.split == "held-out")]
            print(f"{name}: {len(cases)} cases ({sum(c.held_out for c in cases)} held out)", flush=True)
            try:
                results.extend(
                    run_repo(
                        root,
                        cases,
                        config,
                        lambda line: print("  " + line, file=sys.stderr, flush=True),
                        grid,
                        args.keep_items,
                    )
                )
            finally:
                drop_repo(root, config)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))
    print(summarize(results))


if __name__ == "__main__":
    main()
