"""The cyclic collector pause: nested and concurrent pauses resume it once, the last one out."""

from __future__ import annotations

import gc
import threading

import pytest

from branchgraph.core.collector import collector_paused


@pytest.fixture(autouse=True)
def _collector_enabled():
    gc.enable()
    yield
    gc.enable()


def test_a_pause_stops_the_collector_and_resumes_it_after_an_error():
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("a failed ingest")
    assert gc.isenabled()


def test_a_nested_pause_leaves_the_outer_one_paused():
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled():
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_overlapping_pauses_in_threads_resume_when_the_last_ends():
    inside, release = threading.Event(), threading.Event()

    def other_ingest() -> None:
        with collector_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other_ingest)
    with collector_paused():
        thread.start()
        assert inside.wait(10)
    assert not gc.isenabled(), "the other thread's pause still runs"
    release.set()
    thread.join(10)
    assert gc.isenabled()
