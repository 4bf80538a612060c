"""Our reference multi-tag reader: one frame per scan carrying the full inventory.

Frames (multi-byte integers big-endian)::

    AA 55 | len:u16 | reader:u8 | seq:u8 | count:u8 | count × UID(8)           | crc:u16
    AA 56 | len:u16 | reader:u8 | seq:u8 | count:u8 | count × (n:u8 | UID(n)) | crc:u16

The first (every UID 8 bytes: the tiles) has ``len == 3 + 8 * count``; the second carries
UIDs of any size 1 … :data:`MAX_READ_LEN` (a member's card of 4, 7 or 10 bytes beside the
tiles), each after its length, and is sent only when a UID is not 8 bytes; the board's
firmware reads both. ``len`` counts reader..UIDs; ``crc`` is CRC-16/CCITT-FALSE over
len..UIDs (everything after the sync). ``count`` may be 0 (the zone is empty) and is
at most :data:`MAX_TAGS`. ``seq`` counts scans modulo 256 so lost scans can be noticed.
"""

from __future__ import annotations

from collections.abc import Iterable

from firmware_bridge.crc16 import crc16
from firmware_bridge.rfid.codec import DEFAULT_GAP_TIMEOUT, ScanningCodec, Step
from firmware_bridge.rfid.events import Inventory, ReaderEvent
from firmware_bridge.rfid.uid import MAX_READ_LEN, UID_LEN

SYNC = b"\xaa\x55"
SIZED_SYNC = b"\xaa\x56"
MAX_TAGS = 136
_HEADER = 7  # sync 2, len 2, reader, seq, count
_FIXED = 3  # reader, seq, count (the part of len that is not UIDs)
_MAX_SIZED = _FIXED + MAX_TAGS * (1 + MAX_READ_LEN)


def encode_inventory(reader_id: int, seq: int, uids: Iterable[bytes]) -> bytes:
    """One inventory frame; UIDs are sent in sorted order so equal sets give equal bytes.
    Raises ValueError for a UID of no bytes or more than ``MAX_READ_LEN``."""
    tags = sorted(set(uids))
    if not 0 <= reader_id <= 0xFF:
        raise ValueError(f"reader id {reader_id} is outside 0–255")
    if len(tags) > MAX_TAGS:
        raise ValueError(f"{len(tags)} tags exceed the frame's {MAX_TAGS}")
    for uid in tags:
        if not 1 <= len(uid) <= MAX_READ_LEN:
            raise ValueError(f"a UID is 1 to {MAX_READ_LEN} bytes, got {len(uid)}: {uid.hex()!r}")
    if all(len(uid) == UID_LEN for uid in tags):
        sync, data = SYNC, b"".join(tags)
    else:
        sync, data = SIZED_SYNC, b"".join(bytes((len(uid),)) + uid for uid in tags)
    length = _FIXED + len(data)
    body = length.to_bytes(2, "big") + bytes((reader_id, seq & 0xFF, len(tags))) + data
    return sync + body + crc16(body).to_bytes(2, "big")


def _sized_uids(tags: bytes) -> frozenset[bytes] | None:
    """A sized frame's count and UIDs as a set; None when they do not fill it exactly."""
    out, i = [], 1
    for _ in range(tags[0]):
        if i >= len(tags) or not 1 <= tags[i] <= MAX_READ_LEN:
            return None
        out.append(tags[i + 1 : i + 1 + tags[i]])
        i += 1 + tags[i]
    return frozenset(out) if i == len(tags) else None


class RefCodec(ScanningCodec):
    """Decoder for the reference reader. Emits one :class:`Inventory` per good frame.

    The reader id is taken from each frame (several readers may share one bus);
    ``reader_id`` is only the default reported by the interface.
    """

    sync = SYNC[:1]  # (then 55 or 56: the kind of frame)

    def __init__(self, reader_id: int = 0, gap_timeout: float = DEFAULT_GAP_TIMEOUT) -> None:
        super().__init__(reader_id, gap_timeout)
        self._last_seq: dict[int, int] = {}
        self._last_tags: dict[int, tuple[bytes, frozenset[bytes]]] = {}
        """Per reader, its last frame's count and UIDs as sent, and as a set."""

    def _parse(self, buf: bytes | bytearray) -> tuple[Step, int]:
        if len(buf) >= 2 and buf[1] not in (SYNC[1], SIZED_SYNC[1]):
            return Step.MALFORMED, 0
        if len(buf) < 4:
            return Step.NEED_MORE, 0
        sized = buf[1] == SIZED_SYNC[1]
        length = int.from_bytes(buf[2:4], "big")
        if length < _FIXED or length > (_MAX_SIZED if sized else _FIXED + UID_LEN * MAX_TAGS):
            return Step.MALFORMED, 0
        if not sized and (length - _FIXED) % UID_LEN:
            return Step.MALFORMED, 0
        if len(buf) >= _HEADER and not sized and buf[6] != (length - _FIXED) // UID_LEN:
            return Step.MALFORMED, 0
        if len(buf) >= _HEADER and sized and (buf[6] > MAX_TAGS or length < _FIXED + 2 * buf[6]):
            return Step.MALFORMED, 0
        total = 4 + length + 2
        if len(buf) < total:
            return Step.NEED_MORE, 0
        if crc16(buf[2 : 4 + length]) != int.from_bytes(buf[4 + length : total], "big"):
            return Step.BAD_CHECKSUM, 0
        if sized and _sized_uids(bytes(buf[_HEADER - 1 : 4 + length])) is None:
            return Step.MALFORMED, 0
        return Step.OK, total

    def _decode(self, frame: bytes, t: float) -> list[ReaderEvent]:
        reader, seq = frame[4], frame[5]
        tags = frame[1:2] + frame[_HEADER - 1 : -2]  # (the kind, then count and UIDs)
        last_tags = self._last_tags.get(reader)
        if last_tags is not None and last_tags[0] == tags:
            # A zone that did not change sends the same bytes scan after scan (the encoder
            # sorts UIDs): the same set again, which the tracker sees as unchanged at once.
            uids = last_tags[1]
        else:
            if tags[0] == SIZED_SYNC[1]:
                uids = _sized_uids(tags[1:]) or frozenset()
            else:
                uids = frozenset(
                    tags[2 + i * UID_LEN : 2 + (i + 1) * UID_LEN] for i in range(tags[1])
                )
            self._last_tags[reader] = (tags, uids)
        last = self._last_seq.get(reader)
        if last is not None and seq not in (last, (last + 1) & 0xFF):
            self._stats.seq_gaps += (seq - last - 1) & 0xFF
        self._last_seq[reader] = seq
        return [Inventory(reader, seq, uids, t)]
