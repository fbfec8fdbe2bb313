"""Type-check the package with mypy (settings in pyproject.toml: strict on the foundation and
the stores). Run by the README's test command before pytest; exits with mypy's status.

The import names (``branchgraph.core``) differ from the folders (``core/``), and mypy finds
modules by folder, so it checks a tree of symlinks laid out as the installed package (from
pyproject's package-dir) and reports the repository's own paths.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent


def link_tree(target: Path) -> dict[str, str]:
    """Lay the package out under ``target`` as symlinks; return link path -> repository path."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    mapping: dict[str, str] = {}
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        for source in sorted((ROOT / folder).rglob("*.py")):
            link = target.joinpath(*package.split("."), source.relative_to(ROOT / folder))
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(source)
            mapping[str(link)] = str(source.relative_to(ROOT))
            # mypy prints paths below the working directory relative to it.
            if link.is_relative_to(Path.cwd()):
                mapping[str(link.relative_to(Path.cwd()))] = str(source.relative_to(ROOT))
    return mapping


def main() -> int:
    cache = ROOT / ".mypy_cache"
    # A fixed place: mypy's cache replays unchanged files' errors under the paths it saw first.
    tree = cache / "package-tree"
    shutil.rmtree(tree, ignore_errors=True)
    mapping = link_tree(tree)
    stdout, stderr, status = api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(cache), str(tree / "branchgraph")]
    )
    for link, source in sorted(mapping.items(), key=lambda item: -len(item[0])):
        stdout = stdout.replace(link, source)
    sys.stdout.write(stdout)
    sys.stderr.write(stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
