"""The firmware's C codec against the Python one, on the same random input: both were
written from docs/protocol.md, so any disagreement is a bug (or a gap in the document) on
one side. Payloads: the C verdict (valid / unknown type / malformed) equals the Python
decoder's, and a valid payload re-encodes to itself on both sides. Streams: random bytes,
valid frames and damaged frames give the same frames and the same drop counters."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from firmware_bridge.protocol import Frame, FrameDecoder, encode_frame
from firmware_bridge.protocol.messages import (
    MalformedMessage,
    UnknownMessageType,
    decode_message,
)

from .c_link import decode_stream, payload_check

TYPES = [0x01, 0x02, 0x10, 0x20, 0x21, 0x22, 0x23, 0x24, 0x30, 0x31, 0x32, 0x25, 0x11, 0x26, 0x3F]


def _python_verdict(type_: int, payload: bytes) -> tuple[str, bytes]:
    try:
        msg = decode_message(type_, payload)
    except UnknownMessageType:
        return "unknown", b""
    except MalformedMessage:
        return "malformed", b""
    return "ok", msg.encode()


def _text(draw: st.DrawFn, max_size: int) -> bytes:
    """UTF-8 text mostly, sometimes bytes that are not UTF-8."""
    if draw(st.booleans()):
        return draw(st.text(max_size=max_size // 4)).encode()[:max_size]
    return draw(st.binary(max_size=max_size))


@st.composite
def _payloads(draw: st.DrawFn) -> tuple[int, bytes]:
    """Payloads built field by field with values in and just out of each field's range,
    then sometimes a byte too many or too few, so that both checks are reached."""
    type_ = draw(st.sampled_from(TYPES))
    b = st.integers(0, 255)
    small = st.integers(0, 9)
    if type_ == 0x01:
        sw = _text(draw, 34)
        body = draw(st.sampled_from([0, 1, 0xDEADBEEF])).to_bytes(4, "big")
        body += draw(st.sampled_from([0, 7])).to_bytes(4, "big")
        body += bytes([draw(small), draw(small), draw(st.integers(0, 3)), draw(small)])
        body += bytes([draw(small)]) + draw(st.sampled_from([0, 15, 16, 1024])).to_bytes(2, "big")
        body += bytes([len(sw)]) + sw
    elif type_ == 0x20:
        count = draw(st.integers(0, 34))
        body = bytes([draw(small), count]) + draw(st.binary(min_size=2 * count, max_size=2 * count))
    elif type_ in (0x21, 0x23):
        count = draw(st.integers(0, 130))
        size = 4 if type_ == 0x21 else 2  # start, total | reader, zone
        head = draw(st.binary(min_size=size, max_size=size))
        body = head + bytes([count]) + draw(st.binary(min_size=8 * count, max_size=8 * count))
    elif type_ == 0x25:  # each UID after its size: mostly 4..10, sometimes just outside
        sizes = draw(st.lists(st.sampled_from([4, 7, 8, 10, 8, 5, 9, 0, 3, 11]), max_size=128))
        count = max(0, min(255, len(sizes) + draw(st.sampled_from([0, 0, 0, 1, -1]))))
        body = bytes([draw(b), draw(b), count])
        for size in sizes:
            body += bytes([size]) + draw(st.binary(min_size=size, max_size=size))
    elif type_ == 0x22:
        body = bytes([draw(small), draw(small)])
    elif type_ == 0x24:
        count = draw(st.integers(0, 5))
        body = bytes([count, *(draw(st.integers(0, 7)) for _ in range(count))])
    elif type_ == 0x30:
        body = bytes([draw(small)])
    elif type_ == 0x31:
        text = _text(draw, 204)
        body = bytes([draw(small), len(text)]) + text
    elif type_ == 0x32:
        body = bytes([draw(b), draw(small), draw(b), draw(b), draw(b)])
    else:
        body = draw(st.binary(max_size=12))
    change = draw(st.sampled_from(["none", "none", "none", "more", "less"]))
    if change == "more":
        body += draw(st.binary(min_size=1, max_size=2))
    elif change == "less":
        body = body[:-1]
    return type_, body


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_payloads())
@example((0x21, bytes((0, 0, 0, 1, 2)) + bytes(16)))  # start + count > total, start 0 (§5.4)
def test_c_and_python_agree_on_every_payload(case: tuple[int, bytes]) -> None:
    type_, payload = case
    if type_ == 0x02:
        return  # ACK is link control with no payload type of its own
    c_verdict, c_bytes = payload_check(type_, payload)
    py_verdict, py_bytes = _python_verdict(type_, payload)
    if type_ < 0x20 and type_ not in (0x01, 0x10):
        assert c_verdict == "unknown"  # reserved link types: the link skips them
        return
    assert c_verdict == py_verdict, (hex(type_), payload.hex())
    if c_verdict == "ok":
        assert c_bytes == payload
        if type_ == 0x01:  # hello flags: bits other than need_reply are ignored, not kept
            payload = payload[:10] + bytes([payload[10] & 1]) + payload[11:]
        assert py_bytes == payload


@st.composite
def _streams(draw: st.DrawFn) -> bytes:
    parts = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["frame", "noise", "damaged", "long"]))
        if kind == "noise":
            parts.append(draw(st.binary(max_size=40)))
        elif kind == "long":
            parts.append(b"\x07" * draw(st.integers(1030, 1100)) + b"\x00")
        else:
            frame = Frame(
                type=draw(st.integers(0, 255)),
                seq=draw(st.integers(0, 255)),
                ack=draw(st.integers(0, 255)),
                sack=draw(st.integers(0, 255)),
                payload=draw(st.binary(max_size=300)),
                version=draw(st.sampled_from([1, 1, 1, 2])),
            )
            wire = bytearray(encode_frame(frame))
            if kind == "damaged" and len(wire) > 1:
                i = draw(st.integers(0, len(wire) - 2))
                wire[i] ^= draw(st.integers(1, 255))
            parts.append(bytes(wire))
    return b"".join(parts)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_streams())
def test_c_and_python_frame_decoders_agree(stream: bytes) -> None:
    c_frames, c = decode_stream(stream)
    py = FrameDecoder()
    py_frames = [
        bytes((f.version, f.type, f.seq, f.ack, f.sack)) + f.payload for f in py.feed(stream)
    ]
    assert c_frames == py_frames
    for name in ("bad_crc", "bad_cobs", "runts", "oversize", "bad_version", "resyncs"):
        assert getattr(c, name) == getattr(py, name), name
    assert c.frames == py.frames
