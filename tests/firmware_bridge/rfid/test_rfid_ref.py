"""The reference inventory reader's codec: round trip, resync, split delivery, gaps."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.crc16 import crc16
from firmware_bridge.rfid import Inventory, RefCodec, encode_inventory
from firmware_bridge.rfid.ref_frame import MAX_TAGS

uids_st = st.frozensets(st.binary(min_size=8, max_size=8), max_size=20)


def uid(n: int) -> bytes:
    return bytes.fromhex("e0040150") + n.to_bytes(4, "big")


def inventories(events: list[object]) -> list[Inventory]:
    return [e for e in events if isinstance(e, Inventory)]


def test_crc_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1


def test_frame_layout() -> None:
    frame = encode_inventory(7, 3, [uid(1)])
    assert frame[:2] == b"\xaa\x55"
    assert int.from_bytes(frame[2:4], "big") == 3 + 8
    assert frame[4:7] == bytes((7, 3, 1))
    assert frame[7:15] == uid(1)
    assert len(frame) == 17


@given(reader=st.integers(0, 255), seq=st.integers(0, 255), uids=uids_st)
def test_round_trip(reader: int, seq: int, uids: frozenset[bytes]) -> None:
    codec = RefCodec()
    events = codec.feed(encode_inventory(reader, seq, uids), 1.5)
    assert events == [Inventory(reader, seq, uids, 1.5)]
    assert codec.stats.frames == 1
    assert codec.stats.bad_checksums == codec.stats.malformed == codec.stats.resyncs == 0


def test_empty_inventory_and_largest() -> None:
    codec = RefCodec()
    everything = frozenset(uid(i) for i in range(MAX_TAGS))
    events = codec.feed(encode_inventory(1, 0, []) + encode_inventory(1, 1, everything), 0.0)
    assert [e.uids for e in inventories(events)] == [frozenset(), everything]
    with pytest.raises(ValueError):
        encode_inventory(1, 0, [uid(i) for i in range(MAX_TAGS + 1)])


@given(data=st.binary(max_size=600), step=st.integers(1, 64))
def test_random_bytes_never_raise(data: bytes, step: int) -> None:
    codec = RefCodec()
    t = 0.0
    for i in range(0, len(data), step):
        codec.feed(data[i : i + step], t)
        t += 0.01
    codec.poll(t + 10)


@given(
    garbage=st.binary(max_size=200).map(lambda b: b.replace(b"\xaa", b"")),
    uids=uids_st,
)
def test_frame_after_garbage_is_decoded(garbage: bytes, uids: frozenset[bytes]) -> None:
    codec = RefCodec()
    events = codec.feed(garbage + encode_inventory(4, 9, uids), 0.0)
    assert inventories(events) == [Inventory(4, 9, uids, 0.0)]
    assert codec.stats.bytes_discarded == len(garbage)
    assert codec.stats.resyncs == (1 if garbage else 0)


@given(garbage=st.binary(max_size=200), uids=uids_st)
def test_frame_after_any_garbage_is_decoded_once_the_line_idles(
    garbage: bytes, uids: frozenset[bytes]
) -> None:
    # Garbage may hold a false sync whose length swallows the real frame; the gap flush
    # rescans behind it. (A false frame passing the CRC is possible in principle but would
    # need a 1-in-65536 coincidence inside random bytes plus a matching length and count.)
    codec = RefCodec()
    events = codec.feed(garbage + encode_inventory(4, 9, uids), 0.0)
    events += codec.poll(1.0)
    assert Inventory(4, 9, uids, 0.0) in inventories(events)


def test_false_sync_with_long_length_then_real_frame() -> None:
    codec = RefCodec()
    real = encode_inventory(2, 5, [uid(1), uid(2)])
    fake = b"\xaa\x55\x00\x5b\x01\x02\x0b"  # len 91 = 3 + 8*11, count 11: waits for 93 bytes
    assert codec.feed(fake + real, 0.0) == []
    events = codec.poll(0.5)
    assert inventories(events) == [Inventory(2, 5, frozenset({uid(1), uid(2)}), 0.0)]
    assert codec.stats.gap_resets == 1


def test_bad_crc_counted_and_next_frame_decoded() -> None:
    codec = RefCodec()
    bad = bytearray(encode_inventory(1, 0, [uid(1)]))
    bad[-1] ^= 0xFF
    good = encode_inventory(1, 1, [uid(2)])
    events = codec.feed(bytes(bad) + good, 0.0)
    assert [e.seq for e in inventories(events)] == [1]
    assert codec.stats.bad_checksums == 1
    assert codec.stats.resyncs == 1


@given(uids=uids_st, cut=st.integers(1, 50))
def test_split_delivery(uids: frozenset[bytes], cut: int) -> None:
    frame = encode_inventory(3, 1, uids)
    codec = RefCodec()
    events: list[object] = []
    t = 0.0
    for i in range(0, len(frame), cut):
        t = 0.001 * i
        events += codec.feed(frame[i : i + cut], t)
    # Stamped with the time the last byte arrived.
    assert inventories(events) == [Inventory(3, 1, uids, t)]


def test_byte_at_a_time_stream_of_frames() -> None:
    stream = b"".join(encode_inventory(1, s, [uid(s)]) for s in range(5))
    codec = RefCodec()
    events: list[object] = []
    for i, byte in enumerate(stream):
        events += codec.feed(bytes((byte,)), i * 0.001)
    assert [e.seq for e in inventories(events)] == [0, 1, 2, 3, 4]
    assert codec.stats.resyncs == 0


def test_gap_timeout_resets_mid_frame() -> None:
    codec = RefCodec(gap_timeout=0.2)
    first = encode_inventory(1, 0, [uid(1)])
    second = encode_inventory(1, 1, [uid(2)])
    assert codec.feed(first[:9], 0.0) == []
    # The rest of the first frame never comes: the line is found idle, the parser resets.
    assert codec.poll(0.3) == []
    assert codec.stats.gap_resets == 1
    events = codec.feed(second, 0.5)
    assert [e.seq for e in inventories(events)] == [1]
    assert codec.stats.bad_checksums == codec.stats.malformed == 0


def test_late_feed_after_a_host_stall_is_not_a_gap() -> None:
    # The host read half a frame, then was busy for a second; the rest waited in the OS
    # buffer. Without an idle poll in between nothing says the line went quiet.
    codec = RefCodec(gap_timeout=0.2)
    frame = encode_inventory(1, 0, [uid(1)])
    assert codec.feed(frame[:9], 0.0) == []
    assert [e.seq for e in inventories(codec.feed(frame[9:], 1.0))] == [0]
    assert codec.stats.gap_resets == 0


def test_no_gap_reset_when_bytes_keep_coming() -> None:
    codec = RefCodec(gap_timeout=0.2)
    frame = encode_inventory(1, 0, [uid(1)])
    assert codec.feed(frame[:5], 0.0) == []
    assert codec.poll(0.1) == []
    assert len(codec.feed(frame[5:], 0.15)) == 1
    assert codec.stats.gap_resets == 0


def test_seq_gaps_counted() -> None:
    codec = RefCodec()
    codec.feed(encode_inventory(1, 254, []), 0.0)
    codec.feed(encode_inventory(1, 255, []), 0.1)
    codec.feed(encode_inventory(1, 2, []), 0.2)  # 0 and 1 lost
    codec.feed(encode_inventory(1, 2, []), 0.3)  # a repeat is no gap
    assert codec.stats.seq_gaps == 2


frames_st = st.lists(
    st.tuples(st.integers(0, 3), uids_st, st.sampled_from(["ok", "bad crc", "cut", "noise"])),
    max_size=12,
)


def _damaged(frame: bytes, how: str) -> bytes:
    if how == "bad crc":
        return frame[:-1] + bytes([frame[-1] ^ 0x01])
    if how == "cut":
        return frame[: len(frame) // 2]
    if how == "noise":
        return b"\xaa\x00\x13" + frame
    return frame


@given(frames_st)
def test_a_read_of_one_whole_frame_decodes_as_the_buffered_stream_does(
    frames: list[tuple[int, frozenset[bytes], str]],
) -> None:
    """feed() decodes a read holding exactly one frame in place; the events and counters
    must be what the buffered scan gives for the same bytes in one read."""
    chunks = [
        _damaged(encode_inventory(r, i, uids), how) for i, (r, uids, how) in enumerate(frames)
    ]
    one_by_one, at_once = RefCodec(), RefCodec()
    events = []
    for chunk in chunks:
        events += one_by_one.feed(chunk, 1.0)
    events += one_by_one.poll(5.0)
    expected = at_once.feed(b"".join(chunks), 1.0) + at_once.poll(5.0)
    assert events == expected
    assert one_by_one.stats == at_once.stats


def test_a_frame_byte_equal_to_the_readers_last_gives_back_the_same_set() -> None:
    """An idle zone's frames differ only in seq and CRC: their UIDs are not decoded again,
    and the tracker recognises the same set object at once."""
    codec = RefCodec()
    first = inventories(codec.feed(encode_inventory(3, 0, [uid(1), uid(2)]), 0.0))[0]
    again = inventories(codec.feed(encode_inventory(3, 1, [uid(2), uid(1)]), 0.02))[0]
    other = inventories(codec.feed(encode_inventory(4, 1, [uid(2), uid(1)]), 0.02))[0]
    changed = inventories(codec.feed(encode_inventory(3, 2, [uid(1)]), 0.04))[0]
    assert again.uids is first.uids and (again.seq, again.t) == (1, 0.02)
    assert other.uids == first.uids and other.uids is not first.uids  # per reader
    assert changed.uids == {uid(1)}
    assert inventories(codec.feed(encode_inventory(3, 3, [uid(1)]), 0.06))[0].uids is changed.uids
