"""Asyncio shell around a reader codec: opens the reader by pyserial URL, feeds bytes and
time, polls when something falls due, and yields inventories. Reopens the device when it disappears.

Inventory readers (RefCodec) report whole inventories. Single-tag HF readers report reads;
a PresenceTracker per reader turns them into an inventory every `snapshot_interval`.
Multi-antenna readers that answer commands (UHF A0, HF ISC) are driven by a sans-IO
PolledSession (sessions.py): it says what to write, and its rounds become inventories, one
per antenna, and ReaderAlerts.

An HF reader with an empty zone is silent, exactly like a dead one. So an HF port sends a
keepalive command (RF on) every `keepalive_interval`, and presence is judged as of the
reader's last sign of life (any frame: a read or an ack), never later: a reader that dies
stops reporting instead of reporting an empty zone (every tile taken out of it). The bridge
then judges it silent: "reader silent", and its zone is read nowhere until it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal, Self

from firmware_bridge.rfid.codec import CodecStats, ReaderCodec
from firmware_bridge.rfid.events import Inventory, ReaderAlert, ReaderEvent, TagRead
from firmware_bridge.rfid.hf_frame import HfCodec, encode_rf_on
from firmware_bridge.rfid.presence import DEFAULT_PRESENCE_TIMEOUT, PresenceTracker
from firmware_bridge.rfid.ref_frame import RefCodec
from firmware_bridge.rfid.sessions import PolledSession, SessionOutput
from firmware_bridge.serial_port import Connection, ReconnectingPort

log = logging.getLogger(__name__)

BEHIND_SCANS = 3
"""Behind a reader line: a read brought this many sets of one reader, or more (the host was
that many scans late). Two now and then (a late timer, a USB adapter's latency) is no news."""
BEHIND_LOG_EVERY = 10.0
"""s between the warnings that the host is behind a reader line."""
POLL_MARGIN = 0.001
"""The loop wakes this long after a deadline, so that the deadline has passed by then."""
DEFAULT_SNAPSHOT_INTERVAL = 0.2
DEFAULT_KEEPALIVE_INTERVAL = 0.5
"""Also bounds how late an HF zone that has just been emptied is seen empty."""

CodecName = Literal["ref", "hf", "a0", "iso15693"]


class ReaderTransport(ReconnectingPort):
    """One reader port (a single HF reader, or a bus of inventory readers) until close().

    Inventories go to `on_inventory` if given, else to a queue read with `recv()` or
    `async for inv in transport` (with a session, ReaderAlerts come the same way, or go to
    `on_alert`). Acks and other frames are counted in `other_events`. Callbacks run in the
    read callback itself: a consumer that keeps up needs no task woken per frame.
    """

    def __init__(
        self,
        url: str,
        codec: ReaderCodec,
        *,
        session: PolledSession | None = None,
        baudrate: int = 115_200,
        on_inventory: Callable[[Inventory], None] | None = None,
        on_alert: Callable[[ReaderAlert], None] | None = None,
        presence: bool | None = None,
        presence_timeout: float = DEFAULT_PRESENCE_TIMEOUT,
        snapshot_interval: float = DEFAULT_SNAPSHOT_INTERVAL,
        keepalive: bytes | None = None,
        keepalive_interval: float = DEFAULT_KEEPALIVE_INTERVAL,
        backoff_initial: float = 0.1,
        backoff_max: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        serial_options: dict[str, Any] | None = None,
    ) -> None:
        """`presence` defaults to True for an HfCodec; `keepalive` (bytes written on open and
        every `keepalive_interval`) defaults to RF on for an HfCodec. With a keepalive,
        presence snapshots are taken as of the reader's last frame; without one, as of now
        (for readers that answer nothing: an empty zone then looks like a dead reader)."""
        super().__init__(
            url,
            baudrate=baudrate,
            backoff_initial=backoff_initial,
            backoff_max=backoff_max,
            rng=rng,
            serial_options=serial_options,
        )
        is_hf = isinstance(codec, HfCodec)
        self.codec = codec
        self.session = session
        self.alerts = 0
        self._on_inventory = on_inventory
        self._on_alert = on_alert
        self._clock = clock
        self._presence_enabled = is_hf if presence is None else presence
        self.presence_timeout = presence_timeout
        self.snapshot_interval = snapshot_interval
        self.keepalive = encode_rf_on() if keepalive is None and is_hf else keepalive
        self.keepalive_interval = keepalive_interval
        self._presence: dict[int, PresenceTracker] = {}
        if self._presence_enabled:
            self._presence[codec.reader_id] = PresenceTracker(codec.reader_id, presence_timeout)
        self._inbox: asyncio.Queue[Inventory | ReaderAlert] = asyncio.Queue()
        self._untimed = False
        """The session loop waits for bytes or loss with no timeout (nothing to judge)."""
        self._last_frame: float | None = None
        self._last_snapshot: float | None = None
        self.inventories = 0
        self.other_events = 0
        self._behind_told: tuple[float, int] | None = None
        """When the host last said it is behind this line, and the stale sets by then."""

    @classmethod
    def for_codec(cls, url: str, codec: CodecName, reader_id: int = 0, **options: Any) -> Self:
        """`ref`: inventory readers (reader ids come from the frames); `hf`: one HF reader
        whose inventories carry `reader_id`. Multi-antenna readers: :meth:`for_session`."""
        if codec in ("a0", "iso15693"):
            raise ValueError(f"a {codec} reader needs its antennas: use for_session()")
        chosen: ReaderCodec = HfCodec(reader_id) if codec == "hf" else RefCodec(reader_id)
        return cls(url, chosen, **options)

    @classmethod
    def for_session(cls, url: str, session: PolledSession, **options: Any) -> Self:
        """A multi-antenna reader driven by `session` (A0Session, IscSession)."""
        return cls(url, session.codec, session=session, **options)

    # --- public API --------------------------------------------------------------------

    @property
    def stats(self) -> CodecStats:
        """The codec's counters (bad frames, resyncs, gaps...)."""
        return self.codec.stats

    def deliver_to(
        self, on_inventory: Callable[[Inventory], None], on_alert: Callable[[ReaderAlert], None]
    ) -> None:
        """From now on inventories and alerts go to these callbacks (what is queued first)."""
        self._on_inventory, self._on_alert = on_inventory, on_alert
        while not self._inbox.empty():
            item = self._inbox.get_nowait()
            if isinstance(item, ReaderAlert):
                on_alert(item)
            else:
                on_inventory(item)

    async def recv(self) -> Inventory | ReaderAlert:
        return await self._inbox.get()

    def __aiter__(self) -> AsyncIterator[Inventory | ReaderAlert]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Inventory | ReaderAlert]:
        while True:
            yield await self._inbox.get()

    # --- the session on an open device ---------------------------------------------------

    def _on_open(self) -> None:
        self.codec.reset()
        self._last_frame = None

    def _on_bytes(self, data: bytes) -> None:
        if self.session is not None:
            self._session_out(*self.session.feed(data, self._clock()))
            return
        self._handle(self.codec.feed(data, self._clock()))
        if self._untimed and self.codec.pending:
            self._wake.set()  # a frame cut off so far: the loop times its gap

    def _session_out(self, write: bytes, results: list[SessionOutput]) -> None:
        if write and self._conn is not None:
            self._conn.write(write)
        for result in results:
            if isinstance(result, ReaderAlert):
                self.alerts += 1
                if self._on_alert is not None:
                    self._on_alert(result)
                elif self._on_inventory is None:
                    self._inbox.put_nowait(result)
            else:
                self._emit(result)

    def _handle(self, events: list[ReaderEvent]) -> None:
        # Sets of one reader read together: the host was behind the line (a slow CPU, a
        # stall), and only the newest says where the tiles are; the older ones would cost
        # the tracker time the host does not have.
        sets = Counter(e.reader_id for e in events if isinstance(e, Inventory))
        newest = {e.reader_id: i for i, e in enumerate(events) if isinstance(e, Inventory)}
        stale = 0
        for i, event in enumerate(events):
            self._last_frame = event.t
            if isinstance(event, Inventory):
                if newest[event.reader_id] == i:
                    self._emit(event)
                else:
                    stale += 1
            elif isinstance(event, TagRead) and self._presence_enabled:
                tracker = self._presence.get(event.reader_id)
                if tracker is None:
                    tracker = PresenceTracker(event.reader_id, self.presence_timeout)
                    self._presence[event.reader_id] = tracker
                tracker.observe(event)
            else:
                self.other_events += 1
        if stale:
            self._stale(stale, max(sets.values()), events[-1].t)

    def _stale(self, count: int, deepest: int, now: float) -> None:
        """Counts `count` stale sets of one read, `deepest` sets of one reader the most; says
        at most every BEHIND_LOG_EVERY that the host is behind the line."""
        stats = self.codec.stats
        stats.stale_sets += count
        told = self._behind_told
        if deepest >= BEHIND_SCANS and (told is None or now - told[0] >= BEHIND_LOG_EVERY):
            log.warning(
                "behind the readers on %s: read %d sets of one reader at once; %d stale sets "
                "dropped since the last warning",
                self.url, deepest, stats.stale_sets - (told[1] if told else 0),
            )  # fmt: skip
            self._behind_told = (now, stats.stale_sets)

    def _emit(self, inventory: Inventory) -> None:
        self.inventories += 1
        if self._on_inventory is not None:
            self._on_inventory(inventory)
        else:
            self._inbox.put_nowait(inventory)

    def _snapshot(self, now: float) -> None:
        as_of = now if self.keepalive is None else self._last_frame
        if as_of is None or (self._last_snapshot is not None and as_of <= self._last_snapshot):
            return  # nothing heard since the last snapshot: no news, and no absence either
        self._last_snapshot = as_of
        for tracker in list(self._presence.values()):
            self._emit(tracker.snapshot(as_of))

    async def _session(self, conn: Connection) -> None:
        opened = self._clock()
        if self.session is not None:
            conn.write(self.session.start(opened))
        # Tags read before a disconnect may have timed out: no snapshot until every tag
        # lying on the antenna has had the time to be read again.
        next_snapshot = opened + (self.presence_timeout if self._presence_enabled else 0.0)
        next_keepalive = opened
        # The loop wakes only when something falls due: a keepalive, a presence snapshot,
        # the codec's gap for a frame cut off, a session's round timeout. 13 idle inventory
        # ports woke 65 times a second for nothing, and a polled reader's 20 times.
        while not conn.lost.is_set() and not self._closing:
            now = self._clock()
            if self.keepalive is not None and now >= next_keepalive:
                conn.write(self.keepalive)
                next_keepalive = now + self.keepalive_interval
            if self._presence_enabled and now >= next_snapshot:
                next_snapshot = now + self.snapshot_interval
                self._snapshot(now)
            dues = [self.codec.poll_due() if self.session is None else self.session.poll_due()]
            if self.keepalive is not None:
                dues.append(next_keepalive)
            if self._presence_enabled:
                dues.append(next_snapshot)
            due = min((d for d in dues if d is not None), default=None)
            self._wake.clear()
            if due is None:
                self._untimed = True  # bytes that leave a frame cut off wake the loop
                try:
                    await self._wake.wait()
                finally:
                    self._untimed = False
                continue
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, due - now) + POLL_MARGIN):
                    await self._wake.wait()
            # Bytes that waited in the OS buffer while the loop was late were read first (an
            # event loop runs I/O callbacks before timers), and the codec's gap counts from
            # the last byte fed: a busy host is not mistaken for a silent line.
            now = self._clock()
            if now >= due:
                if self.session is not None:
                    self._session_out(*self.session.poll(now))
                else:
                    self._handle(self.codec.poll(now))
