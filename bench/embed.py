"""Embedders compared: throughput on real symbols (the enriched texts of django's functions,
methods and classes; symbols/s and the ratio to the slowest mode, measured in the same run),
then vector-only recall@10 on the golden set (tests/golden/click.json) for each mode — and for
the OpenAI provider when OPENAI_API_KEY is set.

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/embed.py [--transformer-sample 200] [--no-recall]
"""

from __future__ import annotations

import argparse
import os
import tarfile
import tempfile
import time
from pathlib import Path

from corpus import drop_repo, fetch_sdist, scratch
from golden_run import commit_golden_corpus, golden_set, measure_recall

from branchgraph.core.embed import make_embedder
from branchgraph.core.embed.text import enriched_text
from branchgraph.core.extract import extract
from branchgraph.ingest.python_modules import module_name


def symbol_texts(root: Path) -> list[str]:
    texts = []
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        try:
            lines = data.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        parsed = extract("python", data)
        rel = str(path.relative_to(root))
        for d in parsed.definitions:
            texts.append(
                enriched_text(
                    path=rel,
                    label="Class" if d.kind == "class" else "Function",
                    qualname=f"{module_name(rel)}.{d.name}",
                    signature=d.signature,
                    docstring=d.docstring,
                    body="\n".join(lines[d.start_line - 1 : d.end_line]),
                )
            )
    return texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", default="5.1.4")
    parser.add_argument("--transformer-sample", type=int, default=200, help="symbols for the slow transformer mode")
    parser.add_argument("--no-recall", action="store_true", help="throughput only (no Neo4j needed)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(fetch_sdist("Django", args.version)) as tar:
        tar.extractall(tmp, filter="data")
        texts = symbol_texts(Path(tmp))
    print(f"{len(texts)} django symbols")
    rates = {}
    for mode, sample in (
        ("hashing", len(texts)),
        ("local", len(texts)),
        ("local-transformer", args.transformer_sample),
    ):
        start = time.perf_counter()
        embedder = make_embedder(mode)
        load = time.perf_counter() - start
        start = time.perf_counter()
        embedder.embed(texts[:sample])
        seconds = time.perf_counter() - start
        rates[mode] = sample / seconds
        print(
            f"{mode:<18} {embedder.model_id:<26} dims {embedder.dims:<4} load {load:6.1f} s   "
            f"{rates[mode]:9.1f} symbols/s ({sample} symbols)"
        )
    slowest = min(rates.values())
    print("ratio to the slowest mode: " + ", ".join(f"{m} {r / slowest:.0f}x" for m, r in rates.items()))
    if not args.no_recall:
        print_recall([*rates, *(["openai"] if os.environ.get("OPENAI_API_KEY") else [])])


def print_recall(embedders: list[str]) -> None:
    golden = golden_set()
    with scratch("branchgraph-bench-embed-") as (config, tmp):
        root = tmp / f"{golden.package}-embed"
        commit_golden_corpus(golden, root)
        try:
            print(
                f"vector-only recall@10 on {len(golden.questions)} golden questions ({golden.package} {golden.version}):"
            )
            for name in embedders:
                recall = measure_recall(root, config, name, ("dense",), golden)["dense"]
                print(f"  {name:<18} {recall[10]:.3f}")
        finally:
            drop_repo(root, config)


if __name__ == "__main__":
    main()
