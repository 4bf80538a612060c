"""The host side of readers that must be asked for every round (UHF A0, HF ISC), sans-IO.

A session says what to write (:meth:`PolledSession.start`, and what :meth:`feed` and
:meth:`poll` return), decodes what comes back with its codec, and turns each finished round
into one :class:`Inventory` per antenna through a :class:`RoundResolver`. Whatever goes
wrong is a :class:`ReaderAlert` naming the reader and, when one is meant, the antenna:
corrupt frames, a reader that stops answering (the round is asked again), an error code,
a missing antenna. Alerts repeat at most every ``alert_interval`` seconds per cause.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.rfid import a0_frame as a0
from firmware_bridge.rfid import isc_frame as isc
from firmware_bridge.rfid.codec import ScanningCodec
from firmware_bridge.rfid.events import (
    Ack,
    Inventory,
    ReaderAlert,
    ReaderEvent,
    ReaderFault,
    RoundEnd,
    TagSighting,
)
from firmware_bridge.rfid.rounds import RoundResolver

DEFAULT_ROUND_TIMEOUT = 1.0
"""Seconds without the end of a round before it is asked for again (a round of 136 tags
on 16 antennas takes well under half of it)."""
DEFAULT_ALERT_INTERVAL = 30.0

SessionOutput = Inventory | ReaderAlert


@dataclass(slots=True)
class ReaderInfo:
    """What a session learnt about its reader (for ``mjtable readers probe``)."""

    firmware: str | None = None
    power_dbm: list[int] = field(default_factory=list)
    antennas: list[int] = field(default_factory=list)
    missing: set[int] = field(default_factory=set)
    reads: dict[int, int] = field(default_factory=dict)
    """Sightings per antenna port since the start."""


class PolledSession(ABC):
    codec: ScanningCodec

    def __init__(
        self,
        name: str,
        address: int,
        antennas: Mapping[int, int],
        *,
        round_timeout: float = DEFAULT_ROUND_TIMEOUT,
        alert_interval: float = DEFAULT_ALERT_INTERVAL,
        resolver: RoundResolver | None = None,
    ) -> None:
        """``antennas``: port (from 1) -> the zone-map reader id it reports as. Readers of
        one table share a ``resolver`` (see rounds.py); by default the session has its own."""
        if not antennas:
            raise ValueError(f"{name}: a reader needs at least one antenna")
        self.name = name
        self.address = address
        self.ports = sorted(antennas)
        self.resolver = resolver if resolver is not None else RoundResolver({})
        self.slot = self.resolver.add_reader(antennas)
        self.round_timeout = round_timeout
        self.alert_interval = alert_interval
        self.info = ReaderInfo(antennas=list(self.ports))
        self.timeouts = 0
        self._silent_rounds = 0
        self._asked: float | None = None
        self._answered = True
        self._alerted: dict[tuple[str, int | None], float] = {}
        self._bad_seen = 0
        self._rssi: dict[int, float] = {}

    # --- protocol specifics ----------------------------------------------------------------

    @abstractmethod
    def _queries(self) -> bytes:
        """Asked once on open: firmware version, power..."""

    @abstractmethod
    def _round_command(self, more: bool) -> bytes:
        """Start a round (or, ``more``, fetch the rest of the round's records)."""

    @abstractmethod
    def _on_ack(self, event: Ack) -> None:
        """An answer to a query."""

    # --- the sans-IO interface ---------------------------------------------------------------

    def start(self, now: float) -> bytes:
        """The port (re)opened: forget any half frame, ask the queries and the first round."""
        self.codec.reset()
        self._asked = now
        return self._queries() + self._round_command(False)

    def feed(self, data: bytes, now: float) -> tuple[bytes, list[SessionOutput]]:
        return self._handle(self.codec.feed(data, now), now)

    def poll_due(self) -> float | None:
        """When poll() next has something to judge: the codec's gap, or the round timeout."""
        dues = [self.codec.poll_due()]
        if self._asked is not None:
            dues.append(self._asked + self.round_timeout)
        return min((d for d in dues if d is not None), default=None)

    def poll(self, now: float) -> tuple[bytes, list[SessionOutput]]:
        """Call when the line is idle: applies the codec's gap and the round timeout."""
        out, results = self._handle(self.codec.poll(now), now)
        if self._asked is not None and now - self._asked > self.round_timeout:
            self.timeouts += 1
            self._silent_rounds += 1
            self._asked = now
            # One lost command (the reader was still starting, a frame lost on the line) is
            # asked again quietly; a reader that stays silent is reported.
            if self._silent_rounds >= 2:
                text = f"{self.name}: no end of round in {self._silent_rounds} tries"
                results += self._alert("no_answer", None, text, now)
            # A reader powered up after the port opened never saw the queries either.
            if self.info.firmware is None:
                out += self._queries()
            out += self._round_command(False)
        return out, results

    def _handle(self, events: list[ReaderEvent], now: float) -> tuple[bytes, list[SessionOutput]]:
        out = b""
        results: list[SessionOutput] = []
        for event in events:
            if isinstance(event, TagSighting):
                self.info.reads[event.antenna] = self.info.reads.get(event.antenna, 0) + 1
                self._rssi[event.antenna] = max(event.rssi, self._rssi.get(event.antenna, -999.0))
                self.info.missing.discard(event.antenna)
                results += self.resolver.sight(self.slot, event, self.name)
            elif isinstance(event, RoundEnd):
                self._asked = event.t
                self._silent_rounds = 0
                if event.more:
                    out += self._round_command(True)
                    continue
                inventories, alerts = self.resolver.end_round(self.slot, event.t, self.name)
                results += alerts
                results += inventories
                out += self._round_command(False)
            elif isinstance(event, ReaderFault):
                results += self._fault(event)
            elif isinstance(event, Ack):
                self._on_ack(event)
        bad = self.codec.stats.bad_checksums + self.codec.stats.malformed
        if bad > self._bad_seen:
            n, self._bad_seen = bad - self._bad_seen, bad
            results += self._alert(
                "corrupt_frames", None, f"{self.name}: {n} corrupt frame(s)", now
            )
        return out, results

    def last_rssi(self) -> dict[int, float]:
        """The strongest read per antenna since the last call (for a live display)."""
        out, self._rssi = self._rssi, {}
        return out

    def _fault(self, fault: ReaderFault) -> list[SessionOutput]:
        if fault.antenna is not None:
            self.info.missing.add(fault.antenna)
            code = "antenna_missing" if fault.code == a0.ANTENNA_MISSING else "reader_error"
            text = f"{self.name} antenna {fault.antenna}: {fault.message}"
            return list(self._alert(code, fault.antenna, text, fault.t))
        # An error instead of a round ends the round: ask again (absence is not concluded).
        self._asked = fault.t
        return list(self._alert("reader_error", None, f"{self.name}: {fault.message}", fault.t))

    def _alert(self, code: str, antenna: int | None, message: str, now: float) -> list[ReaderAlert]:
        last = self._alerted.get((code, antenna))
        if last is not None and now - last < self.alert_interval:
            return []
        self._alerted[(code, antenna)] = now
        return [ReaderAlert(self.name, antenna, code, message, now)]


class A0Session(PolledSession):
    """An R2000/E710 reader: fast antenna switching over its antennas (real-time inventory
    when it has one), power and firmware asked on open."""

    def __init__(
        self,
        name: str,
        address: int,
        antennas: Mapping[int, int],
        *,
        power_dbm: Sequence[int] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(name, address, antennas, **options)
        self.codec = a0.A0Codec(address)
        self.power_dbm = list(power_dbm) if power_dbm is not None else None
        if len(self.ports) > 8:
            raise ValueError(f"{name}: the A0 fast switch covers 8 antennas, got {self.ports}")

    def _queries(self) -> bytes:
        out = a0.cmd_get_firmware(self.address)
        if self.power_dbm is not None:
            out += a0.cmd_set_power(self.address, self.power_dbm)
        return out + a0.cmd_get_power(self.address)

    def _round_command(self, more: bool) -> bytes:
        if len(self.ports) == 1 and self.ports[0] == 1:
            return a0.cmd_realtime_inventory(self.address, 1)
        return a0.cmd_fast_switch(self.address, self.ports)

    def _on_ack(self, event: Ack) -> None:
        if event.cmd == a0.CMD_GET_FIRMWARE and len(event.data) == 2:
            self.info.firmware = f"{event.data[0]}.{event.data[1]}"
        elif event.cmd == a0.CMD_GET_POWER and len(event.data) in (1, 4, 8):
            self.info.power_dbm = list(event.data)


class IscSession(PolledSession):
    """A FEIG-style HF reader with an antenna multiplexer: [0xB0][0x01] inventory over the
    selected antennas, following 'more data' (status 0x94) until the round is complete."""

    def __init__(
        self, name: str, address: int, antennas: Mapping[int, int], **options: Any
    ) -> None:
        super().__init__(name, address, antennas, **options)
        self.codec = isc.IscCodec(address)
        if self.ports[-1] > 8:
            raise ValueError(f"{name}: ANT_SEL covers antennas 1-8, got {self.ports}")

    def _queries(self) -> bytes:
        return isc.cmd_reader_info(self.address)

    def _round_command(self, more: bool) -> bytes:
        return isc.cmd_inventory(self.address, self.ports, more=more)

    def _on_ack(self, event: Ack) -> None:
        if event.cmd == isc.CMD_READER_INFO and len(event.data) >= 2:
            self.info.firmware = f"{event.data[0]}.{event.data[1]}"


def make_session(
    codec: str, name: str, address: int, reader_ids: Sequence[int], **options: Any
) -> PolledSession:
    """The session for a multi-antenna reader whose antenna ports 1, 2, ... report as
    ``reader_ids`` (in that order): ``codec`` is ``a0`` or ``iso15693``."""
    antennas = {port: rid for port, rid in enumerate(reader_ids, start=1)}
    return session_for(codec, name, address, antennas, **options)


def session_for(
    codec: str, name: str, address: int, antennas: Mapping[int, int], **options: Any
) -> PolledSession:
    """The session for a multi-antenna reader using only the given antenna ports (port ->
    zone-map reader id), e.g. one antenna as an enrolment pad."""
    if codec == "a0":
        return A0Session(name, address, antennas, **options)
    if codec == "iso15693":
        return IscSession(name, address, antennas, **options)
    raise ValueError(f"{codec!r} is not a multi-antenna reader codec (a0, iso15693)")
