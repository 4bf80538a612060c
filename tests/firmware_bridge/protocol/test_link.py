"""The link layer, driven directly: explicit time, hand-made losses, no timing assertions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    DisplayText,
    Frame,
    FrameDecoder,
    Heartbeat,
    Hello,
    Link,
    LinkQueueFull,
    LinkSettings,
    LinkState,
    Message,
    MessageType,
    Role,
    encode_frame,
)

CONFIG = LinkSettings(rto_initial=0.1, rto_min=0.02, rto_max=1.0, max_retransmits=4)


def _pair() -> tuple[Link, Link]:
    return Link(CONFIG, session=0xA), Link(LinkSettings(role=Role.TABLE_BOARD), session=0xB)


def _text(i: int) -> DisplayText:
    return DisplayText(target=0, text=f"m{i}")


class Wire:
    """Lossless exchange with a chosen delay; tests drop things by not delivering them."""

    def __init__(self, a: Link, b: Link) -> None:
        self.a, self.b = a, b
        self.got_a: list[Message] = []
        self.got_b: list[Message] = []

    def exchange(self, now: float, rounds: int = 10) -> None:
        for _ in range(rounds):
            to_b, to_a = self.a.poll(now), self.b.poll(now)
            if not to_b and not to_a:
                return
            self.got_b += self.b.receive_bytes(to_b, now)
            self.got_a += self.a.receive_bytes(to_a, now)


def _up(now: float = 0.0) -> tuple[Link, Link, Wire]:
    a, b = _pair()
    wire = Wire(a, b)
    wire.exchange(now)
    assert a.state is LinkState.UP and b.state is LinkState.UP
    return a, b, wire


def _frames(data: bytes) -> list[Frame]:
    return FrameDecoder().feed(data)


def test_handshake_negotiates_version_and_learns_sessions() -> None:
    a, b, _ = _up()
    assert (a.peer_session, b.peer_session) == (0xB, 0xA)
    assert a.version == b.version == 1
    assert a.counters.hellos_rx >= 1 and b.counters.hellos_rx >= 1


def test_handshake_when_the_peer_starts_later() -> None:
    a, b = _pair()
    for t in (0.0, 0.1, 0.3):
        a.poll(t)  # hellos into the void, backing off
    assert a.state is LinkState.CONNECTING
    wire = Wire(a, b)
    wire.exchange(0.35)  # b speaks first now; a answers its hello at once
    assert a.state is LinkState.UP and b.state is LinkState.UP


def test_data_is_delivered_once_and_acked() -> None:
    a, _b, wire = _up()
    for i in range(20):
        a.send(_text(i), 1.0)
    wire.exchange(1.0, rounds=20)
    assert wire.got_b == [_text(i) for i in range(20)]
    assert a.idle and a.counters.retransmits == 0


def test_window_limits_frames_in_flight() -> None:
    a, _, _ = _up()
    for i in range(20):
        a.send(_text(i), 1.0)
    a.poll(1.0)
    assert a.in_flight == CONFIG.window and a.queued == 20 - CONFIG.window


def test_lost_frame_is_retransmitted_after_rto_not_before() -> None:
    a, b, wire = _up()
    a.send(_text(1), 1.0)
    lost = a.poll(1.0)
    assert _frames(lost)[0].seq == 0
    deadline = a.next_deadline()
    assert deadline == pytest.approx(1.0 + a.rto)
    assert a.poll(deadline - 0.001) == b""  # not yet
    again = a.poll(deadline)
    assert _frames(again)[0].seq == 0
    assert a.counters.retransmits == 1 and a.counters.timeouts == 1
    wire.got_b += b.receive_bytes(again, deadline)
    wire.exchange(deadline)
    assert wire.got_b == [_text(1)] and a.idle


def test_lost_ack_makes_a_duplicate_that_is_suppressed_and_karn_skips_the_sample() -> None:
    a, b, _wire = _up()
    a.send(_text(1), 1.0)
    got = b.receive_bytes(a.poll(1.0), 1.0)
    b.poll(1.0)  # the ack is lost
    samples = a.counters.rtt_samples
    t = a.next_deadline()
    rto_before = a.rto
    got += b.receive_bytes(a.poll(t), t)  # the retransmission
    assert got == [_text(1)]
    assert b.counters.duplicates == 1
    a.receive_bytes(b.poll(t), t)
    assert a.idle
    assert a.counters.rtt_samples == samples  # Karn: ambiguous, not timed
    assert a.rto == pytest.approx(min(2 * rto_before, CONFIG.rto_max))  # backoff kept


def test_rto_follows_rfc6298() -> None:
    a, b, _ = _up()
    t = 1.0
    for i in range(30):
        a.send(_text(i), t)
        b.receive_bytes(a.poll(t), t + 0.010)
        a.receive_bytes(b.poll(t + 0.010), t + 0.010)
        t += 0.1
    assert a.srtt == pytest.approx(0.010, rel=0.01)
    assert a.rto == CONFIG.rto_min  # SRTT + 4*RTTVAR is below the floor


def test_sack_hole_is_fast_retransmitted_before_the_timer() -> None:
    a, b, wire = _up()
    for i in range(3):
        a.send(_text(i), 1.0)
    frames = a.poll(1.0).split(b"\x00")[:-1]
    assert len(frames) == 3
    # Frame 0 is lost; 1 and 2 arrive and are sacked.
    wire.got_b += b.receive_bytes(frames[1] + b"\x00" + frames[2] + b"\x00", 1.01)
    a.receive_bytes(b.poll(1.01), 1.02)
    assert a.counters.fast_retransmits == 1
    assert a.next_deadline() <= 1.02
    wire.got_b += b.receive_bytes(a.poll(1.02), 1.03)
    assert wire.got_b == [_text(0), _text(1), _text(2)]
    assert a.counters.timeouts == 0


def test_failed_after_max_retransmits_then_rehello_recovers_without_loss() -> None:
    a, b, wire = _up()
    a.send(_text(0), 1.0)
    a.poll(1.0)  # lost, and the peer goes silent
    t = 1.0
    while a.state is LinkState.UP:
        t = a.next_deadline()
        a.poll(t)
    assert a.state is LinkState.FAILED
    assert a.counters.timeouts == CONFIG.max_retransmits + 1
    assert a.counters.retransmits == CONFIG.max_retransmits
    assert a.counters.failures == 1
    a.send(_text(1), t)  # queued while failed
    hello = a.poll(t + 1.0)  # FAILED keeps saying hello
    assert [f.type for f in _frames(hello)] == [MessageType.HELLO]
    wire.got_b += b.receive_bytes(hello, t + 1.0)
    wire.exchange(t + 1.0)
    assert a.state is LinkState.UP
    assert wire.got_b == [_text(0), _text(1)]
    assert b.counters.peer_restarts == 0  # same sessions: resumed, not renumbered


def test_peer_restart_renumbers_and_resends_unacked() -> None:
    a, b, _wire = _up()
    for i in range(3):
        a.send(_text(i), 1.0)
    b.receive_bytes(a.poll(1.0), 1.0)  # b got them, but its acks are lost in the crash
    b2 = Link(LinkSettings(role=Role.TABLE_BOARD), session=0xB2)
    wire2 = Wire(a, b2)
    wire2.exchange(2.0, rounds=20)
    assert a.counters.peer_restarts == 1
    assert a.state is LinkState.UP and b2.state is LinkState.UP
    assert wire2.got_b == [_text(0), _text(1), _text(2)]  # at-least-once across a restart
    a.send(_text(3), 2.5)
    wire2.exchange(2.5)
    assert wire2.got_b[-1] == _text(3)


def test_reset_handshake_resumes_the_same_session() -> None:
    a, _b, wire = _up()
    a.send(_text(0), 1.0)
    a.poll(1.0)  # lost while the cable was out
    a.reset_handshake(2.0)
    assert a.state is LinkState.CONNECTING
    wire.exchange(2.0)
    assert a.state is LinkState.UP
    assert wire.got_b == [_text(0)]


def test_idle_link_sends_heartbeats_that_are_not_delivered() -> None:
    a, b, wire = _up()
    assert a.next_deadline() == pytest.approx(CONFIG.heartbeat_interval)
    wire.exchange(CONFIG.heartbeat_interval)
    assert a.counters.heartbeats_tx == 1 and b.counters.heartbeats_rx == 1
    assert wire.got_b == [] and a.idle


def test_unknown_and_malformed_sequenced_messages_are_acked_and_counted() -> None:
    _a, b, _ = _up()
    wire = encode_frame(Frame(0x7F, seq=0, payload=b"future"))
    wire += encode_frame(Frame(MessageType.BUTTON, seq=1, payload=b"\x09\x09"))
    wire += encode_frame(Frame(MessageType.DISPLAY_TEXT, seq=2, payload=_text(5).encode()))
    assert b.receive_bytes(wire, 0.5) == [_text(5)]
    c = b.counters
    assert (c.unknown_type, c.bad_payload) == (1, 1)
    [ack] = _frames(b.poll(0.5))
    assert (ack.type, ack.ack) == (MessageType.ACK, 3)


def test_nonsense_acks_and_control_types_are_counted() -> None:
    a, _, _ = _up()
    a.receive_bytes(encode_frame(Frame(MessageType.ACK, ack=77)), 1.0)
    a.receive_bytes(encode_frame(Frame(0x0E)), 1.0)
    a.receive_bytes(encode_frame(Frame(MessageType.HELLO, payload=b"\x01\x02")), 1.0)
    c = a.counters
    assert (c.bad_ack, c.unknown_type, c.bad_payload) == (1, 1, 1)
    assert a.state is LinkState.UP


def test_frames_before_any_hello_are_ignored() -> None:
    a, _ = _pair()
    wire = encode_frame(Frame(MessageType.DISPLAY_TEXT, seq=0, payload=_text(0).encode()))
    assert a.receive_bytes(wire, 0.0) == []
    assert a.counters.no_session == 1


def test_incompatible_version_is_counted_not_accepted() -> None:
    a, _ = _pair()
    hello = Hello(session=0xC, min_version=2, max_version=3)
    a.receive_bytes(encode_frame(Frame(MessageType.HELLO, payload=hello.encode())), 0.0)
    assert a.counters.version_mismatch == 1 and a.peer_session is None


def test_send_rejects_link_messages_and_overflow() -> None:
    a = Link(LinkSettings(max_queue=2), session=1)
    with pytest.raises(ValueError):
        a.send(Heartbeat(0), 0.0)
    with pytest.raises(ValueError):
        a.send(Hello(session=1), 0.0)
    a.send(_text(0), 0.0)
    a.send(_text(1), 0.0)
    with pytest.raises(LinkQueueFull):
        a.send(_text(2), 0.0)


def test_a_link_talking_to_itself_works_like_loop_url() -> None:
    a = Link(session=0x5)
    got: list[Message] = []
    a.send(_text(1), 0.0)
    for i in range(6):
        got += a.receive_bytes(a.poll(i * 0.01), i * 0.01)
    assert a.state is LinkState.UP and got == [_text(1)]


@settings(max_examples=200)
@given(st.lists(st.binary(max_size=200), max_size=10))
def test_random_bytes_never_raise_out_of_an_up_link(chunks: list[bytes]) -> None:
    a, b, wire = _up()
    a.send(_text(0), 1.0)
    for chunk in chunks:
        a.receive_bytes(chunk, 1.0)
        a.poll(1.0)
    # Whatever the garbage did, a delimiter and a fresh exchange still work.
    b.receive_bytes(b"\x00", 1.0)
    a.receive_bytes(b"\x00", 1.0)
    a.reset_handshake(2.0)
    wire.exchange(2.0, rounds=20)
    assert a.state is LinkState.UP


def test_a_message_says_what_its_sender_had_received_of_ours() -> None:
    """``send`` numbers our messages; ``acknowledged`` counts those the peer acknowledged in
    order, and ``receive`` gives each of its messages with that count as its frame left it:
    a message the peer sent before ours reached it says so, whenever it arrives."""
    a, b, wire = _up()
    assert [a.send(_text(i), 0.0) for i in (1, 2)] == [1, 2]
    wire.exchange(0.0)
    assert a.acknowledged == 2
    third = a.send(_text(3), 0.01)
    to_b = a.poll(0.01)  # the third text on its way, not yet read by b
    b.send(_text(9), 0.01)
    before = b.poll(0.01)  # b speaks without having read it
    b.receive_bytes(to_b, 0.02)
    b.send(_text(10), 0.02)
    after = b.poll(0.02)
    assert a.receive(before + after, 0.03) == [(_text(9), 2), (_text(10), third)]
    assert a.acknowledged == third
