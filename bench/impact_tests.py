"""Test selection checked against what the tests really execute (issue 11, item 2; the
measurement — not yet the improved selection).

For each source (a git repository with a pytest suite): clone it, install it with pytest and
coverage.py into a fresh virtual environment, run the suite under coverage with
`dynamic_context = test_function`, and learn which tests execute each function or method of
the non-test code (the lines of its body). Then ask `branchgraph impact --symbol` for every
covered function and score its `tests`: recall of the tests that really run it, and the share
of the suite it selects. The bound printed beside them is the trivial selection (run every
test: recall 1.0 at a 100% share).

    BRANCHGRAPH_NEO4J_URI=bolt://127.0.0.1:7687 python bench/impact_tests.py \\
        --source pluggy=/path/to/pluggy.git [--tests testing] [--depth 3] [--dump F [--why]]

`--why` adds to each function's row in the dump the tests selected that do not run it, each
with its `via` (the path from the test down to the function): what to read when a walk rule
over-selects.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from corpus import scratch_config

from branchgraph import api
from branchgraph.core.languages import language_for_path


def run(command: list[str], cwd: Path) -> None:
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True)


def executed_by(checkout: Path, tests: str, venv: Path) -> tuple[dict[str, dict[int, set[str]]], set[str]]:
    """Per source file, line -> the tests (as `module.Class.test`) that executed it; and every test seen."""
    rc = checkout.parent / "coverage.rc"
    rc.write_text("[run]\ndynamic_context = test_function\n")
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "coverage", "run", f"--rcfile={rc}", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    tests], cwd=checkout, capture_output=True, text=True)  # fmt: skip
    report = checkout.parent / "coverage.json"
    # -i: code compiled at run time under a made-up file name (attrs' generated methods) has no
    # source to report; it is not the project's code either.
    run([python, "-m", "coverage", "json", "-i", f"--rcfile={rc}", "--show-contexts", "-o", str(report)], checkout)
    lines: dict[str, dict[int, set[str]]] = {}
    every: set[str] = set()
    for path, data in json.loads(report.read_text())["files"].items():
        for line, contexts in data.get("contexts", {}).items():
            named = {context_name(c) for c in contexts if c}
            every |= named
            if named:
                lines.setdefault(path, {})[int(line)] = named
    return lines, every


def short(qualname: str, path: str) -> str:
    """A test's qualified name as coverage's test_function context writes it (`test_mod.Class.test`)."""
    spec = language_for_path(path)
    module = spec.conventions.module_name(path) if spec else ""
    local = qualname[len(module) + 1 :] if module and qualname.startswith(module + ".") else qualname
    return f"{module.rsplit('.', 1)[-1]}.{local}"


def context_name(context: str) -> str:
    """A coverage context in the form ``short`` gives: pytest names a test module by its path
    from the first folder without ``__init__.py`` (``test_pkg.test_mod.Class.test``), so the
    packages above the test module are dropped."""
    parts = context.split(".")
    module = next((i for i, part in enumerate(parts) if part.startswith("test")), 0)
    # The test module is the last part that names a module: the one before a class or test.
    while module + 1 < len(parts) - 1 and parts[module + 1].startswith("test") and not parts[module + 1][:1].isupper():
        module += 1
    return ".".join(parts[module:])


def _named_as_defined(
    executed: dict[str, dict[int, set[str]]], suite: set[str], test_names: list[str]
) -> tuple[dict[str, dict[int, set[str]]], set[str], dict[str, set[str]]]:
    """Coverage's contexts with the tests a decorator wrapped named as they are defined, and the
    contexts that stand for several tests. Hypothesis's ``@given`` runs a test as an inner
    function of its own (``test_make.accept.<locals>.test_immutable`` for
    ``test_make.TestAttribute.test_immutable``): such a context is the test of that module and
    name when exactly one test is; when several are (``test_change`` in two classes of one
    module), it is what those tests ran together, and a selection runs it only by selecting
    every one of them (``groups``: context -> those tests)."""
    by_module_and_name: dict[tuple[str, str], list[str]] = {}
    for test in test_names:
        by_module_and_name.setdefault((test.split(".", 1)[0], test.rsplit(".", 1)[-1]), []).append(test)
    groups: dict[str, set[str]] = {}

    def defined(context: str) -> str:
        if ".<locals>." not in context:
            return context
        found = by_module_and_name.get((context.split(".", 1)[0], context.rsplit(".", 1)[-1]), [])
        if len(found) > 1:
            groups[context] = set(found)
        return found[0] if len(found) == 1 else context

    renamed = {
        path: {line: {defined(t) for t in tests} for line, tests in lines.items()} for path, lines in executed.items()
    }
    return renamed, {defined(t) for t in suite}, groups


def score(
    name: str, repo: str, tests: str, depth: int, extra: list[str], tmp: Path, dump: Path | None, why: bool = False
) -> None:
    checkout = tmp / name
    run(["git", "clone", "-q", repo, str(checkout)], tmp)
    venv = tmp / f"{name}-venv"
    run([sys.executable, "-m", "venv", str(venv)], tmp)
    run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-e", ".", "pytest", "coverage", *extra], checkout)
    executed, suite = executed_by(checkout, tests, venv)
    # Each project's scratch index: its servers stop before its directory goes (scratch_config).
    with scratch_config(f"branchgraph-impact-{name}-", embedder="none") as config:
        summary = api.ingest(checkout, config=config)
        with api.Workspace(checkout, config=config) as ws:
            functions = ws.graph.read_query(
                "MATCH (s {repo: $repo, branch: $branch}) WHERE s:Function OR s:Method "
                "RETURN s.qualname AS q, s.path AS path, s.start_line AS start, s.end_line AS end, s.is_test AS test",
                {"repo": summary.repo, "branch": summary.branch},
                limit=100_000,
            )
        symbols = [f for f in functions if f["test"] is False]
        test_names = [short(f["q"], f["path"]) for f in functions if f["test"]]
        if not executed:
            print(f"{name}: no test executed the code (does `pytest {tests}` pass in {checkout}? pin with --pip)")
            return
        executed, suite, groups = _named_as_defined(executed, suite, test_names)
        recalls, shares, needed, rows = [], [], [], []
        for s in symbols:
            spec = language_for_path(s["path"])
            if spec is None or spec.conventions.is_support_file(s["path"]):
                continue
            body = executed.get(s["path"], {})
            truth = set().union(*(body.get(line, set()) for line in range(s["start"] + 1, s["end"] + 1)))
            if not truth:
                continue  # no test runs it
            report = api.impact(checkout, symbols=[s["q"]], depth=depth, config=config)
            chosen = {short(t.qualname, t.path) for t in report.tests}
            chosen |= {context for context, tests in groups.items() if tests <= chosen}
            recalls.append(len(truth & chosen) / len(truth))
            # The share of the suite measured: tests the selection names outside it (a project's
            # examples/ with tests of their own) are neither scored nor counted.
            shares.append(len(chosen & suite) / len(suite))
            needed.append(len(truth & suite) / len(suite))
            missed = sorted(truth - chosen)
            evidence = dict(Counter(t.evidence for t in report.tests))
            rows.append(
                {"symbol": s["q"], "recall": recalls[-1], "selected": len(chosen), "runs": len(truth), "missed": missed,
                 "evidence": evidence}
            )  # fmt: skip
            if why:
                selected = ((short(t.qualname, t.path), t.via) for t in report.tests)
                rows[-1]["over"] = {test: via for test, via in selected if test not in truth}
        if dump is not None:
            dump.write_text(json.dumps(rows, indent=1))
        print(
            f"{name}: {len(suite)} tests, {len(recalls)} covered functions; impact --depth {depth}: mean recall "
            f"{statistics.fmean(recalls):.3f} (median {statistics.median(recalls):.3f}, recall >= 0.9 for "
            f"{sum(r >= 0.9 for r in recalls) / len(recalls):.0%}), mean share of the suite selected "
            f"{statistics.fmean(shares):.1%}; bound: every test, recall 1.000 at 100% (targets: >= 0.90 at <= 50%); "
            f"the tests that really run a function are {statistics.fmean(needed):.1%} of the suite on average; "
            f"{len(groups)} contexts stand for several tests each"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", action="append", required=True, metavar="NAME=GIT_REPO")
    parser.add_argument("--tests", default="testing", help="the test folder pytest runs (default: testing)")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--pip", default="", help="extra requirements for the suite, space-separated ('pytest<8')")
    parser.add_argument(
        "--dump", type=Path, help="write each covered function's recall, selection size and missed tests"
    )
    parser.add_argument(
        "--why",
        action="store_true",
        help="with --dump: each function's over-selected tests with the path that chose them",
    )
    args = parser.parse_args()
    if args.why and not args.dump:
        parser.error("--why adds to the dump: give --dump FILE")
    with tempfile.TemporaryDirectory(prefix="branchgraph-impact-tests-") as tmp:
        for source in args.source:
            name, repo = source.split("=", 1)
            dump = args.dump.with_name(f"{args.dump.stem}-{name}{args.dump.suffix}") if args.dump else None
            score(name, repo, args.tests, args.depth, args.pip.split(), Path(tmp), dump, args.why)


if __name__ == "__main__":
    main()
