"""The link over a damaged, byte-at-a-time line delivers every message exactly once, in order."""

from __future__ import annotations

import random

from firmware_bridge.protocol import (
    Link,
    LinkSettings,
    LinkState,
    Role,
)
from tests.firmware_bridge.lossy_channel import COUNT, Damage, Simulation, messages_for


def test_10k_messages_each_way_exactly_once_in_order_over_damaged_line() -> None:
    rng = random.Random(20240601)
    damage = Damage(corrupt_byte=0.01, drop_frame=0.01, duplicate_frame=0.01)
    a = Link(LinkSettings(role=Role.HOST), session=0x1111)
    b = Link(LinkSettings(role=Role.TABLE_BOARD), session=0x2222)
    sim = Simulation(a, b, rng, damage)
    to_b, to_a = messages_for("pi", COUNT), messages_for("board", COUNT)
    sent = {"a": 0, "b": 0}

    def feed() -> bool:
        # Keep a few messages queued on each side, like a busy application would.
        for name, link, msgs in (("a", a, to_b), ("b", b, to_a)):
            while sent[name] < COUNT and link.queued < 4:
                link.send(msgs[sent[name]], sim.now)
                sent[name] += 1
        return len(sim.got_a) >= COUNT and len(sim.got_b) >= COUNT and a.idle and b.idle

    sim.run_until(feed, limit=3600.0)

    assert sim.got_b == to_b
    assert sim.got_a == to_a
    assert a.state is LinkState.UP and b.state is LinkState.UP
    # The damage really happened, and the link noticed and repaired it.
    assert sim.ab.bytes_corrupted > 0 and sim.ab.frames_dropped > 0
    assert sim.ab.frames_duplicated > 0
    for link in (a, b):
        c = link.counters
        assert c.bad_crc + c.bad_cobs + c.runts > 0
        assert c.resyncs > 0
        assert c.retransmits > 0
        assert c.duplicates > 0
        assert c.messages_delivered == COUNT
