"""Frame codec: header + payload + CRC-16, COBS-encoded, 0x00-delimited. Sans-IO.

Layout before COBS (see docs/protocol.md):

    version u8 | type u8 | seq u8 | ack u8 | sack u8 | payload (0..MAX_PAYLOAD) | crc16 u16 BE

The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over header and payload.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.crc16 import crc16

from .cobs import CobsError, cobs_decode, cobs_encode

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS = frozenset({PROTOCOL_VERSION})
DELIMITER = b"\x00"
HEADER_SIZE = 5
CRC_SIZE = 2
MAX_PAYLOAD = 1024
MAX_RAW_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE
# COBS adds one code byte per started 254-byte block.
MAX_ENCODED_FRAME = MAX_RAW_FRAME + MAX_RAW_FRAME // 254 + 1


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame. `type` is the message type byte; ack/sack are piggybacked acks."""

    type: int
    seq: int = 0
    ack: int = 0
    sack: int = 0
    payload: bytes = b""
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        for name in ("type", "seq", "ack", "sack", "version"):
            value = getattr(self, name)
            if not 0 <= value <= 0xFF:
                raise ValueError(f"{name}={value} does not fit in a byte")
        if len(self.payload) > MAX_PAYLOAD:
            raise ValueError(f"payload of {len(self.payload)} bytes exceeds {MAX_PAYLOAD}")


def encode_frame(frame: Frame) -> bytes:
    """Frame -> wire bytes, including the trailing 0x00 delimiter."""
    raw = bytes((frame.version, frame.type, frame.seq, frame.ack, frame.sack)) + frame.payload
    raw += crc16(raw).to_bytes(2, "big")
    return cobs_encode(raw) + DELIMITER


class FrameDecoder:
    """Turns an arbitrary byte stream into frames. Never raises on any input.

    Every dropped segment is counted under its reason and as one resync: the decoder
    throws the bytes away and starts again after the next 0x00.
    """

    def __init__(self, versions: frozenset[int] = SUPPORTED_VERSIONS) -> None:
        self._versions = versions
        self._buf = bytearray()
        self._discarding = False  # inside an oversize segment: skip to the next delimiter
        self.frames = 0
        self.bytes_in = 0
        self.bad_cobs = 0
        self.bad_crc = 0
        self.runts = 0
        self.oversize = 0
        self.bad_version = 0
        self.resyncs = 0

    @property
    def errors(self) -> int:
        return self.bad_cobs + self.bad_crc + self.runts + self.oversize + self.bad_version

    def feed(self, data: bytes) -> list[Frame]:
        self.bytes_in += len(data)
        if DELIMITER not in data:
            self._append(data)
            return []
        pieces = data.split(DELIMITER)
        frames: list[Frame] = []
        # All pieces but the last are terminated by a delimiter.
        for piece in pieces[:-1]:
            if self._discarding:
                self._discarding = False
                self._buf.clear()
                continue
            if self._buf:
                self._buf += piece
                segment = bytes(self._buf)
                self._buf.clear()
            else:
                segment = piece
            if len(segment) > MAX_ENCODED_FRAME:
                self._drop_oversize()
                continue
            frame = self._decode_segment(segment)
            if frame is not None:
                frames.append(frame)
        self._append(pieces[-1])
        return frames

    def _append(self, data: bytes) -> None:
        if self._discarding or not data:
            return
        self._buf += data
        if len(self._buf) > MAX_ENCODED_FRAME:
            self._drop_oversize()
            self._discarding = True

    def _drop_oversize(self) -> None:
        self._buf.clear()
        self.oversize += 1
        self.resyncs += 1

    def _decode_segment(self, segment: bytes) -> Frame | None:
        if not segment:
            return None  # back-to-back delimiters are idle fill, not an error
        try:
            raw = cobs_decode(segment)
        except CobsError:
            self.bad_cobs += 1
            self.resyncs += 1
            return None
        if len(raw) < HEADER_SIZE + CRC_SIZE:
            self.runts += 1
            self.resyncs += 1
            return None
        if len(raw) > MAX_RAW_FRAME:
            self._drop_oversize()
            return None
        body = raw[:-CRC_SIZE]
        if crc16(body) != int.from_bytes(raw[-CRC_SIZE:], "big"):
            self.bad_crc += 1
            self.resyncs += 1
            return None
        if body[0] not in self._versions:
            self.bad_version += 1
            self.resyncs += 1
            return None
        self.frames += 1
        return Frame(
            version=body[0],
            type=body[1],
            seq=body[2],
            ack=body[3],
            sack=body[4],
            payload=body[HEADER_SIZE:],
        )
