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


@dataclass(frozen=True, slots=True)
class TagSighting:
    """One tag answered one antenna of a multi-antenna reader (UHF A0, HF ISC) in a round.

    ``reader_id`` is the reader's bus address, ``antenna`` its port (1-based), ``rssi``
    the signal in dBm (higher is nearer the antenna's centre)."""

    reader_id: int
    antenna: int
    tag: bytes
    rssi: float
    t: float


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """The reader finished the inventory round it was asked for (``more``: an ISC reader
    holds further records of the same round, to be asked for)."""

    reader_id: int
    cmd: int
    reads: int
    t: float
    more: bool = False


@dataclass(frozen=True, slots=True)
class ReaderFault:
    """An error code from a reader; ``antenna`` when it names one (antenna missing...)."""

    reader_id: int
    cmd: int
    code: int
    antenna: int | None
    message: str
    t: float


@dataclass(frozen=True, slots=True)
class HostCommand:
    """A host command as a (virtual) reader decodes it."""

    reader_id: int
    cmd: int
    data: bytes
    t: float


ReaderEvent = (
    Inventory | TagRead | Ack | HfCommand | TagSighting | RoundEnd | ReaderFault | HostCommand
)


@dataclass(frozen=True, slots=True)
class ReaderAlert:
    """Something wrong with a reader or one of its antennas, for the operator: ``reader``
    names the reader (its port and bus address), ``antenna`` the port when one is meant.
    Codes: ``corrupt_frames``, ``no_answer``, ``reader_error``, ``antenna_missing``,
    ``unknown_antenna``, ``crowded_round``, ``many_antennas``."""

    reader: str
    antenna: int | None
    code: str
    message: str
    t: float
