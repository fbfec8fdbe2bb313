"""Python module naming for the resolver: pure functions of a path or a name."""

from __future__ import annotations

import builtins

# Re-exported: the resolver names modules the way the language registry does.
from branchgraph.core.languages.python import module_name as module_name

BUILTIN_NAMES = frozenset(dir(builtins))


def is_package_init(path: str) -> bool:
    return path.rsplit("/", 1)[-1] in ("__init__.py", "__init__.pyi")


def package_of(path: str) -> str:
    """The package a module belongs to (what relative imports are relative to)."""
    name = module_name(path)
    if is_package_init(path):
        return name
    return name.rsplit(".", 1)[0] if "." in name else ""


def absolute_module(importer_path: str, written: str) -> str:
    """Turn ``..pkg.mod`` written in ``importer_path`` into an absolute dotted name."""
    level = len(written) - len(written.lstrip("."))
    rest = written[level:]
    if level == 0:
        return rest
    base = package_of(importer_path).split(".") if package_of(importer_path) else []
    if level > 1:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    return ".".join([*base, rest] if rest else base)
