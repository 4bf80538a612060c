"""The service's full GC passes at quiet moments: survivors frozen (the automatic passes
during play skip them), and nothing leaks: a cycle that dies after being frozen is still
collected by the next quiet pass; and the heap it frees is given back to the system."""

from __future__ import annotations

import gc
import os
import weakref

from controller.process.gc_pauses import collect_and_freeze
from tests.controller.service_probe import rss_bytes


class Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


def test_frozen_cycles_are_freed_by_the_next_quiet_pass() -> None:
    try:
        node = Node()
        ref = weakref.ref(node)
        collect_and_freeze()
        assert gc.get_freeze_count() > 0
        del node
        gc.collect()  # an automatic-style pass skips frozen objects
        assert ref() is not None
        collect_and_freeze()
        assert ref() is None
    finally:
        gc.unfreeze()


def _rss_kb() -> int:
    return rss_bytes(os.getpid()) // 1024


def test_a_quiet_pass_gives_the_freed_heap_back() -> None:
    # 60 MB in blocks past pymalloc's 512 bytes (glibc's heap), one in 200 kept so that
    # the heap's top never empties: glibc alone keeps the freed pages resident
    blocks = [bytes(2000) for _ in range(30_000)]
    kept = blocks[::200]
    del blocks
    before = _rss_kb()
    try:
        collect_and_freeze()
    finally:
        gc.unfreeze()
    assert before - _rss_kb() > 30_000, "the freed 60 MB stayed resident"
    assert len(kept) == 150
