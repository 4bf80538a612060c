"""The reader-codec interface and the scanning machinery both codecs share.

A codec is sans-IO: the caller feeds it bytes with the time they arrived (float seconds,
any monotonic clock) and calls :meth:`ReaderCodec.poll` when time passes without bytes.
It never raises on input; whatever is wrong with the bytes shows up in :class:`CodecStats`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from enum import Enum, auto
from typing import Literal, Protocol

from firmware_bridge.rfid.events import ReaderEvent

DEFAULT_GAP_TIMEOUT = 0.2
"""Seconds of silence after which a half-received frame is abandoned.

Readers send a frame back to back, so any pause inside one is abnormal; 0.2 s is long enough
that a busy Pi reading late does not mistake its own stall for a gap.
"""


@dataclass(slots=True)
class CodecStats:
    frames: int = 0
    """Well-formed frames (checksum and framing right)."""
    bad_checksums: int = 0
    malformed: int = 0
    """Frames with a bad length, end byte, tag count or payload size."""
    resyncs: int = 0
    """Times sync was lost and the parser had to hunt for the next frame start."""
    bytes_discarded: int = 0
    gap_resets: int = 0
    """Times the line went quiet mid-frame and the partial frame was dropped."""
    duplicates_suppressed: int = 0
    seq_gaps: int = 0
    """Inventory sequence numbers skipped (scans lost on the wire)."""
    stale_sets: int = 0
    """Inventories not passed on: a newer one of the same reader came in the same read (the
    host was behind the line, and only the reader's newest set says where the tiles are)."""


class ReaderCodec(Protocol):
    """Decode one reader's byte stream into :data:`ReaderEvent` values."""

    reader_id: int

    @property
    def stats(self) -> CodecStats: ...

    def feed(self, data: bytes, now: float) -> list[ReaderEvent]:
        """Bytes that arrived at ``now``; returns the events they completed."""
        ...

    def poll(self, now: float) -> list[ReaderEvent]:
        """A read came back empty at ``now``: applies the gap timeout (measured from the
        last byte). Call it whenever the line is found idle; feed() never does."""
        ...

    def reset(self) -> None:
        """Drop any partial frame (e.g. after reopening the port); counters are kept."""
        ...

    @property
    def pending(self) -> bool:
        """Bytes wait for the rest of a frame (only poll() can give up on them)."""
        ...

    def poll_due(self) -> float | None:
        """When poll() may next give up on a frame cut off (None: no bytes wait). A shell
        that polls then, or after, need not poll in between."""
        ...


class Step(Enum):
    NEED_MORE = auto()
    MALFORMED = auto()
    BAD_CHECKSUM = auto()
    OK = auto()


class ScanningCodec(ABC):
    """Buffer, find the sync, hand candidates to :meth:`_parse`; resync one byte at a time.

    Dropping a single byte after a bad candidate (rather than the whole candidate) means a
    real frame hidden behind a false sync byte is still found.
    """

    sync: bytes

    def __init__(self, reader_id: int, gap_timeout: float) -> None:
        self.reader_id = reader_id
        self.gap_timeout = gap_timeout
        self._stats = CodecStats()
        self._buf = bytearray()
        self._last_rx: float | None = None
        self._hunting = False

    @property
    def stats(self) -> CodecStats:
        return self._stats

    @abstractmethod
    def _parse(self, buf: bytes | bytearray) -> tuple[Step, int]:
        """Look at a candidate starting with the sync; return the verdict and frame length."""

    @abstractmethod
    def _decode(self, frame: bytes, t: float) -> list[ReaderEvent]:
        """Turn one well-formed frame into events (may count it as malformed instead)."""

    def feed(self, data: bytes, now: float) -> list[ReaderEvent]:
        # No gap check here: bytes fed late may have waited in the OS buffer while the host
        # was busy. Silence is only known when a read comes back empty, i.e. in poll().
        if not data:
            return self.poll(now)
        self._last_rx = now
        if not self._buf and data.startswith(self.sync):
            # The usual read holds one whole frame and nothing is left from the last: decode
            # it where it lies (what _scan would do, without the buffer's copies).
            step, length = self._parse(data)
            if step is Step.OK and length == len(data):
                self._hunting = False
                self._stats.frames += 1
                return self._decode(data, now)
        self._buf += data
        return self._scan(now, final=False)

    def poll(self, now: float) -> list[ReaderEvent]:
        last = self._last_rx
        if not self._buf or last is None or now - last <= self.gap_timeout:
            return []
        # Bytes stopped mid-frame: the candidate will never complete. Whatever complete
        # frames hide behind its false start are still decoded, the rest is dropped.
        self._stats.gap_resets += 1
        events = self._scan(last, final=True)
        self._discard(len(self._buf))
        return events

    def reset(self) -> None:
        self._buf.clear()
        self._last_rx = None

    @property
    def pending(self) -> bool:
        return bool(self._buf)

    def poll_due(self) -> float | None:
        if not self._buf or self._last_rx is None:
            return None
        return self._last_rx + self.gap_timeout

    def _discard(self, n: int) -> None:
        if n <= 0:
            return
        del self._buf[:n]
        self._stats.bytes_discarded += n
        if not self._hunting:
            self._hunting = True
            self._stats.resyncs += 1

    def _scan(self, t: float, *, final: bool) -> list[ReaderEvent]:
        events: list[ReaderEvent] = []
        buf = self._buf
        while buf:
            start = buf.find(self.sync)
            if start < 0:
                # Keep a trailing prefix of the sync: its other bytes may be on the way.
                keep = 0
                for n in range(len(self.sync) - 1, 0, -1):
                    if buf.endswith(self.sync[:n]):
                        keep = n
                        break
                if final:
                    keep = 0
                self._discard(len(buf) - keep)
                break
            self._discard(start)
            step, length = self._parse(buf)
            if step is Step.NEED_MORE:
                if not final:
                    break
                self._discard(1)
            elif step is Step.OK:
                frame = bytes(buf[:length])
                del buf[:length]
                self._hunting = False
                self._stats.frames += 1
                events += self._decode(frame, t)
            else:
                if step is Step.BAD_CHECKSUM:
                    self._stats.bad_checksums += 1
                else:
                    self._stats.malformed += 1
                self._discard(1)
        return events


Role = Literal["host", "reader"]


class CommandCodec(ScanningCodec):
    """A codec for a command/answer protocol, where both sides' frames look alike:
    ``role`` says which side's frames it decodes (``"host"``: the reader's answers;
    ``"reader"``: the host's commands, for a virtual reader)."""

    def __init__(
        self, reader_id: int = 0, gap_timeout: float = DEFAULT_GAP_TIMEOUT, role: Role = "host"
    ) -> None:
        super().__init__(reader_id, gap_timeout)
        self.role = role
