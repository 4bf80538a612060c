"""The firmware's host build as a process on a pty against the Python host link, in real
time: the damage of tests/firmware_bridge/test_link_lossy.py between them.

The firmware runs in echo mode: every message it delivers it sends back, so one run checks
both directions, each exactly once and in order, over a line that corrupts bytes, drops
and duplicates 1 % of frames and feeds the firmware a byte per write. Real time makes each
lost frame cost a retransmission timeout, so this tier sends 3,000 each way with 0.2 %
byte corruption; the full 10,000 each way at 1 % runs in simulated time against the same
C link in test_c_link_lossy.py.
"""

from __future__ import annotations

import random
import subprocess
import time

from firmware_bridge.protocol import (
    ButtonPress,
    DiceResult,
    DiceRoll,
    DisplayText,
    Link,
    LinkConfig,
    LinkState,
    Message,
    Role,
    SeatButton,
    Status,
    TableState,
)

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


COUNT = 3000


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


def test_board_application_on_a_pty_with_its_console_on_stdio() -> None:
    """Without --echo the host build runs the board application: panel lines on stdin,
    what the board displays on stdout — the same code the STM32 runs behind its UARTs."""
    fw = HostFirmware(stdin=subprocess.PIPE)
    link = Link(LinkConfig(role=Role.HOST), session=0x4444)
    clean = Damage()
    to_fw = LossyChannel(random.Random(1), clean, baud=BAUD, latency=0.001)
    from_fw = LossyChannel(random.Random(2), clean, baud=BAUD, latency=0.001)
    assert fw.proc.stdin is not None and fw.proc.stdout is not None
    try:
        got = pump(link, fw, to_fw, from_fw, lambda got, now: bool(got), limit=30.0)
        assert got == [Status(TableState.IDLE)]
        fw.proc.stdin.write(b"b 1 4\ns 3\n")
        fw.proc.stdin.flush()
        got = pump(link, fw, to_fw, from_fw, lambda got, now: len(got) >= 2, limit=30.0)
        assert got == [ButtonPress(1, SeatButton.KONG), Status(TableState.WALLS_UP)]
        link.send(DiceRoll(2), time.monotonic())
        link.send(DisplayText(0, "東 2 5"), time.monotonic())
        (result,) = pump(link, fw, to_fw, from_fw, lambda got, now: bool(got), limit=30.0)
        assert isinstance(result, DiceResult) and len(result.values) == 2
        lines = [fw.proc.stdout.readline().decode().strip() for _ in range(3)]
        assert lines == [
            "link up",
            "dice " + " ".join(map(str, result.values)),
            "text 0 " + "東 2 5".encode().hex(),
        ]
    finally:
        counters = fw.stop()
    assert counters["messages_delivered"] == 2 and counters["bad_crc"] == 0
