"""What reader codecs report. Plain values; a UID is 8 raw bytes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Inventory:
    """Every tag a reader sees in its zone at one scan (``uids`` may be empty)."""

    reader_id: int
    seq: int
    uids: frozenset[bytes]
    t: float


@dataclass(frozen=True, slots=True)
class TagRead:
    """One single-tag read (HF readers), after duplicate suppression."""

    reader_id: int
    uid: bytes
    t: float


@dataclass(frozen=True, slots=True)
class Ack:
    """A reader's answer to a command: ``cmd`` is the command acknowledged (0x01 RF on...)."""

    reader_id: int
    cmd: int
    status: int
    data: bytes
    t: float


@dataclass(frozen=True, slots=True)
class HfCommand:
    """Any other well-formed HF frame, e.g. RF on/off as seen by a (virtual) reader."""

    reader_id: int
    cmd: int
    data: bytes
    t: float


ReaderEvent = Inventory | TagRead | Ack | HfCommand
