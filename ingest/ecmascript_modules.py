"""Where an ECMAScript import specifier leads: a file of the repository, a package outside it,
or nowhere known.

The lookup follows what TypeScript's ``bundler``/``node`` resolution does for the files a
repository holds: relative specifiers with or without an extension (``./a.js`` also finds
``a.ts``) and directory ``index`` files; ``tsconfig.json``/``jsconfig.json`` ``baseUrl`` and
``paths`` aliases of the nearest config (following ``extends`` inside the repository); and
packages of the repository itself (every ``package.json`` with a ``name``: npm, yarn and pnpm
workspaces alike) through their ``source``/``types``/``module``/``main``/``exports`` entry or
``src/index``. Anything else bare is an npm package, hence external.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from branchgraph.core.languages.ecmascript import SOURCE_EXTENSIONS

_CONFIG_NAMES = ("tsconfig.json", "jsconfig.json")
_ENTRY_FIELDS = ("source", "types", "typings", "module", "main")
# Build output a package's entry points at; the sources usually sit under src/ instead.
_BUILD_DIRS = ("dist/", "lib/", "build/", "out/", "esm/", "cjs/")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_COMMENT_OR_STRING = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_MAX_EXTENDS = 10


@dataclass(frozen=True, slots=True)
class External:
    """A specifier that leaves the repository: an npm package, a Node built-in, an asset."""

    name: str


def parse_jsonc(data: bytes) -> Any:
    """JSON with comments and trailing commas (tsconfig.json), or None when it is not JSON."""
    text = data.decode("utf-8", "replace")
    text = _COMMENT_OR_STRING.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    try:
        return json.loads(_TRAILING_COMMA.sub(r"\1", text))
    except ValueError:
        return None


def package_name(specifier: str) -> str:
    """The npm package a bare specifier names: ``@scope/pkg/sub`` -> ``@scope/pkg``,
    ``node:fs/promises`` -> ``fs``."""
    specifier = specifier.removeprefix("node:")
    parts = specifier.split("/")
    return "/".join(parts[:2]) if specifier.startswith("@") and len(parts) > 1 else parts[0]


@dataclass(frozen=True, slots=True)
class _PathAliases:
    base_dir: str | None  # baseUrl, repository-relative ("" is the root)
    paths_dir: str  # what `paths` targets are relative to
    paths: tuple[tuple[str, tuple[str, ...]], ...]  # (pattern, targets), longest prefix first


class ModuleMap:
    """Resolves specifiers for one commit's ECMAScript files."""

    def __init__(self, paths: Iterable[str] | Container[str], project_files: Mapping[str, bytes]):
        # A container is probed as it is (a resolver that logs its reads passes a logged one).
        self.paths: Container[str] = paths if isinstance(paths, Container) else frozenset(paths)
        self._documents = {path: parse_jsonc(data) for path, data in project_files.items() if path.endswith(".json")}
        # Sorted, so a directory's tsconfig.json wins over its jsconfig.json.
        self._config_dirs = {_directory(path): path for path in sorted(self._documents) if _name(path) in _CONFIG_NAMES}
        self._aliases: dict[str, _PathAliases | None] = {}
        self.packages: dict[str, str] = {}  # package name -> its directory
        for path, document in sorted(self._documents.items()):
            if _name(path) == "package.json" and isinstance(document, dict) and isinstance(document.get("name"), str):
                self.packages.setdefault(document["name"], _directory(path))
        self._cache: dict[tuple[str, str], str | External | None] = {}

    def resolve(self, importer: str, specifier: str) -> str | External | None:
        """The repository file ``specifier`` (written in ``importer``) names; an ``External``
        for packages and non-code assets; None for a relative specifier nothing matches."""
        key = (_directory(importer), specifier)
        if key not in self._cache:
            self._cache[key] = self._resolve(importer, specifier)
        return self._cache[key]

    def _resolve(self, importer: str, specifier: str) -> str | External | None:
        if specifier.startswith((".", "/")):
            base = (
                specifier.lstrip("/") if specifier.startswith("/") else posixpath.join(_directory(importer), specifier)
            )
            found = self._file(base)
            if found is None and _is_asset(specifier):
                return External(specifier)
            return found
        aliases = self._aliases_for(importer)
        if aliases is not None:
            for candidate in _alias_candidates(aliases, specifier):
                found = self._file(candidate)
                if found is not None:
                    return found
        found = self._package_file(specifier)
        if found is not None:
            return found
        return External(specifier.removeprefix("node:"))

    def _file(self, base: str) -> str | None:
        """The source file a specifier path stands for: itself, with an extension, with a
        TypeScript extension for a JavaScript one, or its directory's index file."""
        base = posixpath.normpath(base)
        if base.startswith("../") or base == "..":
            return None
        base = "" if base == "." else base
        if base in self.paths:
            return base
        for ext in SOURCE_EXTENSIONS:
            if base + ext in self.paths:
                return base + ext
        stem, ext = posixpath.splitext(base)
        for replacement in _JS_TO_TS.get(ext, ()):
            if stem + replacement in self.paths:
                return stem + replacement
        for ext in SOURCE_EXTENSIONS:
            index = posixpath.join(base, "index" + ext)
            if index in self.paths:
                return index
        return None

    def _package_file(self, specifier: str) -> str | None:
        name = package_name(specifier) if not specifier.startswith("node:") else None
        directory = self.packages.get(name) if name else None
        if directory is None:
            return None
        subpath = specifier[len(name) :].lstrip("/") if name else ""
        if subpath:
            for candidate in (posixpath.join(directory, subpath), posixpath.join(directory, "src", subpath)):
                found = self._file(candidate)
                if found is not None:
                    return found
            return None
        for entry in self._entries(posixpath.join(directory, "package.json")):
            for candidate in _entry_candidates(entry):
                found = self._file(posixpath.join(directory, candidate))
                if found is not None:
                    return found
        return None

    def _entries(self, package_json: str) -> list[str]:
        document = self._documents.get(package_json)
        entries: list[str] = []
        if isinstance(document, dict):
            entries.extend(document[f] for f in _ENTRY_FIELDS if isinstance(document.get(f), str))
            entries.extend(_export_targets(document.get("exports")))
        entries.extend(("src/index", "index"))
        return entries

    def _aliases_for(self, importer: str) -> _PathAliases | None:
        """The path aliases of the nearest tsconfig.json/jsconfig.json above ``importer``."""
        directory = _directory(importer)
        while True:
            config = self._config_dirs.get(directory)
            if config is not None:
                if config not in self._aliases:
                    self._aliases[config] = self._load_aliases(config)
                return self._aliases[config]
            if not directory:
                return None
            directory = _directory(directory)

    def _load_aliases(self, config: str) -> _PathAliases | None:
        base_url: str | None = None
        paths: dict[str, Any] | None = None
        paths_dir = _directory(config)
        current: str | None = config
        for _ in range(_MAX_EXTENDS):  # the child's options win; follow `extends` for the rest
            if current is None:
                break
            document = self._documents.get(current)
            if not isinstance(document, dict):
                break
            found = document.get("compilerOptions")
            options: dict[str, Any] = found if isinstance(found, dict) else {}
            if base_url is None and isinstance(options.get("baseUrl"), str):
                base_url = posixpath.normpath(posixpath.join(_directory(current), options["baseUrl"]))
            if paths is None and isinstance(options.get("paths"), dict):
                paths, paths_dir = options["paths"], _directory(current)
            current = self._extended(current, document.get("extends"))
        if base_url is None and paths is None:
            return None
        base_url = "" if base_url == "." else base_url
        table = tuple(
            sorted(
                (
                    (pattern, tuple(t for t in targets if isinstance(t, str)))
                    for pattern, targets in (paths or {}).items()
                    if isinstance(targets, list)
                ),
                key=lambda item: -len(item[0].split("*", 1)[0]),
            )
        )
        return _PathAliases(base_url, base_url if base_url is not None else paths_dir, table)

    def _extended(self, config: str, extends: Any) -> str | None:
        if isinstance(extends, list):
            extends = extends[0] if extends else None
        if not isinstance(extends, str) or not extends.startswith("."):
            return None  # a config from a package (@tsconfig/node20) holds no aliases of ours
        target = posixpath.normpath(posixpath.join(_directory(config), extends))
        return (
            target if target in self._documents else target + ".json" if target + ".json" in self._documents else None
        )


def _alias_candidates(aliases: _PathAliases, specifier: str) -> list[str]:
    candidates: list[str] = []
    for pattern, targets in aliases.paths:
        prefix, star, suffix = pattern.partition("*")
        if star:
            if specifier.startswith(prefix) and specifier.endswith(suffix) and len(specifier) >= len(prefix + suffix):
                middle = specifier[len(prefix) : len(specifier) - len(suffix)]
                candidates.extend(posixpath.join(aliases.paths_dir, t.replace("*", middle)) for t in targets)
        elif specifier == pattern:
            candidates.extend(posixpath.join(aliases.paths_dir, t) for t in targets)
    if aliases.base_dir is not None:
        candidates.append(posixpath.join(aliases.base_dir, specifier))
    return candidates


def _entry_candidates(entry: str) -> list[str]:
    entry = entry.removeprefix("./")
    candidates = [entry]
    for build in _BUILD_DIRS:
        if entry.startswith(build):
            stem = posixpath.splitext(entry[len(build) :])[0].removesuffix(".d")
            candidates.append(posixpath.join("src", stem))
    return candidates


def _export_targets(exports: Any) -> list[str]:
    """The files a package.json ``exports`` field maps its root to, in condition order."""
    if isinstance(exports, str):
        return [exports]
    if not isinstance(exports, dict):
        return []
    root = exports.get(".", exports if not any(k.startswith(".") for k in exports) else None)
    if isinstance(root, str):
        return [root]
    targets: list[str] = []
    if isinstance(root, dict):
        for value in root.values():
            targets.extend(
                _export_targets(value) if isinstance(value, dict) else [value] if isinstance(value, str) else []
            )
    return targets


def _is_asset(specifier: str) -> bool:
    ext = posixpath.splitext(specifier)[1].lower()
    return bool(ext) and ext not in SOURCE_EXTENSIONS


def _directory(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]
