"""The service's full GC passes at quiet moments: survivors frozen (the automatic passes
during play skip them), and nothing leaks: a cycle that dies after being frozen is still
collected by the next quiet pass."""

from __future__ import annotations

import gc
import weakref

from controller.process.gc_pauses import collect_and_freeze


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
