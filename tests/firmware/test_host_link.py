"""The firmware's host build as a process on a pty against the Python host link, in real
time: the scenario of tests/firmware_bridge/protocol/test_link_lossy.py between them.

The firmware runs in echo mode: every message it delivers it sends back, so one run checks
both directions, each exactly once and in order: 10,000 messages each way over a line that
corrupts 1 % of bytes, drops and duplicates 1 % of frames and feeds the firmware a byte per
write. In real time each lost frame costs a retransmission timeout, so both ends run the
retransmission timer for a pty (a round trip of a few ms, not a cable's tens): a 5 ms
floor and a 50 ms ceiling instead of 20 ms and 2 s. The protocol, the damage and the
checks are those of the simulated runs; the same C link in simulated time, with the
default timer, is test_c_link_lossy.py.
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
    LinkSettings,
    LinkState,
    Message,
    Role,
    SeatButton,
    Status,
    TableState,
)
from tests.firmware_bridge.lossy_channel import COUNT, messages_for

from ..firmware_bridge.lossy_channel import Damage, LossyChannel
from .host_firmware import HostFirmware, pump

# Ten times the board's line rate: the same bytes and damage, a tenth of the wall time.
BAUD = 1_152_000

# The retransmission timer for a pty, the same on both ends, in ms. The ceiling also caps
# the hello interval, so a FAILED link is soon back.
RTO_MIN, RTO_INITIAL, RTO_MAX = 5, 20, 50
PTY_FIRMWARE = ("--rto-min", str(RTO_MIN), "--rto-initial", str(RTO_INITIAL))
PTY_FIRMWARE += ("--rto-max", str(RTO_MAX))
PTY_HOST = LinkSettings(
    role=Role.HOST,
    rto_min=RTO_MIN / 1000,
    rto_initial=RTO_INITIAL / 1000,
    rto_max=RTO_MAX / 1000,
    hello_interval_max=RTO_MAX / 1000,
)
DEFAULT_TIMER: tuple[tuple[str, ...], LinkSettings] = ((), LinkSettings(role=Role.HOST))
PTY_TIMER = (PTY_FIRMWARE, PTY_HOST)


def _run(
    damage: Damage, count: int, seed: int, timer: tuple[tuple[str, ...], LinkSettings]
) -> tuple[Link, dict[str, int], list[Message]]:
    rng = random.Random(seed)
    fw_args, host_config = timer
    fw = HostFirmware("--echo", *fw_args)
    link = Link(host_config, session=0x1111)
    to_fw = LossyChannel(rng, damage, baud=BAUD, latency=0.001)
    from_fw = LossyChannel(rng, damage, baud=BAUD, latency=0.001)
    sent = messages_for("pi", count)
    queued = 0

    def done(got: list[Message], now: float) -> bool:
        nonlocal queued
        while queued < count and link.queued < 4:
            link.send(sent[queued], now)
            queued += 1
        return len(got) >= count and link.idle

    try:
        got = pump(link, fw, to_fw, from_fw, done, limit=900.0)  # a hang guard, not a timing
        time.sleep(0.05)  # the firmware's last ack
    finally:
        counters = fw.stop()
    assert got == sent
    return link, counters, got


def test_10k_messages_each_way_through_the_firmware_process_over_a_damaged_line() -> None:
    damage = Damage(corrupt_byte=0.01, drop_frame=0.01, duplicate_frame=0.01)
    link, fw, _ = _run(damage, COUNT, 20240601, PTY_TIMER)
    assert link.state is LinkState.UP
    # Both ends saw the damage and repaired it.
    c = link.counters
    assert c.bad_crc + c.bad_cobs + c.runts > 0 and c.resyncs > 0
    assert c.retransmits > 0 and c.fast_retransmits > 0 and c.duplicates > 0
    assert fw["bad_crc"] + fw["bad_cobs"] + fw["runts"] > 0
    assert fw["resyncs"] > 0 and fw["retransmits"] > 0 and fw["duplicates"] > 0
    assert fw["fast_retransmits"] > 0
    assert fw["messages_delivered"] == COUNT and fw["messages_sent"] == COUNT
    # A 124-byte INVENTORY frame gets through 1 % byte corruption 29 % of the time, so
    # now and then nine timeouts pass without an ack (about once per 300 messages): both
    # ends go FAILED and recover through the hello with the same sessions, and delivery
    # stays exactly once across it (checked in _run).
    assert c.failures > 0 and fw["failures"] > 0
    assert c.peer_restarts == 0 and fw["peer_restarts"] == 0


def test_clean_line_no_repairs_needed_default_timer() -> None:
    _, fw, _ = _run(Damage(), 2000, 1, DEFAULT_TIMER)
    assert fw["messages_delivered"] == 2000
    assert fw["bad_crc"] == fw["bad_cobs"] == fw["runts"] == fw["failures"] == 0


def test_board_application_on_a_pty_with_its_console_on_stdio() -> None:
    """Without --echo the host build runs the board application: panel lines on stdin,
    what the board displays on stdout — the same code the STM32 runs behind its UARTs."""
    fw = HostFirmware(stdin=subprocess.PIPE)
    link = Link(LinkSettings(role=Role.HOST), session=0x4444)
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
