"""Python resolution measured against an independent resolver (Jedi), on real projects.

    pip install jedi   # only for this benchmark; branchgraph does not depend on it
    python bench/resolution.py --source flask=/path/to/flask.git [--source NAME=GIT_DIR ...]
        [--sdist django=5.1.4] [--sample 12] [--max-files N]

Each source is cloned at its default branch's tip (``--sdist NAME=VERSION``: a PyPI sdist,
see corpus.py) and two call graphs are built over the same Python files:

- Jedi's: every call site (a name followed by ``(...)``, and every decorator, which Python
  calls too) inside a function or method body, asked ``goto(follow_imports=True)``; the caller
  is the innermost enclosing ``def`` (a lambda's calls belong to the function around it);
- branchgraph's: the resolver in process, no stores; its resolved CALLS edges from functions
  and methods.

Both sides name a symbol by branchgraph's node for it (the innermost node of that name whose
span holds the definition's line), so qualname conventions cannot disagree. Scored by
distinct caller-callee pairs between the project's own functions, methods and classes (a
class called is its constructor):

- recall: Jedi's pairs that branchgraph has, counting only call sites where Jedi names
  exactly one in-repo definition (Jedi's ambiguous answers are reported apart);
- precision: branchgraph's pairs that Jedi confirms, and beside it how branchgraph's other
  pairs sit with Jedi at the same call site (Jedi named another in-repo target, named
  something outside the project, or could not tell) — Jedi misses types branchgraph follows,
  so "could not tell" is not "wrong";
- branchgraph's unresolved rate (in-repo-looking references left dangling).

A sample of each kind of disagreement is printed to read by hand. Figures are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import random
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import warnings
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from corpus import fetch_sdist  # noqa: E402
from graph_view import resolve_sources  # noqa: E402

CALLEE_LABELS = ("Function", "Method", "Class")
CALLER_LABELS = ("Function", "Method")

# (path, line, name): where a call is made
Site = tuple[str, int, str]


@dataclass
class Symbols:
    """branchgraph's function, method and class nodes by file, to name what Jedi finds."""

    by_path: dict[str, list[tuple[int, int, str, str, str]]] = field(default_factory=lambda: defaultdict(list))

    qualnames: set[str] = field(default_factory=set)

    def add(self, path: str, start: int, end: int, name: str, qualname: str, label: str) -> None:
        self.by_path[path].append((start, end, name, qualname, label))
        self.qualnames.add(qualname)

    def at(self, path: str, line: int, name: str) -> str | None:
        """The innermost node called ``name`` whose span holds ``line``."""
        best = None
        for start, end, node_name, qualname, _ in self.by_path.get(path, ()):
            if node_name == name and start <= line <= end and (best is None or end - start < best[0]):
                best = (end - start, qualname)
        return best[1] if best else None


@dataclass
class Ours:
    pairs: set[tuple[str, str]]
    sites: dict[Site, set[str]]  # (path, line, callee name) -> callees at that line
    pair_sites: dict[tuple[str, str], list[Site]]
    symbols: Symbols
    unresolved_rate: float


def branchgraph_calls(root: Path, paths: list[str]) -> Ours:
    graph = resolve_sources({p: (root / p).read_bytes() for p in paths}, root.name)
    nodes = {n.id: n for s in graph for n in [*s.nodes, *s.unresolved]}
    symbols = Symbols()
    for s in graph:
        for n in s.nodes:
            if n.label in CALLEE_LABELS:
                props = n.props
                symbols.add(n.path, props["start_line"], props["end_line"], props["name"], props["qualname"], n.label)
    pairs: set[tuple[str, str]] = set()
    sites: dict[Site, set[str]] = defaultdict(set)
    pair_sites: dict[tuple[str, str], list[Site]] = defaultdict(list)
    resolved = unresolved = 0
    for s in graph:
        for e in s.edges:
            if e.type in ("CALLS", "IMPORTS", "INHERITS_FROM", "PARAM_TYPE", "RETURNS_TYPE"):
                if e.resolved:
                    resolved += 1
                elif nodes[e.dst].props.get("reason") == "unresolved":
                    unresolved += 1
            if e.type != "CALLS" or not e.resolved or e.inferred:
                continue
            src, dst = nodes[e.src], nodes[e.dst]
            if src.label not in CALLER_LABELS or dst.label not in CALLEE_LABELS:
                continue
            pair = (src.props["qualname"], dst.props["qualname"])
            pairs.add(pair)
            for line in e.lines or (e.line,):
                site = (src.path, line, dst.props["name"])
                sites[site].add(dst.props["qualname"])
                pair_sites[pair].append(site)
    rate = unresolved / (resolved + unresolved) if resolved + unresolved else 0.0
    return Ours(pairs, sites, pair_sites, symbols, rate)


@dataclass
class JediAnswer:
    caller: str
    site: Site
    targets: set[str]  # in-repo callees, by branchgraph's qualname
    outside: bool  # Jedi named a definition outside the project (stdlib, a dependency)
    unnamed: int  # in-repo definitions Jedi named that branchgraph has no node for


def _call_names(tree) -> list:
    """Name leaves that are called: ``f(...)``, ``a.b.f(...)``, and decorators."""
    found = []

    def walk(node) -> None:
        kind = node.type
        if kind in ("power", "atom_expr"):
            children = node.children
            for i, child in enumerate(children):
                if child.type == "trailer" and child.children[0].value == "(" and i > 0:
                    before = children[i - 1]
                    if before.type == "name":
                        found.append(before)
                    elif before.type == "trailer" and before.children[0].value == ".":
                        found.append(before.children[1])
        elif kind == "decorator":
            expr = node.children[1]
            if expr.type == "name":
                found.append(expr)
            elif expr.type in ("power", "atom_expr", "dotted_name") and expr.children[-1].type != "trailer":
                found.append(expr.children[-1])
            elif expr.type in ("power", "atom_expr") and expr.children[-1].children[0].value == ".":
                found.append(expr.children[-1].children[1])
        for child in getattr(node, "children", ()):
            walk(child)

    walk(tree)
    return found


def _enclosing_def(leaf):
    """The innermost ``def`` around a call (lambdas are looked through), or None when the call
    is at class or module level. A decorator belongs to the scope around what it decorates."""
    node = leaf.parent
    while node is not None:
        if node.type == "funcdef":
            return node
        if node.type == "classdef":
            return None
        if node.type == "decorated":
            node = node.parent  # the decorated def is not the caller of its decorator
            continue
        node = node.parent
    return None


def jedi_without_django_knowledge() -> None:
    """Jedi bundles django-stubs and a django plugin (model fields, managers): on django's own
    source they answer from declarations the source does not make (``request: HttpRequest``,
    ``_meta: Options``). Without them Jedi infers from the source and the standard library
    alone, as branchgraph does."""
    import jedi.inference.gradual.typeshed as typeshed
    from jedi.plugins import django as django_plugin
    from jedi.plugins import plugin_manager

    typeshed.DJANGO_INIT_PATH = Path("/nonexistent/django-stubs/__init__.pyi")
    registered = plugin_manager._registered_plugins  # type: ignore[attr-defined]
    registered[:] = [p for p in registered if p is not django_plugin]
    plugin_manager._build_functions()  # type: ignore[attr-defined]


def jedi_calls(root: Path, paths: list[str], symbols: Symbols) -> tuple[list[JediAnswer], Counter[str]]:
    import jedi
    import parso.cache

    # The project and the standard library only, in this process: an installed copy of the
    # project (pluggy is pytest's dependency) must not be what Jedi finds for its imports, and
    # an inference subprocess that dies takes every later answer with it.
    paths_of = sysconfig.get_paths()
    search = [str(root / "src") if (root / "src").is_dir() else str(root)]
    search += [paths_of["stdlib"], paths_of["platstdlib"], str(Path(paths_of["platstdlib"]) / "lib-dynload")]
    project = jedi.Project(str(root), sys_path=list(dict.fromkeys(search)), smart_sys_path=True)
    environment = jedi.InterpreterEnvironment()
    # parso forgets parsed files past 600 and Jedi then raises KeyError for modules it still
    # holds (most of django's later call sites): keep them all.
    parso.cache._CACHED_SIZE_TRIGGER = 10**9  # type: ignore[attr-defined]
    warnings.filterwarnings("ignore", category=UserWarning, module="jedi")  # "not importable in path"
    answers: list[JediAnswer] = []
    failures: Counter[str] = Counter()
    started = time.monotonic()
    for count, path in enumerate(paths, 1):
        code = (root / path).read_text(encoding="utf-8", errors="replace")
        script = jedi.Script(code=code, path=str(root / path), project=project, environment=environment)
        tree = script._module_node  # Jedi's own parse of the file
        for leaf in _call_names(tree):
            func = _enclosing_def(leaf)
            if func is None:
                continue
            caller = symbols.at(path, func.name.start_pos[0], func.name.value)
            if caller is None:
                continue
            line, column = leaf.start_pos
            try:
                definitions = script.goto(line, column, follow_imports=True)
            except Exception as error:  # Jedi raises on code it cannot follow; count it, go on
                failures[type(error).__name__] += 1
                continue
            if not any(d.type in ("function", "class") for d in definitions):
                # A name bound to a class or a function (`cls(...)`, `self.storage_class(...)`,
                # `handler = view`): what it holds is what is called.
                try:
                    definitions = script.infer(line, column)
                except Exception as error:
                    failures[type(error).__name__] += 1
                    continue
            targets, outside, unnamed = set(), False, 0
            for d in definitions:
                if d.type not in ("function", "class"):
                    continue
                module = d.module_path
                if module is None or not Path(module).is_relative_to(root):
                    # Jedi ships stubs for some projects (django-stubs): a stub of one of the
                    # project's own definitions names it by its full name.
                    if d.full_name in symbols.qualnames:
                        targets.add(d.full_name)
                    else:
                        outside = True
                    continue
                rel = str(Path(module).relative_to(root))
                qualname = symbols.at(rel, d.line, d.name)
                if qualname is None:
                    unnamed += 1
                else:
                    targets.add(qualname)
            answers.append(JediAnswer(caller, (path, line, leaf.value), targets, outside, unnamed))
        if count % 50 == 0:
            print(f"  jedi: {count}/{len(paths)} files, {time.monotonic() - started:.0f} s", file=sys.stderr)
    return answers, failures


def python_files(root: Path, max_files: int | None) -> list[str]:
    skip = {".git", ".tox", ".venv", "node_modules", "build", "dist"}
    paths = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if p.is_file() and not skip.intersection(p.relative_to(root).parts)
    )
    return paths[:max_files] if max_files else paths


def _answer_at(
    site: Site, caller: str, by_site: dict[Site, JediAnswer], by_line: dict[tuple[str, int], list[JediAnswer]]
) -> JediAnswer | None:
    """Jedi's answer for the call branchgraph made at ``site``: the same name on the same
    line, or else the line's only call by that caller (``cls(...)`` is a call of the class)."""
    if site in by_site:
        return by_site[site]
    same_caller = [a for a in by_line.get(site[:2], ()) if a.caller == caller]
    return same_caller[0] if len(same_caller) == 1 else None


def cached_jedi_calls(
    root: Path, paths: list[str], symbols: Symbols, cache: Path | None
) -> tuple[list[JediAnswer], Counter[str]]:
    """Jedi's answers, kept in ``cache`` keyed by the files' bytes, Jedi's version, whether its
    django stubs are on, and branchgraph's symbols (the answers name them; extraction makes
    them, resolution does not change them): a resolver change is scored again in under a
    minute on django, without Jedi."""
    if cache is None:
        return jedi_calls(root, paths, symbols)
    import jedi
    import jedi.inference.gradual.typeshed

    digest = hashlib.sha256(f"{jedi.__version__} {jedi.inference.gradual.typeshed.DJANGO_INIT_PATH}".encode())
    for path in paths:
        digest.update(path.encode() + b"\0" + (root / path).read_bytes() + b"\0")
    digest.update(repr(sorted((p, sorted(rows)) for p, rows in symbols.by_path.items())).encode())
    stored = cache / f"jedi-{digest.hexdigest()[:20]}.pickle"
    if stored.exists():
        print(f"  Jedi's answers from {stored}", file=sys.stderr)
        return pickle.loads(stored.read_bytes())
    found = jedi_calls(root, paths, symbols)
    cache.mkdir(parents=True, exist_ok=True)
    stored.write_bytes(pickle.dumps(found))
    return found


def score(
    name: str, root: Path, paths: list[str], sample: int, dump: Path | None = None, cache: Path | None = None
) -> None:
    started = time.monotonic()
    ours = branchgraph_calls(root, paths)
    ours_s = time.monotonic() - started
    started = time.monotonic()
    answers, failures = cached_jedi_calls(root, paths, ours.symbols, cache)
    jedi_s = time.monotonic() - started

    # Jedi's pairs: from call sites where it names exactly one in-repo definition.
    jedi_pairs: set[tuple[str, str]] = set()
    jedi_pair_sites: dict[tuple[str, str], list[Site]] = defaultdict(list)
    ambiguous_pairs: set[tuple[str, str]] = set()
    by_site: dict[Site, JediAnswer] = {}
    by_line: dict[tuple[str, int], list[JediAnswer]] = defaultdict(list)
    for a in answers:
        by_site[a.site] = a
        by_line[a.site[:2]].append(a)
        if len(a.targets) == 1 and not a.outside and not a.unnamed:
            pair = (a.caller, next(iter(a.targets)))
            jedi_pairs.add(pair)
            jedi_pair_sites[pair].append(a.site)
        else:  # several definitions, or one beside something outside the project
            ambiguous_pairs.update((a.caller, t) for t in a.targets)
    ambiguous_pairs -= jedi_pairs

    found = jedi_pairs & ours.pairs
    recall = len(found) / len(jedi_pairs) if jedi_pairs else 1.0
    confirmed = ours.pairs & (jedi_pairs | ambiguous_pairs)
    precision = len(confirmed) / len(ours.pairs) if ours.pairs else 1.0

    # How each unconfirmed pair of branchgraph's sits with Jedi at its call sites.
    verdicts: dict[tuple[str, str], str] = {}
    for pair in ours.pairs - confirmed:
        kinds = set()
        for site in ours.pair_sites[pair]:
            a = _answer_at(site, pair[0], by_site, by_line)
            if a is None:
                kinds.add("no call site for Jedi")
            elif a.targets:
                kinds.add("Jedi: another in-repo target")
            elif a.outside:
                kinds.add("Jedi: outside the project")
            else:
                kinds.add("Jedi: cannot tell")
        for kind in ("Jedi: another in-repo target", "Jedi: outside the project", "no call site for Jedi"):
            if kind in kinds:
                verdicts[pair] = kind
                break
        else:
            verdicts[pair] = "Jedi: cannot tell"
    contradicted = sum(
        1 for v in verdicts.values() if v in ("Jedi: another in-repo target", "Jedi: outside the project")
    )
    strict = 1 - contradicted / len(ours.pairs) if ours.pairs else 1.0

    silent = sum(1 for a in answers if not a.targets and not a.outside)
    commit = ""
    if (root / ".git").exists():
        commit = " @ " + subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], cwd=root, text=True).strip()
    print(f"\n{name}{commit}: {len(paths)} Python files; branchgraph {ours_s:.1f} s, Jedi {jedi_s:.0f} s")
    print(
        f"  Jedi call sites in functions {len(answers)}: {silent} unanswered, {sum(failures.values())} raised {dict(failures)}"
    )
    print(f"  branchgraph unresolved rate {ours.unresolved_rate:.1%}")
    print(f"  pairs: Jedi {len(jedi_pairs)} (+{len(ambiguous_pairs)} ambiguous), branchgraph {len(ours.pairs)}")
    print(f"  recall    {recall:.3f}  ({len(found)} of Jedi's {len(jedi_pairs)} pairs)")
    print(f"  precision {precision:.3f}  confirmed by Jedi ({len(confirmed)} of {len(ours.pairs)})")
    print(f"            {strict:.3f}  not contradicted by Jedi ({contradicted} contradicted)")
    print(f"  unconfirmed by kind: {dict(Counter(verdicts.values()))}")

    rng = random.Random(7)
    missed = sorted(jedi_pairs - ours.pairs)
    print(f"  missed ({len(missed)}), a sample:")
    for pair in rng.sample(missed, min(sample, len(missed))):
        path, line, callee = jedi_pair_sites[pair][0]
        print(f"    {pair[0]} -> {pair[1]}   {path}:{line} {callee}(...)")
    for kind in (
        "Jedi: another in-repo target",
        "Jedi: outside the project",
        "Jedi: cannot tell",
        "no call site for Jedi",
    ):
        pairs = sorted(p for p, v in verdicts.items() if v == kind)
        if not pairs:
            continue
        print(f"  branchgraph only, {kind} ({len(pairs)}), a sample:")
        for pair in rng.sample(pairs, min(sample, len(pairs))):
            site = ours.pair_sites[pair][0]
            a = _answer_at(site, pair[0], by_site, by_line)
            jedi_says = sorted(a.targets) if a and a.targets else ("outside" if a and a.outside else "-")
            print(f"    {pair[0]} -> {pair[1]}   {site[0]}:{site[1]}  Jedi: {jedi_says}")
    if dump is not None:
        # Every disagreement with its call sites, to read by category rather than by sample.
        rows = [{"kind": "missed", "caller": c, "callee": t, "sites": jedi_pair_sites[(c, t)]} for c, t in missed]
        rows += [
            {"kind": verdict, "caller": c, "callee": t, "sites": ours.pair_sites[(c, t)]}
            for (c, t), verdict in sorted(verdicts.items())
        ]
        dump.write_text(json.dumps({"project": name, "root": str(root), "disagreements": rows}, indent=1))
        print(f"  {len(rows)} disagreements written to {dump}")


def unpack_sdist(archive: Path, into: Path) -> Path:
    if archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            z.extractall(into)
    else:
        with tarfile.open(archive) as t:
            t.extractall(into, filter="data")
    (root,) = [p for p in into.iterdir() if p.is_dir()]
    return root


def _dump_path(directory: Path | None, name: str) -> Path | None:
    if directory is None:
        return None
    directory.mkdir(parents=True, exist_ok=True)
    return directory / f"{name}.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", action="append", default=[], help="NAME=GIT_DIR (repeatable)")
    parser.add_argument("--sdist", action="append", default=[], help="PACKAGE=VERSION from PyPI (repeatable)")
    parser.add_argument("--sample", type=int, default=12, help="disagreements shown per kind")
    parser.add_argument("--max-files", type=int, default=None, help="only the first N files (sorted by path)")
    parser.add_argument(
        "--without-django-stubs",
        action="store_true",
        help="Jedi without its bundled django-stubs and django plugin (inference from the source alone)",
    )
    parser.add_argument(
        "--jedi-cache",
        type=Path,
        default=None,
        help="keep Jedi's answers in DIR and reuse them while the files and branchgraph's symbols are the same",
    )
    parser.add_argument(
        "--dump", type=Path, default=None, help="write every disagreement with its sites to DIR/NAME.json"
    )
    args = parser.parse_args()
    try:
        import jedi  # noqa: F401
    except ImportError:
        sys.exit("bench/resolution.py needs Jedi, installed for the benchmark only: pip install jedi")
    if args.without_django_stubs:
        jedi_without_django_knowledge()
    scratch = Path(tempfile.mkdtemp(prefix="branchgraph-resolution-"))
    for spec in args.source:
        name, _, git_dir = spec.partition("=")
        root = scratch / name
        subprocess.run(["git", "clone", "-q", git_dir, str(root)], check=True)
        score(name, root, python_files(root, args.max_files), args.sample, _dump_path(args.dump, name), args.jedi_cache)
    for spec in args.sdist:
        package, _, version = spec.partition("=")
        into = scratch / package
        into.mkdir()
        root = unpack_sdist(fetch_sdist(package, version), into)
        score(
            f"{package} {version}",
            root,
            python_files(root, args.max_files),
            args.sample,
            _dump_path(args.dump, package),
            args.jedi_cache,
        )


if __name__ == "__main__":
    main()
