"""What resolving a file read of the rest of the commit, so an update re-resolves only the
files whose reads a change touched (``ingest.incremental``).

A read is a file path (any table keyed by it: its definitions, bindings, attributes) or a
tagged key for a table keyed otherwise: ``("m", name)`` a module name looked up (found or
not), ``("fx", where)`` the fixtures of a folder or file, ``("sub", key)`` a class's
subclasses, ``("n", name)`` a member name looked for, ``("pkg", package)`` a Go package's
declarations, ``("glob", name)`` a name another script may set on the global object,
``INTERFACES`` every interface, ``JSX_ELEMENT`` the declarations of JSX's element type,
``PROJECT`` the project files.
Memoised resolutions keep their reads and hand them to every later user, so a file's log
holds what its answers depend on, whoever computed them first.

An answer computed while a key it needs was itself being computed (a cycle, which the memo
breaks by answering None) depends on where the cycle was entered; such answers are not
memoised, so every file gets the answer a fresh ingest gives it, in any order of files.
"""

from __future__ import annotations

from typing import Any

from branchgraph.core.model import BRANCH_PREFIX_LEN

ReadKey = str | tuple[str, str]

MODULE = "m"
FIXTURES = "fx"
SUBCLASSES = "sub"
MEMBER_NAME = "n"  # a member name looked for among all the commit's definitions
PACKAGE = "pkg"  # a Go package: what its files declare together
GLOBAL = "glob"  # a name looked for on the global object (`window.x = ...` in some script)
INTERFACES: tuple[str, str] = ("interfaces", "")  # every interface of the commit (Go: implicit ones)
# Where the commit declares the element type of JSX (`namespace JSX { type Element = ... }`).
JSX_ELEMENT: tuple[str, str] = ("jsx", "")
# The project files a family's resolver read (tsconfig.json, package.json): every file's
# resolution depends on them.
PROJECT: tuple[str, str] = ("project", "")

# Stored keys are strings; a tag is separated from its name by a character no path holds.
_TAG_SEPARATOR = "\x1f"


class ReadLog:
    """A stack of frames, each the reads (and the in-progress keys hit) of one computation."""

    __slots__ = ("frames", "taints")

    def __init__(self) -> None:
        self.frames: list[set[ReadKey]] = []
        self.taints: list[set[tuple]] = []

    def add(self, key: ReadKey) -> None:
        if self.frames:
            self.frames[-1].add(key)

    def update(self, keys: frozenset[ReadKey] | set[ReadKey]) -> None:
        if self.frames and keys:
            self.frames[-1].update(keys)

    def push(self) -> None:
        self.frames.append(set())
        self.taints.append(set())

    def pop(self) -> tuple[set[ReadKey], set[tuple]]:
        """The finished frame's reads and taints, both also added to the frame below."""
        reads, taints = self.frames.pop(), self.taints.pop()
        if self.frames:
            self.frames[-1].update(reads)
            self.taints[-1].update(taints)
        return reads, taints

    def hit_in_progress(self, key: tuple) -> None:
        """The frame depends on ``key``, still being computed further down the stack."""
        if self.taints:
            self.taints[-1].add(key)


class _LoggedTable(dict):
    """A table whose lookups are logged (``_logged`` says under which key)."""

    __slots__ = ("_log", "_tag")

    def __init__(self, log: ReadLog, tag: str | None = None) -> None:
        super().__init__()
        self._log = log
        self._tag = tag

    def _logged(self, key: Any) -> None:
        raise NotImplementedError

    def get(self, key: Any, default: Any = None) -> Any:
        self._logged(key)
        return dict.get(self, key, default)

    def __getitem__(self, key: Any) -> Any:
        self._logged(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self._logged(key)
        return dict.__contains__(self, key)


class TrackedTable(_LoggedTable):
    """A table keyed by (path, ...) whose reads are logged by path (or keyed by (name, ...),
    logged under a tag: a Go package's types)."""

    __slots__ = ()

    def _logged(self, key: Any) -> None:
        if self._log.frames and isinstance(key, tuple):
            self._log.frames[-1].add(key[0] if self._tag is None else (self._tag, key[0]))


class TaggedTable(_LoggedTable):
    """A table keyed by one name (a path, a module, a folder) whose reads are logged under a
    tag (no tag: the key is a path)."""

    __slots__ = ()

    def _logged(self, key: Any) -> None:
        if self._log.frames:
            self._log.frames[-1].add(key if self._tag is None else (self._tag, key))


class TaggedSet(set):
    """A set of names whose membership tests are logged under a tag."""

    __slots__ = ("_log", "_tag")

    def __init__(self, log: ReadLog, tag: str) -> None:
        super().__init__()
        self._log = log
        self._tag = tag

    def __contains__(self, key: object) -> bool:
        if self._log.frames:
            self._log.frames[-1].add((self._tag, str(key)))
        return set.__contains__(self, key)


def dotted_prefixes(name: str) -> list[str]:
    """``a.b.c`` -> ``a``, ``a.b``, ``a.b.c``: a module or package name and the ones it is
    inside (``import a.b`` binds ``a``)."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def symbol_key(symbol_id: str) -> str:
    """A symbol's id without its branch part: the same on every branch."""
    return symbol_id[BRANCH_PREFIX_LEN:]


def stored_key(key: ReadKey) -> str:
    return key if isinstance(key, str) else f"{key[0]}{_TAG_SEPARATOR}{key[1]}"


class ModuleTable(TaggedTable):
    """Module name -> its file: a lookup is logged under the name (found or not), and a found
    module also as its file's path, whose contents the finder goes on to read."""

    __slots__ = ()

    def get(self, key: Any, default: Any = None) -> Any:
        found = super().get(key, default)
        if found is not None and self._log.frames:
            self._log.frames[-1].add(found.path)
        return found


class LazyTrackedTable(TrackedTable):
    """A ``TrackedTable`` whose rows of a path are filled the first time any is read
    (``ensure(path)`` fills them): an update indexes only the files it reaches."""

    __slots__ = ("_ensure",)

    def __init__(self, log: ReadLog, ensure: Any, tag: str | None = None) -> None:
        super().__init__(log, tag)
        self._ensure = ensure

    def _logged(self, key: Any) -> None:
        self._ensure(key[0])  # every lookup passes here first
        super()._logged(key)


class LazyTaggedTable(TaggedTable):
    """A ``TaggedTable`` whose row of a key is filled the first time it is read."""

    __slots__ = ("_ensure",)

    def __init__(self, log: ReadLog, ensure: Any, tag: str | None = None) -> None:
        super().__init__(log, tag)
        self._ensure = ensure

    def _logged(self, key: Any) -> None:
        self._ensure(key)
        super()._logged(key)
