"""The common HF reader frame: layout, round trip, resync, gaps, duplicate suppression."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.rfid import (
    Ack,
    HfCodec,
    HfCommand,
    PresenceTracker,
    TagRead,
    encode_ack,
    encode_hf_frame,
    encode_rf_off,
    encode_rf_on,
    encode_tag_read,
)

uid_st = st.binary(min_size=8, max_size=8)
UID = bytes.fromhex("e004015012345678")


def reads(events: list[object]) -> list[TagRead]:
    return [e for e in events if isinstance(e, TagRead)]


def test_frame_layout_len_and_xor() -> None:
    # len counts cmd + data; xor covers len, cmd and data.
    assert encode_rf_on() == bytes.fromhex("02 01 01 00 03")
    assert encode_rf_off() == bytes.fromhex("02 01 02 03 03")
    frame = encode_tag_read(UID)
    assert frame[0] == 0x02 and frame[-1] == 0x03
    assert frame[1] == 9 and frame[2] == 0x10 and frame[3:11] == UID
    x = 0
    for b in frame[1:11]:
        x ^= b
    assert frame[11] == x


def test_commands_and_acks_decode() -> None:
    codec = HfCodec(reader_id=4)
    stream = encode_rf_on() + encode_ack(0x01) + encode_ack(0x02, status=5) + encode_rf_off()
    assert codec.feed(stream, 1.0) == [
        HfCommand(4, 0x01, b"", 1.0),
        Ack(4, 0x01, 0, b"\x00", 1.0),
        Ack(4, 0x02, 5, b"\x05", 1.0),
        HfCommand(4, 0x02, b"", 1.0),
    ]


@given(uid=uid_st)
def test_tag_read_round_trip(uid: bytes) -> None:
    codec = HfCodec(reader_id=2)
    assert codec.feed(encode_tag_read(uid), 3.0) == [TagRead(2, uid, 3.0)]


@given(cmd=st.integers(0x00, 0x7F).filter(lambda c: c != 0x10), data=st.binary(max_size=31))
def test_generic_frame_round_trip(cmd: int, data: bytes) -> None:
    assert HfCodec().feed(encode_hf_frame(cmd, data), 0.0) == [HfCommand(0, cmd, data, 0.0)]


def test_tag_read_with_wrong_uid_size_is_malformed() -> None:
    codec = HfCodec()
    assert codec.feed(encode_hf_frame(0x10, b"\x01\x02\x03"), 0.0) == []
    assert codec.stats.malformed == 1


@given(data=st.binary(max_size=400), step=st.integers(1, 20))
def test_random_bytes_never_raise(data: bytes, step: int) -> None:
    codec = HfCodec()
    for i in range(0, len(data), step):
        codec.feed(data[i : i + step], i * 0.07)
    codec.poll(1000.0)


@given(garbage=st.binary(max_size=100).map(lambda b: b.replace(b"\x02", b"")), uid=uid_st)
def test_frame_after_garbage_is_decoded(garbage: bytes, uid: bytes) -> None:
    codec = HfCodec()
    assert reads(codec.feed(garbage + encode_tag_read(uid), 0.0)) == [TagRead(0, uid, 0.0)]
    assert codec.stats.bytes_discarded == len(garbage)


def test_false_stx_inside_garbage_does_not_hide_the_frame() -> None:
    codec = HfCodec()
    # 02 1f: a false frame start claiming 31 bytes; the real frame follows at once.
    events = codec.feed(b"\x02\x1f\x99" + encode_tag_read(UID), 0.0)
    events += codec.poll(1.0)
    assert reads(events) == [TagRead(0, UID, 0.0)]


def test_bad_xor_counted_then_resync() -> None:
    bad = bytearray(encode_tag_read(UID))
    bad[-2] ^= 0x01
    codec = HfCodec()
    other = bytes.fromhex("e004015000000001")
    assert reads(codec.feed(bytes(bad) + encode_tag_read(other), 0.0)) == [TagRead(0, other, 0.0)]
    assert codec.stats.bad_checksums == 1
    assert codec.stats.resyncs == 1


def test_missing_etx_counted_as_malformed() -> None:
    bad = bytearray(encode_tag_read(UID))
    bad[-1] = 0x04
    codec = HfCodec()
    assert codec.feed(bytes(bad), 0.0) == []
    assert codec.stats.malformed == 1


@given(uid=uid_st)
def test_byte_at_a_time(uid: bytes) -> None:
    codec = HfCodec()
    events: list[object] = []
    for i, b in enumerate(encode_tag_read(uid) + encode_ack(1)):
        events += codec.feed(bytes((b,)), i * 0.001)
    assert len(reads(events)) == 1 and isinstance(events[-1], Ack)


def test_gap_timeout_resets_parser_mid_frame() -> None:
    codec = HfCodec(gap_timeout=0.2)
    frame = encode_tag_read(UID)
    assert codec.feed(frame[:6], 0.0) == []
    assert codec.poll(0.1) == []  # still inside the timeout: keep waiting
    assert codec.poll(0.3) == []
    assert codec.stats.gap_resets == 1
    # The tail of the abandoned frame is garbage now; the next whole frame is decoded.
    other = bytes.fromhex("e004015000000002")
    assert reads(codec.feed(frame[6:] + encode_tag_read(other), 0.4)) == [TagRead(0, other, 0.4)]


def test_duplicate_reads_within_hold_time_are_one_presence() -> None:
    codec = HfCodec(hold_time=0.5)
    frame = encode_tag_read(UID)
    got: list[TagRead] = []
    for i in range(20):  # the reader re-reports every 0.1 s for 2 s
        got += reads(codec.feed(frame, i * 0.1))
    # Reported at 0.0, then again once each hold has run out.
    assert [round(r.t, 3) for r in got] == [0.0, 0.5, 1.0, 1.5]
    assert codec.stats.duplicates_suppressed == 16


def test_other_uids_are_not_suppressed() -> None:
    codec = HfCodec(hold_time=0.5)
    a, b = UID, bytes.fromhex("e004015000000003")
    events = codec.feed(encode_tag_read(a) + encode_tag_read(b) + encode_tag_read(a), 0.0)
    assert [r.uid for r in reads(events)] == [a, b]


def test_presence_set_with_timeout() -> None:
    codec = HfCodec(reader_id=9, hold_time=0.5)
    presence = PresenceTracker(9, timeout=1.5)
    a, b = UID, bytes.fromhex("e004015000000004")
    t = 0.0
    while t < 3.0:  # a stays on the antenna the whole time, b leaves after 1 s
        for r in reads(codec.feed(encode_tag_read(a), t)):
            presence.observe(r)
        if t < 1.0:
            for r in reads(codec.feed(encode_tag_read(b), t)):
                presence.observe(r)
        t = round(t + 0.1, 3)
    assert presence.present(1.2) == {a, b}
    snap = presence.snapshot(3.0)
    assert snap.reader_id == 9 and snap.uids == {a}
    assert presence.snapshot(3.1).seq == snap.seq + 1
    assert presence.snapshot(10.0).uids == frozenset()
