"""Embedding throughput on real symbols: the enriched texts of django's functions, methods and
classes, embedded by each offline mode. Prints symbols/s and the ratio of each mode to the
slowest one measured in the same run. (Recall@10 on the golden set comes with the retrieval
work: see the issues.)

    python bench/embed.py [--version 5.1.4] [--transformer-sample 200]
"""

from __future__ import annotations

import argparse
import tarfile
import tempfile
import time
from pathlib import Path

from branchgraph.ingest.embed import make_embedder
from branchgraph.ingest.embed.text import enriched_text
from branchgraph.ingest.extract import extract
from branchgraph.ingest.python_modules import module_name
from corpus import fetch_sdist


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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(fetch_sdist("Django", args.version)) as tar:
        tar.extractall(tmp, filter="data")
        texts = symbol_texts(Path(tmp))
    print(f"{len(texts)} django symbols")
    rates = {}
    for mode, sample in (("hashing", len(texts)), ("local", len(texts)), ("local-transformer", args.transformer_sample)):
        start = time.perf_counter()
        embedder = make_embedder(mode)
        load = time.perf_counter() - start
        start = time.perf_counter()
        embedder.embed(texts[:sample])
        seconds = time.perf_counter() - start
        rates[mode] = sample / seconds
        print(f"{mode:<18} {embedder.model_id:<26} dims {embedder.dims:<4} load {load:6.1f} s   {rates[mode]:9.1f} symbols/s ({sample} symbols)")
    slowest = min(rates.values())
    print("ratio to the slowest mode: " + ", ".join(f"{m} {r / slowest:.0f}x" for m, r in rates.items()))


if __name__ == "__main__":
    main()
