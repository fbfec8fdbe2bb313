"""What impact analysis read of one indexed state of a branch, kept for the answers that follow
in that state (the HTTP and MCP servers, a benchmark, an agent asking about one change after
another): a branch's graph does not change until the branch is indexed again, and on a large
repository most of an answer's time goes to reading the same central part of it again.

A state is named by whoever knows it (the branch's indexed commit and when it was indexed);
without a name, what is read is kept for one answer only."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")

# The states asked about lately, by (repo, branch, state), and the entries one keeps at most
# (an entry: one symbol reached from another; django's most central change reads 10,000).
_STATES_KEPT = 4
_ENTRIES_KEPT = 500_000
_VALUES_KEPT = 10_000


class StateMemo:
    """Per table, what a node id leads to; and single values computed once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, dict[str, list[Any]]] = {}
        self._values: dict[str, Any] = {}
        self._ahead: dict[str, _Ahead] = {}
        self._entries = 0

    def kept(self, table: str, ids: Iterable[str]) -> dict[str, list[Any]]:
        with self._lock:
            rows = self._tables.get(table, {})
            return {node: rows[node] for node in ids if node in rows}

    def keep(self, table: str, found: dict[str, list[Any]]) -> None:
        with self._lock:
            rows = self._tables.setdefault(table, {})
            for node, entries in found.items():
                if self._entries + len(entries) > _ENTRIES_KEPT:
                    return  # full: later answers read the rest again
                rows[node] = entries
                self._entries += len(entries)

    def get(self, name: str) -> Any | None:
        with self._lock:
            return self._values.get(name)

    def put(self, name: str, value: Any, entries: int = 0) -> None:
        """Keep ``value`` (holding ``entries`` entries, counted with the tables') while there is room."""
        with self._lock:
            if (
                len(self._values) < _VALUES_KEPT
                and self._entries + entries <= _ENTRIES_KEPT
                and name not in self._values
            ):
                self._values[name] = value
                self._entries += entries

    def value(self, name: str, compute: Callable[[], T]) -> T:
        known = self.get(name)
        if known is not None:
            return known
        with self._lock:
            ahead = self._ahead.get(name)
        if ahead is not None:  # being read ahead: wait for it
            found = ahead.result()
            if found is not None:
                return found
        found = compute()  # outside the lock: two threads may compute it once each
        self.put(name, found)
        return found

    def read_ahead(self, name: str, compute: Callable[[], Any]) -> None:
        """Start computing ``value(name, compute)`` in a thread of its own, so that a read an
        answer will need waits on the server while the caller works on something else. A
        failure there is met again, in the caller's thread, by the ``value`` that needs it."""
        with self._lock:
            if name in self._values or name in self._ahead:
                return
            ahead = self._ahead[name] = _Ahead()

        def run() -> None:
            try:
                ahead.found = compute()
                self.put(name, ahead.found)
            except Exception:  # value() computes it again, and raises there
                pass
            finally:
                with self._lock:
                    del self._ahead[name]
                ahead.done.set()

        threading.Thread(target=run, name=f"read-ahead {name}", daemon=True).start()


class _Ahead:
    """A value being read ahead: ``found`` once ``done`` (None after a failure)."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.found: Any = None

    def result(self) -> Any:
        self.done.wait()
        return self.found


_MEMOS: OrderedDict[tuple[str, str, str], StateMemo] = OrderedDict()
_MEMOS_LOCK = threading.Lock()


def memo_for(repo: str, branch: str, state: str | None) -> StateMemo:
    if state is None:
        return StateMemo()
    key = (repo, branch, state)
    with _MEMOS_LOCK:
        memo = _MEMOS.get(key)
        if memo is None:
            memo = _MEMOS[key] = StateMemo()
            while len(_MEMOS) > _STATES_KEPT:
                _MEMOS.popitem(last=False)
        _MEMOS.move_to_end(key)
        return memo


def forget(repo: str, branch: str) -> None:
    """Drop what was kept of the branch's states: its graph changed without a new indexed state
    (coverage evidence imported)."""
    with _MEMOS_LOCK:
        for key in [k for k in _MEMOS if k[:2] == (repo, branch)]:
            del _MEMOS[key]


def per_node(
    memo: StateMemo, table: str, ids: Iterable[str], fetch: Callable[[list[str]], tuple[dict[str, list[T]], bool]]
) -> tuple[dict[str, list[T]], bool]:
    """What each of ``ids`` leads to — what is kept, and ``fetch`` (one read) for the others —
    and whether that is all. ``fetch`` returns an entry list for each id it was given, and
    whether its read was complete: one cut at a row limit is used once, not kept."""
    wanted = set(ids)
    found = memo.kept(table, wanted)
    missing = sorted(wanted - found.keys())
    complete = True
    if missing:
        read, complete = fetch(missing)
        if complete:
            memo.keep(table, read)
        found.update(read)
    return found, complete
