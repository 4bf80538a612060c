"""COBS, CRC-16 and the frame codec: known vectors, round trips, and garbage that never raises."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.protocol import (
    MAX_PAYLOAD,
    CobsError,
    Frame,
    FrameDecoder,
    cobs_decode,
    cobs_encode,
    crc16,
    encode_frame,
)
from firmware_bridge.protocol.framing import MAX_ENCODED_FRAME, MAX_RAW_FRAME

# Vectors from the COBS paper / Wikipedia.
COBS_VECTORS = [
    (b"\x00", b"\x01\x01"),
    (b"\x00\x00", b"\x01\x01\x01"),
    (b"\x11\x22\x00\x33", b"\x03\x11\x22\x02\x33"),
    (b"\x11\x22\x33\x44", b"\x05\x11\x22\x33\x44"),
    (b"\x11\x00\x00\x00", b"\x02\x11\x01\x01\x01"),
    (bytes(range(1, 255)), b"\xff" + bytes(range(1, 255))),
    (bytes(range(0, 255)), b"\x01\xff" + bytes(range(1, 255))),
    (bytes(range(1, 256)), b"\xff" + bytes(range(1, 255)) + b"\x02\xff"),
    (bytes(range(2, 256)) + b"\x00", b"\xff" + bytes(range(2, 256)) + b"\x01\x01"),
]


@pytest.mark.parametrize(("raw", "encoded"), COBS_VECTORS)
def test_cobs_known_vectors(raw: bytes, encoded: bytes) -> None:
    assert cobs_encode(raw) == encoded
    assert cobs_decode(encoded) == raw


@given(st.binary(max_size=2000))
def test_cobs_round_trip_and_no_zeros(data: bytes) -> None:
    encoded = cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert cobs_decode(encoded) == data


@given(st.binary(max_size=600))
def test_cobs_decode_raises_only_cobs_error(data: bytes) -> None:
    with contextlib.suppress(CobsError):
        cobs_decode(data)


def test_crc16_is_ccitt_false() -> None:
    assert crc16(b"123456789") == 0x29B1  # the catalogue check value


frames = st.builds(
    Frame,
    type=st.integers(0, 255),
    seq=st.integers(0, 255),
    ack=st.integers(0, 255),
    sack=st.integers(0, 255),
    payload=st.binary(max_size=MAX_PAYLOAD),
)


@given(frames)
def test_frame_round_trip(frame: Frame) -> None:
    wire = encode_frame(frame)
    assert wire.endswith(b"\x00") and wire.count(0) == 1
    assert len(wire) <= MAX_ENCODED_FRAME + 1
    decoder = FrameDecoder()
    assert decoder.feed(wire) == [frame]
    assert decoder.errors == 0


@given(st.lists(frames, max_size=8), st.lists(st.integers(1, 64), min_size=1))
def test_any_chunking_gives_the_same_frames(sent: list[Frame], sizes: list[int]) -> None:
    wire = b"".join(encode_frame(f) for f in sent)
    decoder = FrameDecoder()
    got: list[Frame] = []
    pos, i = 0, 0
    while pos < len(wire):
        size = sizes[i % len(sizes)]
        got += decoder.feed(wire[pos : pos + size])
        pos += size
        i += 1
    assert got == sent


@given(st.binary(max_size=3000))
def test_garbage_never_raises_and_a_good_frame_after_it_is_decoded(garbage: bytes) -> None:
    decoder = FrameDecoder()
    decoder.feed(garbage)  # must not raise; may even "decode" something, CRC permitting
    frame = Frame(0x20, seq=3, payload=b"after the garbage")
    # A delimiter ends whatever the garbage left half-done; the next frame is clean.
    assert decoder.feed(b"\x00" + encode_frame(frame)) == [frame]


@given(st.lists(st.binary(max_size=300), max_size=20))
def test_garbage_in_pieces_never_raises(pieces: list[bytes]) -> None:
    decoder = FrameDecoder()
    for piece in pieces:
        decoder.feed(piece)
    assert decoder.bytes_in == sum(map(len, pieces))


def test_corrupted_byte_counts_bad_crc_and_resync() -> None:
    frame = Frame(0x31, seq=1, ack=1, payload=b"\x01\x02\x03\x04\x05\x06")  # no zero bytes
    wire = bytearray(encode_frame(frame))
    wire[6] ^= 0x40  # a data byte, not the COBS code byte
    decoder = FrameDecoder()
    assert decoder.feed(bytes(wire)) == []
    assert (decoder.bad_crc, decoder.resyncs, decoder.frames) == (1, 1, 0)
    assert decoder.feed(encode_frame(frame)) == [frame]


def test_broken_cobs_counts_bad_cobs() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"\x09\x01\x02\x00") == []  # block claims 8 bytes, has 2
    assert (decoder.bad_cobs, decoder.resyncs) == (1, 1)


def test_runt_and_bad_version_are_counted() -> None:
    decoder = FrameDecoder()
    decoder.feed(cobs_encode(b"\x01\x02\x03") + b"\x00")
    raw = bytes((9, 0x20, 0, 0, 0))
    decoder.feed(cobs_encode(raw + crc16(raw).to_bytes(2, "big")) + b"\x00")
    assert (decoder.runts, decoder.bad_version, decoder.resyncs) == (1, 1, 2)


def test_oversize_segment_is_dropped_and_the_next_frame_survives() -> None:
    frame = Frame(0x20, payload=b"ok")
    decoder = FrameDecoder()
    # 5000 bytes without a delimiter, fed in pieces: counted once, dropped, then resync.
    for _ in range(50):
        assert decoder.feed(b"\x55" * 100) == []
    assert decoder.feed(b"\x00" + encode_frame(frame)) == [frame]
    assert (decoder.oversize, decoder.resyncs) == (1, 1)


def test_decodes_to_more_than_max_payload_is_oversize_not_an_exception() -> None:
    raw = bytes(MAX_RAW_FRAME + 3)  # zeros: short enough encoded, too long decoded
    encoded = cobs_encode(raw)
    assert len(encoded) <= MAX_ENCODED_FRAME
    decoder = FrameDecoder()
    assert decoder.feed(encoded + b"\x00") == []
    assert (decoder.oversize, decoder.resyncs) == (1, 1)


def test_back_to_back_delimiters_are_idle_fill() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"\x00\x00\x00") == []
    assert decoder.errors == 0 and decoder.resyncs == 0
