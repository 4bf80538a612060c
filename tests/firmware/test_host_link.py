"""The firmware's host build as a process on a pty against the Python host link, in real
time: the damage of tests/firmware_bridge/test_link_lossy.py between them.

The firmware runs in echo mode: every message it delivers it sends back, so one run checks
both directions, each exactly once and in order, over a line that corrupts bytes, drops
and duplicates 1 % of frames and feeds the firmware a byte per write. Real time makes each
lost frame cost a retransmission timeout, so this tier sends 1,000 each way with 0.2 %
byte corruption; the full 10,000 each way at 1 % runs in simulated time against the same
C link in test_c_link_lossy.py.
"""

from __future__ import annotations

import random
import time

from firmware_bridge.protocol import Link, LinkConfig, LinkState, Message, Role

from ..firmware_bridge.lossy_channel import Damage, LossyChannel
from ..firmware_bridge.test_link_lossy import _messages
from .host_firmware import HostFirmware, pump

# Ten times the board's line rate: the same bytes and damage, a tenth of the wall time.
BAUD = 1_152_000


def _run(damage: Damage, count: int, seed: int) -> tuple[Link, dict[str, int], list[Message]]:
    rng = random.Random(seed)
    fw = HostFirmware("--echo")
    link = Link(LinkConfig(role=Role.HOST), session=0x1111)
    to_fw = LossyChannel(rng, damage, baud=BAUD, latency=0.001)
    from_fw = LossyChannel(rng, damage, baud=BAUD, latency=0.001)
    sent = _messages("pi", count)
    queued = 0

    def done(got: list[Message], now: float) -> bool:
        nonlocal queued
        while queued < count and link.queued < 4:
            link.send(sent[queued], now)
            queued += 1
        return len(got) >= count and link.idle

    try:
        got = pump(link, fw, to_fw, from_fw, done, limit=240.0)
        time.sleep(0.05)  # the firmware's last ack
    finally:
        counters = fw.stop()
    assert got == sent
    return link, counters, got


COUNT = 1000


def test_messages_each_way_through_the_firmware_process_over_a_damaged_line() -> None:
    damage = Damage(corrupt_byte=0.002, drop_frame=0.01, duplicate_frame=0.01)
    link, fw, _ = _run(damage, COUNT, 20240601)
    assert link.state is LinkState.UP
    # Both ends saw the damage and repaired it.
    c = link.counters
    assert c.bad_crc + c.bad_cobs + c.runts > 0 and c.retransmits > 0 and c.duplicates > 0
    assert fw["bad_crc"] + fw["bad_cobs"] + fw["runts"] > 0
    assert fw["resyncs"] > 0 and fw["retransmits"] > 0 and fw["duplicates"] > 0
    assert fw["messages_delivered"] == COUNT and fw["messages_sent"] == COUNT
    assert fw["failures"] == 0


def test_clean_line_no_repairs_needed() -> None:
    _, fw, _ = _run(Damage(), 2000, 1)
    assert fw["messages_delivered"] == 2000
    assert fw["bad_crc"] == fw["bad_cobs"] == fw["runts"] == fw["failures"] == 0
