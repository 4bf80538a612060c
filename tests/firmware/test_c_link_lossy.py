"""The firmware's C link against the Python host link in simulated time: the scenario of
tests/firmware_bridge/protocol/test_link_lossy.py (10,000 messages each way, 1 % byte corruption,
1 % frames dropped, 1 % duplicated, byte-at-a-time) with the C link as the board, plus
the host's bad-input cases (a host restarting mid-session, a host that never acks).

The same damage in real time, with the firmware as a process on a pty, is
test_host_link.py; simulated time makes this one deterministic and lets it keep the
protocol's default retransmission timer."""

from __future__ import annotations

import random
from typing import cast

from firmware_bridge.protocol import Link, LinkSettings, LinkState, Role
from tests.firmware_bridge.lossy_channel import COUNT, messages_for

from ..firmware_bridge.lossy_channel import Damage, Simulation
from .c_link import CLink


def _simulation(host: Link, board: CLink, seed: int, damage: Damage) -> Simulation:
    return Simulation(host, cast(Link, board), random.Random(seed), damage)


def _exchange(sim: Simulation, count: int, *, limit: float) -> None:
    a, b = sim.a, sim.b
    to_b, to_a = messages_for("pi", count), messages_for("board", count)
    sent = {"a": 0, "b": 0}
    got_a, got_b = len(sim.got_a), len(sim.got_b)

    def feed() -> bool:
        for name, link, msgs in (("a", a, to_b), ("b", b, to_a)):
            while sent[name] < count and link.queued < 4:
                link.send(msgs[sent[name]], sim.now)
                sent[name] += 1
        return (
            len(sim.got_a) - got_a >= count and len(sim.got_b) - got_b >= count
            and a.idle and b.idle
        )  # fmt: skip

    sim.run_until(feed, limit=limit)
    assert sim.got_b[got_b:] == to_b
    assert sim.got_a[got_a:] == to_a


def test_10k_messages_each_way_c_board_python_host_damaged_line() -> None:
    host = Link(LinkSettings(role=Role.HOST), session=0x1111)
    board = CLink(session=0x2222)
    sim = _simulation(host, board, 20240601, Damage(0.01, 0.01, 0.01))
    _exchange(sim, COUNT, limit=3600.0)
    assert host.state is LinkState.UP and board.state is LinkState.UP
    assert sim.ab.bytes_corrupted > 0 and sim.ab.frames_dropped > 0
    assert sim.ab.frames_duplicated > 0 and sim.ba.frames_dropped > 0
    c = board.counters
    assert c.bad_crc + c.bad_cobs + c.runts > 0 and c.resyncs > 0
    assert c.retransmits > 0 and c.duplicates > 0 and c.fast_retransmits > 0
    assert c.messages_delivered == COUNT and c.messages_sent == COUNT
    assert host.counters.messages_delivered == COUNT and host.counters.retransmits > 0


def test_c_link_against_itself_damaged_line() -> None:
    """Both ends in C (no Python link at all), the same damage."""
    a, b = CLink(session=0xA, role=Role.HOST), CLink(session=0xB)
    sim = Simulation(cast(Link, a), cast(Link, b), random.Random(7), Damage(0.01, 0.01, 0.01))
    _exchange(sim, 3000, limit=3600.0)
    assert a.state is LinkState.UP and b.state is LinkState.UP


def test_host_restarts_mid_session_at_least_once_then_exactly_once() -> None:
    host = Link(LinkSettings(role=Role.HOST), session=0x1111)
    board = CLink(session=0x2222)
    sim = _simulation(host, board, 3, Damage())
    _exchange(sim, 200, limit=60.0)
    # The host process restarts: a new session, nothing remembered.
    sim.a = Link(LinkSettings(role=Role.HOST), session=0x3333)
    sim.got_a.clear()
    board.send(messages_for("board", 1)[0], sim.now)
    sim.run_until(lambda: sim.a.state is LinkState.UP and sim.got_a and board.idle, limit=30.0)
    assert board.counters.peer_restarts == 1
    assert board.peer_session == 0x3333
    _exchange(sim, 500, limit=120.0)


def test_host_that_never_acks_fails_the_link_keeps_messages_and_recovers() -> None:
    host = Link(LinkSettings(role=Role.HOST), session=0x1111)
    board = CLink(session=0x2222)
    sim = _simulation(host, board, 4, Damage())
    sim.run_until(lambda: board.state is LinkState.UP and host.state is LinkState.UP, limit=10)
    sim.ab.connected = False  # the host still hears the board but nothing it says arrives
    msgs = messages_for("board", 20)
    for msg in msgs:
        board.send(msg, sim.now)
    sim.run_until(lambda: board.state is LinkState.FAILED, limit=60.0)
    assert board.counters.failures == 1 and not board.idle
    start = sim.now
    sim.run_until(lambda: sim.now - start > 30, limit=40.0)  # hellos go on, bounded
    assert board.state is LinkState.FAILED
    sim.ab.connected = True
    sim.run_until(lambda: board.state is LinkState.UP and board.idle, limit=30.0)
    assert sim.got_a == msgs  # exactly once, in order, after the outage


def test_simultaneous_start_and_late_host_converge() -> None:
    board = CLink(session=0x2222)
    host = Link(LinkSettings(role=Role.HOST), session=0x1111)
    sim = _simulation(host, board, 5, Damage())
    sim.ab.connected = sim.ba.connected = False
    sim.run_until(lambda: sim.now > 5.0, limit=10.0)  # board alone: backing-off hellos
    hellos = board.counters.hellos_tx
    assert 3 <= hellos <= 6  # 0, .25, .75, 1.75, 3.75 s: doubling to 2 s
    sim.ab.connected = sim.ba.connected = True
    sim.run_until(lambda: board.state is LinkState.UP and host.state is LinkState.UP, limit=10)
