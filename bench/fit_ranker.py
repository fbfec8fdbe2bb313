"""Fit the learned ranking of context candidates (retrieval/learned.py) on the tuning half of
the real-task evaluation, and write it to retrieval/ranker.json.

Every tuning case (bench/task_mining.py; the held-out half is never read here) is asked at
its parent commit; each candidate context() ranks is one example, labelled by whether it is
a gold symbol (same file, line spans with intersection over union >= 0.5, as
bench/real_tasks.py scores). The model is L2-regularised logistic regression over the
standardised features, fitted by Newton's method.

    python bench/fit_ranker.py --source flask=/path/to/flask.git --source attrs=... [--per-repo 60]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from datetime import date
from pathlib import Path

import numpy as np
from corpus import drop_repo
from real_tasks import BRANCH, BUDGET, bare_clone, hits
from task_mining import mine_cases

from branchgraph import api
from branchgraph.core.config import Config
from branchgraph.retrieval import context as context_module
from branchgraph.retrieval.learned import FEATURES

OUT = Path(__file__).parent.parent / "retrieval" / "ranker.json"
L2 = 1.0  # on standardised features, summed over examples


def collect(sources: list[str], per_repo: int, config: Config) -> tuple[np.ndarray, np.ndarray, int]:
    rows: list[np.ndarray] = []
    labels: list[float] = []
    cases_seen = 0
    # The features are observed before any shipped model re-scores; the ranking a model sees
    # is the hand-tuned one either way.
    context_module.USE_LEARNED_RANKER = False
    for spec in sources:
        name, path = spec.split("=", 1)
        root = bare_clone(Path(path), name)
        cases = sorted((c for c in mine_cases(root, name, per_repo) if not c.held_out), key=lambda c: c.date)
        print(f"{name}: {len(cases)} tuning cases", file=sys.stderr, flush=True)
        try:
            api.ingest(root, branch=BRANCH, rev=cases[0].parent, config=config)
            with api.Workspace(root, config=config) as ws:
                for case in cases:
                    api.ingest(root, branch=BRANCH, rev=case.parent, config=config)

                    def observe(candidates, matrix, gold=case.gold):
                        rows.append(matrix)
                        labels.extend(
                            float(any(hits((c.path, c.span.start_line, c.span.end_line, False), g) for g in gold))
                            for c in candidates
                        )

                    ws.context(case.query, branch=BRANCH, budget_tokens=BUDGET, observe=observe)
                    cases_seen += 1
        finally:
            drop_repo(root, config)
    return np.vstack(rows), np.asarray(labels), cases_seen


def fit(x: np.ndarray, y: np.ndarray, l2: float = L2, iterations: int = 25) -> tuple[np.ndarray, float]:
    """Logistic regression by Newton's method; returns (weights, bias) for standardised x."""
    design = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[-1] = 0.0  # the bias is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(design @ w)))
        gradient = design.T @ (p - y) + penalty * w
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", action="append", required=True, help="NAME=PATH of a git repository (repeatable)")
    parser.add_argument("--per-repo", type=int, default=60)
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="branchgraph-fit-") as tmp:
        config = dataclasses.replace(Config.load(), index_dir=Path(tmp) / "index", embedder=args.embedder)
        x, y, cases = collect(args.source, args.per_repo, config)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    weights, bias = fit((x - mean) / scale, y)
    document = {
        "about": "Logistic model over context candidates' features (retrieval/learned.py), fitted by "
        "bench/fit_ranker.py on the tuning half of bench/real_tasks.py only.",
        "fitted": date.today().isoformat(),
        "repositories": [s.split("=", 1)[0] for s in args.source],
        "cases": cases,
        "examples": len(y),
        "positives": int(y.sum()),
        "features": list(FEATURES),
        "weights": [round(float(v), 6) for v in weights],
        "bias": round(bias, 6),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
    }
    args.out.write_text(json.dumps(document, indent=1) + "\n")
    print(f"{args.out}: {cases} cases, {len(y)} candidates, {int(y.sum())} gold")
    for name, weight in sorted(zip(FEATURES, weights, strict=True), key=lambda item: -abs(item[1])):
        print(f"  {name:<12} {weight:+.3f}")


if __name__ == "__main__":
    main()
