"""Work split between the process and a forked child of it, for CPU-bound stages that read a
large in-memory state the child inherits instead of receiving it (a resolver's index)."""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

log = logging.getLogger(__name__)

# Items are dealt to the two sides in runs this long: neighbours (files of one package) share
# memoised lookups, and alternating runs keep both sides' shares of large and small files even.
_RUN = 32


def can_fork() -> bool:
    """A fork copies only the calling thread: with others running (a server's request
    threads, a base branch's copy), a lock one of them holds would never be released in the
    child, so there is no fork then — nor where the platform has none or is not told to."""
    return (
        "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and os.environ.get("BRANCHGRAPH_NO_FORK", "") == ""
    )


def split_work(
    items: Sequence[T],
    work: Callable[[list[T]], R],
    min_items: int,
    encode: Callable[[R], object] = lambda result: result,
    decode: Callable[[Any], R] = lambda sent: sent,
) -> list[R]:
    """``work`` over two parts of ``items``, one in a forked child while the other runs here;
    ``[work(items)]`` when there are fewer than ``min_items`` or no fork (``can_fork``). The
    child's part comes back pickled as ``encode`` makes it (plain tuples pickle several times
    faster than objects) and ``decode`` takes it back; ``work`` must change nothing the caller
    reads afterwards (the child's changes stay in the child). A child that fails or dies has
    its part done here instead."""
    if len(items) < min_items or not can_fork():
        return [work(list(items))]
    mine: list[T] = []
    theirs: list[T] = []
    for i, item in enumerate(items):
        (theirs if (i // _RUN) % 2 else mine).append(item)
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(lambda part: encode(work(part)), theirs, sender), daemon=True)
    child.start()
    sender.close()
    try:
        here = work(mine)
        try:
            ok, there = receiver.recv()
        except (EOFError, OSError):
            ok, there = False, "the child exited without an answer"
    finally:
        receiver.close()
        child.join()
    if not ok:
        log.warning("forked work failed (%s); its part runs in this process", there)
        return [here, work(theirs)]
    return [here, decode(there)]


def _child(work: Callable[[list[T]], object], items: list[T], sender: Connection) -> None:
    try:
        answer: tuple[bool, object] = (True, work(items))
    except BaseException as error:  # reported to the parent, which redoes the part
        answer = (False, repr(error))
    sender.send(answer)
    sender.close()
