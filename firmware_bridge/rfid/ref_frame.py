"""Our reference multi-tag reader: one frame per scan carrying the full inventory.

Frame (multi-byte integers big-endian)::

    AA 55 | len:u16 | reader:u8 | seq:u8 | count:u8 | count × UID(8) | crc:u16

``len`` counts reader..UIDs, so ``len == 3 + 8 * count``; ``crc`` is CRC-16/CCITT-FALSE over
len..UIDs (everything after the sync). ``count`` may be 0 (the zone is empty) and is at
most :data:`MAX_TAGS`. ``seq`` counts scans modulo 256 so lost scans can be noticed.
"""

from __future__ import annotations

from collections.abc import Iterable

from firmware_bridge.crc16 import crc16
from firmware_bridge.rfid.codec import DEFAULT_GAP_TIMEOUT, ScanningCodec, Step
from firmware_bridge.rfid.events import Inventory, ReaderEvent
from firmware_bridge.rfid.uid import UID_LEN

SYNC = b"\xaa\x55"
MAX_TAGS = 136
_HEADER = 7  # sync 2, len 2, reader, seq, count
_FIXED = 3  # reader, seq, count (the part of len that is not UIDs)


def encode_inventory(reader_id: int, seq: int, uids: Iterable[bytes]) -> bytes:
    """One inventory frame; UIDs are sent in sorted order so equal sets give equal bytes."""
    tags = sorted(set(uids))
    if not 0 <= reader_id <= 0xFF:
        raise ValueError(f"reader id {reader_id} is outside 0–255")
    if len(tags) > MAX_TAGS:
        raise ValueError(f"{len(tags)} tags exceed the frame's {MAX_TAGS}")
    for uid in tags:
        if len(uid) != UID_LEN:
            raise ValueError(f"a UID is {UID_LEN} bytes, got {uid.hex()!r}")
    length = _FIXED + UID_LEN * len(tags)
    body = length.to_bytes(2, "big") + bytes((reader_id, seq & 0xFF, len(tags))) + b"".join(tags)
    return SYNC + body + crc16(body).to_bytes(2, "big")


class RefCodec(ScanningCodec):
    """Decoder for the reference reader. Emits one :class:`Inventory` per good frame.

    The reader id is taken from each frame (several readers may share one bus);
    ``reader_id`` is only the default reported by the interface.
    """

    sync = SYNC

    def __init__(self, reader_id: int = 0, gap_timeout: float = DEFAULT_GAP_TIMEOUT) -> None:
        super().__init__(reader_id, gap_timeout)
        self._last_seq: dict[int, int] = {}
        self._last_tags: dict[int, tuple[bytes, frozenset[bytes]]] = {}
        """Per reader, its last frame's count and UIDs as sent, and as a set."""

    def _parse(self, buf: bytes | bytearray) -> tuple[Step, int]:
        if len(buf) < 4:
            return Step.NEED_MORE, 0
        length = int.from_bytes(buf[2:4], "big")
        if length < _FIXED or length > _FIXED + UID_LEN * MAX_TAGS:
            return Step.MALFORMED, 0
        if (length - _FIXED) % UID_LEN:
            return Step.MALFORMED, 0
        if len(buf) >= _HEADER and buf[6] != (length - _FIXED) // UID_LEN:
            return Step.MALFORMED, 0
        total = 4 + length + 2
        if len(buf) < total:
            return Step.NEED_MORE, 0
        if crc16(buf[2 : 4 + length]) != int.from_bytes(buf[4 + length : total], "big"):
            return Step.BAD_CHECKSUM, 0
        return Step.OK, total

    def _decode(self, frame: bytes, t: float) -> list[ReaderEvent]:
        reader, seq = frame[4], frame[5]
        tags = frame[_HEADER - 1 : -2]
        last_tags = self._last_tags.get(reader)
        if last_tags is not None and last_tags[0] == tags:
            # A zone that did not change sends the same bytes scan after scan (the encoder
            # sorts UIDs): the same set again, which the tracker sees as unchanged at once.
            uids = last_tags[1]
        else:
            uids = frozenset(tags[1 + i * UID_LEN : 1 + (i + 1) * UID_LEN] for i in range(tags[0]))
            self._last_tags[reader] = (tags, uids)
        last = self._last_seq.get(reader)
        if last is not None and seq not in (last, (last + 1) & 0xFF):
            self._stats.seq_gaps += (seq - last - 1) & 0xFF
        self._last_seq[reader] = seq
        return [Inventory(reader, seq, uids, t)]
