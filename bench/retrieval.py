"""Retrieval quality on the golden set (tests/golden/click.json): recall@5/10/20 of lexical
only, vector only and hybrid entry search for each embedder asked for. The click sdist is
fetched from PyPI at the golden set's pinned version and indexed into a throwaway repository.
(The full pipeline — expansion and ranking — and context() latency come with the retrieval
issue.)

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/retrieval.py [--embedders hashing,local]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import uuid
from pathlib import Path

from branchgraph.config import Config
from corpus import drop_repo
from golden_run import commit_golden_corpus, golden_set, measure_recall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedders", default="hashing,local", help="comma-separated: hashing, local, local-transformer, openai")
    args = parser.parse_args()
    golden = golden_set()
    with tempfile.TemporaryDirectory(prefix="branchgraph-bench-") as tmp:
        root = Path(tmp) / f"{golden.package}-{uuid.uuid4().hex[:8]}"
        commit_golden_corpus(golden, root)
        config = dataclasses.replace(Config.load(), index_dir=Path(tmp) / "index")
        try:
            print(f"{len(golden.questions)} questions over {golden.package} {golden.version}")
            print(f"{'embedder':<18} {'mode':<8} {'R@5':>6} {'R@10':>6} {'R@20':>6}")
            for i, embedder in enumerate(args.embedders.split(",")):
                # Lexical search does not use the embedder: it is shown once.
                modes = ("lexical", "dense", "hybrid", "full") if i == 0 else ("dense", "hybrid", "full")
                for mode, recall in measure_recall(root, config, embedder, modes, golden).items():
                    print(f"{embedder:<18} {mode:<8} {recall[5]:>6.3f} {recall[10]:>6.3f} {recall[20]:>6.3f}")
        finally:
            drop_repo(root, config)


if __name__ == "__main__":
    main()
