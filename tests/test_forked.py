"""A build split between the process and a forked child gives exactly the sequential build."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from gitrepo import read_tree
from graph_view import parse_sources

from branchgraph.ingest import forked, resolution
from branchgraph.ingest.resolvers import resolve_update

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def lone_thread(monkeypatch):
    """Threads other tests of the run leave idle would keep a fork from happening (``can_fork``)."""
    monkeypatch.setattr(forked.threading, "active_count", lambda: 1)


@pytest.mark.parametrize("fixture", ["shop", "webshop", "goshop", "javashop", "fullstack"])
def test_a_forked_build_equals_the_sequential_one(fixture, monkeypatch, lone_thread):
    files, project = parse_sources(read_tree(FIXTURES / fixture))
    monkeypatch.setenv("BRANCHGRAPH_NO_FORK", "1")
    sequential = resolve_update("shop", "main", files, project)

    files, project = parse_sources(read_tree(FIXTURES / fixture))  # a resolver marks the symbols it reads (test flags)
    monkeypatch.delenv("BRANCHGRAPH_NO_FORK")
    monkeypatch.setattr(resolution, "_FORK_MIN_FILES", 2)
    monkeypatch.setattr(forked, "_RUN", 1)
    parts: list[int] = []

    def counted(*args, **kwargs):
        done = forked.split_work(*args, **kwargs)
        parts.append(len(done))
        return done

    monkeypatch.setattr(resolution, "split_work", counted)
    split = resolve_update("shop", "main", files, project)

    assert 2 in parts, "no build was split across a fork"
    assert split.subgraphs == sequential.subgraphs
    assert split.records == sequential.records
    assert split.counts == sequential.counts


def _twice(items: list[int]) -> list[int]:
    return [2 * i for i in items]


def test_split_work_covers_every_item_once(lone_thread):
    parts = forked.split_work(list(range(100)), _twice, min_items=10)
    assert len(parts) == 2
    assert sorted(x for part in parts for x in part) == [2 * i for i in range(100)]


def test_small_work_stays_in_the_process():
    assert forked.split_work([1, 2, 3], _twice, min_items=10) == [[2, 4, 6]]


def test_no_fork_while_another_thread_runs():
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not forked.can_fork()
        assert forked.split_work(list(range(100)), _twice, min_items=10) == [_twice(list(range(100)))]
    finally:
        release.set()
        other.join()


def test_a_child_that_fails_has_its_part_done_here(lone_thread, caplog):
    parent = os.getpid()

    def fails_in_child(items: list[int]) -> list[int]:
        if os.getpid() != parent:
            raise RuntimeError("child broke")
        return _twice(items)

    parts = forked.split_work(list(range(80)), fails_in_child, min_items=10)
    assert sorted(x for part in parts for x in part) == [2 * i for i in range(80)]
    assert "its part runs in this process" in caplog.text


def test_a_child_that_dies_has_its_part_done_here(lone_thread, caplog):
    parent = os.getpid()

    def dies_in_child(items: list[int]) -> list[int]:
        if os.getpid() != parent:
            os._exit(9)
        return _twice(items)

    parts = forked.split_work(list(range(80)), dies_in_child, min_items=10)
    assert sorted(x for part in parts for x in part) == [2 * i for i in range(80)]
    assert "its part runs in this process" in caplog.text
