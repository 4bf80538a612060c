"""Virtual RFID readers: each scan reports the tags lying in the reader's zone.

Multi-antenna readers (``a0``, ``iso15693``) instead answer the host's commands through a
:class:`~firmware_bridge.sim.multi_antenna.VirtualMultiReader`: one port is one reader at
bus address ``address`` whose antenna ports 1, 2, ... lie under the zones of
``reader_ids``; their rounds read through the table's shared :class:`AntennaField`.

A reference (inventory) port carries one or several reader ids (a bus). With
``report="scan"`` it sends one frame per reader per scan; with ``report="change"`` each
reader sends only what an idle host needs (docs/rfid.md, "Report modes"): its set when it
changes, then every scan for ``REPORT_HOLD`` seconds, otherwise every ``REPORT_REFRESH``
seconds; the set is judged over the reader's own scans with the tracker's rule, so a misread
scan is not a change. An HF port is one reader in auto-read mode: every scan re-reads each
tag on its antenna as one frame; it answers RF on/off commands with an ack and is silent
while RF is off. Misreads drop single tags from single scans; line noise loses or corrupts
whole frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from firmware_bridge.rfid.events import HfCommand, Inventory
from firmware_bridge.rfid.hf_frame import (
    CMD_RF_OFF,
    CMD_RF_ON,
    HfCodec,
    encode_ack,
    encode_tag_read,
)
from firmware_bridge.rfid.inventory import InventoryTracker
from firmware_bridge.rfid.ref_frame import MAX_TAGS, encode_inventory
from firmware_bridge.rfid.transport import CodecName
from firmware_bridge.rfid.uid import CARD_UID_LENS, reportable
from firmware_bridge.rfid.zones import Zone, ZoneMap
from firmware_bridge.sim.antennas import AntennaField
from firmware_bridge.sim.multi_antenna import VirtualMultiReader, make_virtual_reader
from firmware_bridge.sim.noise import FrameNoise
from firmware_bridge.sim.ports import SimPort
from firmware_bridge.table import ReaderLine

DEFAULT_SCAN_INTERVAL = 0.1
REPORT_HOLD = 0.3
"""After a change, a reader in change mode reports every scan this long: the host's tracker
sees a tag gone for two scans and a quarter second (its defaults), as from a reader that
reports every scan."""
REPORT_REFRESH = 1.0
"""An unchanged set is repeated this often: a sign of life well inside the host's
``reader_silent_after`` (3 s)."""

ReportMode = Literal["scan", "change"]


@dataclass(slots=True)
class _ChangeReport:
    """One reader's state in change mode: its own view of the zone, and what it last sent."""

    judge: InventoryTracker | None
    """None for a reader outside the zone map (it sees nothing)."""
    sent: frozenset[bytes] | None = None
    changed_at: float = 0.0
    sent_at: float = 0.0
    seq: int = 0


@dataclass(slots=True)
class ReaderStats:
    scans: int = 0
    frames: int = 0
    """Frames sent by the scans (a reference reader's inventories, an HF reader's reads)."""
    misreads: int = 0
    """Tags left out of one scan."""
    commands: int = 0


class VirtualReaderPort:
    def __init__(
        self,
        port: SimPort,
        codec: str,
        reader_ids: Sequence[int],
        zones: ZoneMap,
        tags_in: Callable[[Zone], frozenset[bytes]],
        rng: random.Random,
        *,
        scan_interval: float = DEFAULT_SCAN_INTERVAL,
        misread_rate: float = 0.0,
        drop_rate: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        field: AntennaField | None = None,
        table: Callable[[], Mapping[Zone, frozenset[bytes]]] | None = None,
        address: int = 1,
        round_time_scale: float = 1.0,
        report: ReportMode = "scan",
    ) -> None:
        """``field`` and ``table`` (where every tag lies) are for multi-antenna readers;
        ``report`` for reference readers."""
        if codec not in ("ref", "hf", "a0", "iso15693"):
            raise ValueError(f"unknown reader codec {codec!r} (ref, hf, a0, iso15693)")
        if report not in ("scan", "change"):
            raise ValueError(f"unknown report mode {report!r} (scan, change)")
        if report == "change" and codec != "ref":
            raise ValueError("only reference readers report changes; the others, every read")
        if codec == "hf" and len(reader_ids) != 1:
            raise ValueError("an HF port is exactly one reader")
        if not 0.0 <= misread_rate <= 1.0:
            raise ValueError(f"misread rate {misread_rate} is outside 0..1")
        self.port = port
        self.codec = codec
        self.address = address
        self.round_time_scale = round_time_scale
        self.reader_ids = tuple(reader_ids)
        self.zones = zones
        self._tags_in = tags_in
        self.rng = rng
        self.scan_interval = scan_interval
        self.misread_rate = misread_rate
        self.noise = FrameNoise(drop_rate, rng)
        self._clock = clock
        self.stats = ReaderStats()
        self.rf_on = True
        self._seq = 0
        self.report = report
        """May be changed while the port runs (bench/latency.py measures both)."""
        self._changes: dict[int, _ChangeReport] = {}
        self._commands = HfCodec(self.reader_ids[0])  # decodes RF on/off from the host
        self._task: asyncio.Task[None] | None = None
        self.multi: VirtualMultiReader | None = None
        if codec in ("a0", "iso15693"):
            if field is None or table is None:
                raise ValueError(f"a virtual {codec} reader needs the antenna field and table")
            antennas = {p: zones[r] for p, r in enumerate(self.reader_ids, start=1)}
            self.multi = make_virtual_reader(codec, address, antennas, field, table)
        self._answering: asyncio.Task[None] | None = None
        self._pending: list[tuple[float, bytes]] = []
        port.on_bytes = self._on_bytes

    async def start(self) -> None:
        await self.port.plug()
        if self.multi is None:
            self._task = asyncio.get_running_loop().create_task(self._scan_loop())

    async def close(self) -> None:
        for task in (self._task, self._answering):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = self._answering = None
        await self.port.unplug()

    def line(self) -> ReaderLine:
        """How the host opens this port."""
        ids = self.reader_ids
        return ReaderLine(self.port.url, cast(CodecName, self.codec), ids[0], self.address, ids)

    def visible(self, reader_id: int) -> frozenset[bytes]:
        """The tags this reader can see: its zone's, shared out when several readers
        cover one zone (a large pool) by a fixed split of the UIDs."""
        zone = self.zones.get(reader_id)
        if zone is None:
            return frozenset()
        # (a tag this reader's frames cannot name is not seen, never a reader stopped)
        fits = reportable if self.codec == "ref" else lambda t: len(t) in CARD_UID_LENS
        tags = frozenset(t for t in self._tags_in(zone) if fits(t))
        readers = self.zones.readers_of(zone)
        if len(readers) > 1:
            index = readers.index(reader_id)
            tags = frozenset(t for t in tags if t[-1] % len(readers) == index)
        return tags

    def reports_tags(self) -> bool:
        """Whether a change-mode reader's last frame still named a tag: its own debounce
        holds a tile taken away for a quarter second (other readers send what lies there)."""
        return self.report == "change" and any(s.sent for s in self._changes.values())

    def scan(self) -> bytes:
        """One scan's bytes (misreads and line noise applied)."""
        self.stats.scans += 1
        out = bytearray()
        for reader_id in self.reader_ids:
            seen = sorted(self._misread(self.visible(reader_id)))
            if self.report == "change":
                out += self._report_change(reader_id, frozenset(seen))
            elif self.codec == "ref":
                self.stats.frames += 1
                out += self.noise.apply(encode_inventory(reader_id, self._seq, seen[:MAX_TAGS]))
            elif self.rf_on:
                self.stats.frames += len(seen)
                for uid in seen:
                    out += self.noise.apply(encode_tag_read(uid))
        self._seq = (self._seq + 1) & 0xFF
        return bytes(out)

    def _report_change(self, reader_id: int, seen: frozenset[bytes]) -> bytes:
        """Change mode: this scan's frame of the reader, or nothing. ``seq`` counts frames."""
        state = self._changes.get(reader_id)
        if state is None:
            zone = self.zones.get(reader_id)
            judge = None if zone is None else InventoryTracker(ZoneMap({reader_id: zone}))
            state = self._changes[reader_id] = _ChangeReport(judge)
        now = self._clock()
        present = seen
        if state.judge is not None:  # the tracker's own rule: a misread scan is no change
            state.judge.update(Inventory(reader_id, 0, seen, now))
            present = state.judge.present(state.judge.zones[reader_id])
        if present != state.sent:
            state.changed_at = now
        elif now - state.changed_at >= REPORT_HOLD and now - state.sent_at < REPORT_REFRESH:
            return b""
        state.sent, state.sent_at = present, now
        frame = encode_inventory(reader_id, state.seq, sorted(present)[:MAX_TAGS])
        state.seq = (state.seq + 1) & 0xFF
        self.stats.frames += 1
        return self.noise.apply(frame)

    def _misread(self, tags: frozenset[bytes]) -> frozenset[bytes]:
        if self.misread_rate == 0.0:
            return tags
        kept = frozenset(t for t in tags if self.rng.random() >= self.misread_rate)
        self.stats.misreads += len(tags) - len(kept)
        return kept

    def _on_bytes(self, data: bytes) -> None:
        if self.multi is not None:
            self._answer(self.multi, data)
            return
        if self.codec != "hf":
            return  # inventory readers take no commands
        for event in self._commands.feed(data, self._clock()):
            if not isinstance(event, HfCommand):
                continue
            self.stats.commands += 1
            if event.cmd == CMD_RF_ON:
                self.rf_on = True
            elif event.cmd == CMD_RF_OFF:
                self.rf_on = False
            self.port.write(encode_ack(event.cmd))

    def _answer(self, reader: VirtualMultiReader, data: bytes) -> None:
        # Answers go out in order, each after the time its round takes.
        for answer in reader.receive(data, self._clock()):
            self.stats.commands += 1
            self._pending.append((answer.delay * self.round_time_scale, answer.data))
        if self._pending and (self._answering is None or self._answering.done()):
            self._answering = asyncio.get_running_loop().create_task(self._send_answers())

    async def _send_answers(self) -> None:
        while self._pending:
            delay, data = self._pending.pop(0)
            await asyncio.sleep(delay)
            self.stats.scans += 1
            if self.port.plugged:
                self.port.write(self.noise.apply(data))

    async def _scan_loop(self) -> None:
        while True:
            if self.port.plugged:
                data = self.scan()
                if data:
                    self.port.write(data)
            await asyncio.sleep(self.scan_interval)
