"""What runs a selection of tests: each test's selector in its runner's own terms, and one
command a runner for the lot.

A pytest node id (``tests/test_x.py::TestX::test_y``), a JUnit class and method as Maven
Surefire's ``-Dtest`` or Gradle's ``--tests`` take them, a Go test function for ``go test
-run`` in its package, and a jest or vitest test's full name (its ``describe`` titles and its
own, space-separated) for ``-t``. Which build tool or runner a repository uses is read from
its files at the indexed commit: ``gradlew`` or ``build.gradle`` over ``pom.xml`` (Maven when
neither), vitest when the nearest ``package.json`` names it (jest otherwise), the directory of
the nearest ``go.mod`` to run ``go test`` from.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from branchgraph.core.languages import language_for_path

# A file of the indexed commit by its path (None: no such file).
ReadFile = Callable[[str], bytes | None]
_GRADLE_BUILDS = ("build.gradle", "build.gradle.kts")


@dataclass(frozen=True, slots=True)
class RunCommand:
    runner: str  # pytest, maven, gradle, go, jest, vitest, mocha
    command: str  # a shell command line, run from the repository's root
    tests: int  # how many of the selected tests it runs


def selector(path: str, qualname: str, module: str) -> tuple[str, str]:
    """(runner family, the test as it names it) for a test of ``path`` whose qualname
    continues ``module``: pytest, junit, go or js."""
    local = qualname[len(module) + 1 :] if module and qualname.startswith(module + ".") else qualname
    language = language_for_path(path)
    name = language.resolver if language is not None else "python"  # a language's family
    if name == "java":
        *classes, method = local.split(".")
        return "junit", f"{'$'.join(classes)}#{method}" if classes else method
    if name == "go":
        return "go", local
    if name == "ecmascript":
        return "js", local.replace(".", " ")  # a title with a dot reads as two; -t matches both ways
    return "pytest", "::".join([path, *local.split(".")])


def run_commands(tests: Sequence[tuple[str, str, str]], read_file: ReadFile) -> list[RunCommand]:
    """One command a runner for the (path, runner family, selector) of each selected test."""
    read_file = functools.cache(read_file)  # the tests of a folder look up the same manifests
    by_family: dict[str, list[tuple[str, str]]] = {}
    for path, family, name in tests:
        by_family.setdefault(family, []).append((path, name))
    out: list[RunCommand] = []
    if "pytest" in by_family:
        chosen = by_family["pytest"]
        out.append(RunCommand("pytest", "pytest " + " ".join(shlex.quote(name) for _, name in chosen), len(chosen)))
    if "junit" in by_family:
        out.extend(_junit(by_family["junit"], read_file))
    if "go" in by_family:
        out.extend(_go(by_family["go"], read_file))
    if "js" in by_family:
        out.extend(_js(by_family["js"], read_file))
    return out


def _junit(chosen: list[tuple[str, str]], read_file: ReadFile) -> list[RunCommand]:
    """Gradle's ``--tests pkg.Class.method`` for each test, a subproject's ``test`` task each
    (``:core:test``: a filter that matches nothing in a subproject fails its task), or
    Surefire's ``-Dtest`` with a class's methods joined by ``+``."""
    wrapper = read_file("gradlew") is not None
    if wrapper or any(read_file(name) is not None for name in _GRADLE_BUILDS):
        gradle = "./gradlew" if wrapper else "gradle"
        by_project: dict[str, list[str]] = {}
        for path, name in chosen:
            builds = [d for d, data in (_nearest(path, b, read_file) for b in _GRADLE_BUILDS) if data is not None]
            project = max(builds, key=len, default="")  # the nearest build file's folder
            by_project.setdefault(project, []).append(_qualified(path, name))
        out = []
        for project, names in sorted(by_project.items()):
            task = f":{project.replace('/', ':')}:test" if project else "test"
            filters = " ".join(f"--tests {shlex.quote(n)}" for n in names)
            out.append(RunCommand("gradle", f"{gradle} {task} {filters}", len(names)))
        return out
    methods: dict[str, list[str]] = {}
    for _path, name in chosen:
        cls, _, method = name.partition("#")
        methods.setdefault(cls, []).append(method)
    spec = ",".join(f"{cls}#{'+'.join(sorted(set(ms)))}" for cls, ms in sorted(methods.items()))
    # A module without any of the named tests must not fail the build (a multi-module project).
    command = f"mvn test -Dsurefire.failIfNoSpecifiedTests=false -Dtest={shlex.quote(spec)}"
    return [RunCommand("maven", command, len(chosen))]


def _qualified(path: str, name: str) -> str:
    """``pkg.Outer$Inner.method`` for Gradle, from the test's file and its Surefire name."""
    language = language_for_path(path)
    package = language.conventions.module_name(path) if language is not None else ""
    cls, _, method = name.partition("#")
    return ".".join(part for part in (package, cls, method) if part)


def _nearest(path: str, marker: str, read_file: ReadFile) -> tuple[str, bytes | None]:
    """The directory of the file's nearest ``marker`` (``go.mod``, ``package.json``) at or
    above it, and that file's bytes; the root when there is none."""
    parts = path.split("/")[:-1]
    for depth in range(len(parts), -1, -1):
        directory = "/".join(parts[:depth])
        data = read_file(f"{directory}/{marker}" if directory else marker)
        if data is not None:
            return directory, data
    return "", None


def _in(directory: str, command: str) -> str:
    return f"(cd {shlex.quote(directory)} && {command})" if directory else command


def _go(chosen: list[tuple[str, str]], read_file: ReadFile) -> list[RunCommand]:
    """``go test ./pkg -run '^(TestA|TestB)$'`` a package, from its module's directory."""
    by_package: dict[tuple[str, str], set[str]] = {}
    for path, name in chosen:
        module_dir, _ = _nearest(path, "go.mod", read_file)
        package_dir = path.rsplit("/", 1)[0] if "/" in path else ""
        relative = package_dir[len(module_dir) :].lstrip("/") if module_dir else package_dir
        by_package.setdefault((module_dir, relative), set()).add(name.split(".", 1)[0])
    out = []
    for (module_dir, relative), names in sorted(by_package.items()):
        pattern = "^(" + "|".join(sorted(names)) + ")$"
        command = (
            f"go test ./{relative} -run {shlex.quote(pattern)}"
            if relative
            else f"go test . -run {shlex.quote(pattern)}"
        )
        out.append(RunCommand("go", _in(module_dir, command), len(names)))
    return out


# How each runner is asked for some files' tests whose full titles match a pattern.
_JS_RUNS = {"vitest": ("npx vitest run", "-t"), "jest": ("npx jest", "-t"), "mocha": ("npx mocha", "--grep")}


def _js_runner(manifest: bytes) -> str:
    """The runner a package.json names: vitest, else mocha when it names no jest, else jest."""
    if b'"vitest"' in manifest:
        return "vitest"
    return "mocha" if b'"mocha"' in manifest and b'"jest"' not in manifest else "jest"


def _js(chosen: list[tuple[str, str]], read_file: ReadFile) -> list[RunCommand]:
    """``npx vitest run FILES -t PATTERN`` (jest's ``-t``, mocha's ``--grep``) a package: the
    pattern matches each selected test's full name, and the tests inside a selected
    ``describe``."""
    by_package: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    for path, name in chosen:
        directory, manifest = _nearest(path, "package.json", read_file)
        runner = _js_runner(manifest or b"")
        by_package.setdefault(directory, (runner, []))[1].append((path, name))
    out = []
    for directory, (runner, tests) in sorted(by_package.items()):
        files = sorted({path[len(directory) :].lstrip("/") if directory else path for path, _ in tests})
        titles = sorted({name for _, name in tests})
        pattern = "^(" + "|".join(re.escape(t).replace(r"\ ", "[ .]") for t in titles) + ")( |$)"
        run, flag = _JS_RUNS[runner]
        command = f"{run} {' '.join(shlex.quote(f) for f in files)} {flag} {shlex.quote(pattern)}"
        out.append(RunCommand(runner, _in(directory, command), len(tests)))
    return out
