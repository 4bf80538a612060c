"""The common single-tag HF reader frame.

Frame::

    02 | len | cmd | data … | xor | 03

``len`` is the number of bytes of cmd + data (1 … :data:`MAX_LEN`); ``xor`` is the XOR of
len, cmd and every data byte. Commands: 0x01 RF on, 0x02 RF off; the reader acknowledges
with ``cmd | 0x80`` (an optional first data byte is a status, 0 = OK); 0x10 is a tag read
whose data is the tag's UID, in the byte order the reader prints it: 8 bytes for an
ISO-15693 tile, 4, 7 or 10 for an ISO-14443 card (``CARD_UID_LENS``).

A reader in auto-read mode reports a tag again and again while it lies on the antenna;
reads of the same UID within ``hold_time`` of the last one reported are suppressed.
"""

from __future__ import annotations

from firmware_bridge.rfid.codec import DEFAULT_GAP_TIMEOUT, ScanningCodec, Step
from firmware_bridge.rfid.events import Ack, HfCommand, ReaderEvent, TagRead
from firmware_bridge.rfid.uid import CARD_UID_LENS

STX = 0x02
ETX = 0x03
MAX_LEN = 32
"""Longest cmd + data accepted; small so that a false STX costs little waiting."""

CMD_RF_ON = 0x01
CMD_RF_OFF = 0x02
CMD_TAG_READ = 0x10
ACK_BIT = 0x80

DEFAULT_HOLD_TIME = 0.5
"""Seconds within which a re-read of the same UID is the same presence, not news."""


def _xor(data: bytes | bytearray) -> int:
    acc = 0
    for byte in data:
        acc ^= byte
    return acc


def encode_hf_frame(cmd: int, data: bytes = b"") -> bytes:
    body = bytes((len(data) + 1, cmd)) + data
    if not 0 <= cmd <= 0xFF or len(data) + 1 > MAX_LEN:
        raise ValueError(f"cmd {cmd:#x} with {len(data)} data bytes does not fit a frame")
    return bytes((STX,)) + body + bytes((_xor(body), ETX))


def encode_rf_on() -> bytes:
    return encode_hf_frame(CMD_RF_ON)


def encode_rf_off() -> bytes:
    return encode_hf_frame(CMD_RF_OFF)


def encode_ack(cmd: int, status: int = 0) -> bytes:
    return encode_hf_frame(cmd | ACK_BIT, bytes((status,)))


def encode_tag_read(uid: bytes) -> bytes:
    if len(uid) not in CARD_UID_LENS:
        raise ValueError(f"a UID is {CARD_UID_LENS} bytes, got {len(uid)}: {uid.hex()!r}")
    return encode_hf_frame(CMD_TAG_READ, uid)


class HfCodec(ScanningCodec):
    """Decoder for the HF frame; one codec per reader (the frame carries no reader id)."""

    sync = bytes((STX,))

    def __init__(
        self,
        reader_id: int = 0,
        gap_timeout: float = DEFAULT_GAP_TIMEOUT,
        hold_time: float = DEFAULT_HOLD_TIME,
    ) -> None:
        super().__init__(reader_id, gap_timeout)
        self.hold_time = hold_time
        self._reported: dict[bytes, float] = {}

    def _parse(self, buf: bytes | bytearray) -> tuple[Step, int]:
        if len(buf) < 2:
            return Step.NEED_MORE, 0
        length = buf[1]
        if not 1 <= length <= MAX_LEN:
            return Step.MALFORMED, 0
        total = length + 4
        if len(buf) < total:
            return Step.NEED_MORE, 0
        if buf[total - 1] != ETX:
            return Step.MALFORMED, 0
        if _xor(buf[1 : total - 2]) != buf[total - 2]:
            return Step.BAD_CHECKSUM, 0
        return Step.OK, total

    def _decode(self, frame: bytes, t: float) -> list[ReaderEvent]:
        cmd, data = frame[2], frame[3:-2]
        if cmd & ACK_BIT:
            status = data[0] if data else 0
            return [Ack(self.reader_id, cmd & 0x7F, status, data, t)]
        if cmd != CMD_TAG_READ:
            return [HfCommand(self.reader_id, cmd, data, t)]
        if len(data) not in CARD_UID_LENS:
            self._stats.malformed += 1
            return []
        last = self._reported.get(data)
        if last is not None and 0 <= t - last < self.hold_time:
            self._stats.duplicates_suppressed += 1
            return []
        self._reported[data] = t
        return [TagRead(self.reader_id, data, t)]

    def poll(self, now: float) -> list[ReaderEvent]:
        # Forget UIDs whose hold has run out so the table cannot grow without bound.
        stale = [uid for uid, t in self._reported.items() if now - t >= self.hold_time]
        for uid in stale:
            del self._reported[uid]
        return super().poll(now)
