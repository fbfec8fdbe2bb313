"""What impact analysis keeps of an indexed state of a branch between answers."""

from __future__ import annotations

import threading

import pytest

from branchgraph.impact import state_memo
from branchgraph.impact.state_memo import StateMemo, memo_for, per_node


def test_complete_reads_are_kept_per_node_and_cut_ones_are_not():
    memo = StateMemo()
    reads: list[list[str]] = []

    def fetch(ids: list[str]) -> tuple[dict[str, list[str]], bool]:
        reads.append(ids)
        return {node: [node + "'s caller"] for node in ids}, True

    found, complete = per_node(memo, "callers", ["b", "a"], fetch)
    assert (found, complete) == ({"a": ["a's caller"], "b": ["b's caller"]}, True)
    found, complete = per_node(memo, "callers", ["a", "c"], fetch)
    assert found == {"a": ["a's caller"], "c": ["c's caller"]} and complete
    assert reads == [["a", "b"], ["c"]]  # only what was not kept is read, in id order

    def cut(ids: list[str]) -> tuple[dict[str, list[str]], bool]:
        reads.append(ids)
        return {node: [] for node in ids}, False

    assert per_node(memo, "callers", ["d"], cut) == ({"d": []}, False)
    assert per_node(memo, "callers", ["d"], cut) == ({"d": []}, False)
    assert reads[-2:] == [["d"], ["d"]]  # a cut read is not what "d" leads to: read again


def test_values_are_computed_once_and_bounded_by_the_entries_kept(monkeypatch):
    memo = StateMemo()
    calls = []
    assert memo.value("files", lambda: calls.append(1) or ["f.py"]) == ["f.py"]
    assert memo.value("files", lambda: calls.append(1) or ["g.py"]) == ["f.py"]
    assert calls == [1]
    monkeypatch.setattr(state_memo, "_ENTRIES_KEPT", 10)
    memo.put("big", "x", entries=11)
    assert memo.get("big") is None  # no room: used once by whoever read it
    memo.keep("callers", {"a": list(range(10))})
    memo.keep("callers", {"b": [1]})
    assert memo.kept("callers", ["a", "b"]) == {"a": list(range(10))}


def test_each_indexed_state_has_its_own_memo_and_only_the_latest_are_kept():
    first = memo_for("shop", "main", "c1 2026-12-02T10:00:00")
    assert memo_for("shop", "main", "c1 2026-12-02T10:00:00") is first
    assert memo_for("shop", "main", "c2 2026-12-02T11:00:00") is not first  # indexed again
    assert memo_for("shop", "main", None) is not memo_for("shop", "main", None)  # unnamed: one answer
    for n in range(state_memo._STATES_KEPT):
        memo_for("shop", f"branch-{n}", "c")
    assert memo_for("shop", "main", "c1 2026-12-02T10:00:00") is not first  # pushed out by newer ones


def test_a_value_read_ahead_is_waited_for_and_not_read_twice():
    memo = StateMemo()
    started, release = threading.Event(), threading.Event()
    reads = []

    def slow_read() -> list[str]:
        started.set()
        release.wait(5)
        reads.append("ahead")
        return ["tests/test_a.py"]

    memo.read_ahead("test_files", slow_read)
    memo.read_ahead("test_files", slow_read)  # already under way: not started again
    assert started.wait(5)
    threading.Timer(0.05, release.set).start()
    assert memo.value("test_files", lambda: reads.append("again") or ["other"]) == ["tests/test_a.py"]
    assert reads == ["ahead"]


def test_a_failed_read_ahead_fails_again_where_the_value_is_needed():
    memo = StateMemo()

    def dead_server() -> list[str]:
        raise ConnectionError("neo4j is down")

    memo.read_ahead("test_files", dead_server)
    with pytest.raises(ConnectionError, match="down"):
        memo.value("test_files", dead_server)
    assert memo.value("test_files", lambda: ["back"]) == ["back"]
