"""The garbage collector's schedule of `ttr serve` (ttr.server.collector): young collections on a clock, what
lives frozen out of the collector's sight, reference cycles still freed."""

from __future__ import annotations

import gc
import os
import time
import weakref

import pytest

from ttr.server.collector import THRESHOLDS, Collector, malloc_trim


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[Node, weakref.ref[Node]]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(b)


@pytest.fixture
def restore_gc():
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()  # the rest of the test session sees every object again
    gc.set_threshold(*thresholds)


def test_young_collections_run_on_a_clock_and_freeze_what_lives(restore_gc):
    collector = Collector(interval=0.02, full_every=0).start()
    try:
        assert gc.get_threshold() == THRESHOLDS
        kept = [[i] for i in range(100)]  # alive at the next tick: frozen then
        deadline = time.monotonic() + 5
        while collector.young < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert collector.young >= 3 and collector.full == 0  # full_every=0: never
        assert gc.get_freeze_count() > 0
        tracked = {id(o) for o in gc.get_objects()}
        assert not any(id(x) in tracked for x in kept)  # out of the collector's sight, still alive
        assert kept[99] == [99]
    finally:
        collector.stop()


def test_a_young_cycle_is_freed_at_the_next_tick(restore_gc):
    collector = Collector(interval=0, full_every=0)
    a, ref = cycle()
    del a
    assert ref() is not None  # reference counting alone cannot free a cycle
    assert collector.tick() >= 2
    assert ref() is None and collector.young == 1


def test_a_frozen_cycle_that_dies_later_waits_for_the_whole_heap_collection(restore_gc):
    """(After 60 s of a 300-game load such a collection found 24 objects to free: little waits for it.)"""
    collector = Collector(interval=0, full_every=3600)
    a, ref = cycle()
    collector.tick()  # alive now: frozen
    del a
    collector.tick()
    assert ref() is not None  # young collections no longer look at it
    assert collector.collect_all() >= 2
    assert ref() is None and collector.full == 1


def test_the_whole_heap_collection_comes_when_due(restore_gc):
    collector = Collector(interval=0, full_every=0.05)
    collector.tick()
    assert (collector.young, collector.full) == (1, 0)
    time.sleep(0.06)
    collector.tick()
    assert (collector.young, collector.full) == (1, 1)


def rss_anon_kib() -> int:
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("RssAnon:"))


@pytest.mark.skipif(malloc_trim() is None or not os.path.exists("/proc/self/status"), reason="needs glibc and Linux /proc")
def test_the_allocators_free_pages_go_back_to_the_system():
    """80 MB of blocks freed below one that lives stay resident (glibc keeps them for reuse) until the trim."""
    blocks = [bytes(4000) for _ in range(20_000)]  # > 512 bytes: the C allocator's, not Python's own pools
    keep = bytes(4000)  # allocated after them: the freed ones are not at the top of the heap
    del blocks
    before = rss_anon_kib()
    collector = Collector(interval=0, full_every=0, trim_every=3600)
    collector.trim()
    assert collector.trims == 1
    assert before - rss_anon_kib() > 40_000, (before, rss_anon_kib())
    assert keep == bytes(4000)


def test_no_trim_when_told_not_to():
    collector = Collector(interval=0, full_every=0, trim_every=0)
    assert collector._trim is None
