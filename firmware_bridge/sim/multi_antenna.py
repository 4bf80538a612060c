"""Virtual multi-antenna readers (UHF A0, HF ISC), sans-IO: host bytes in, answers out.

:meth:`VirtualMultiReader.receive` decodes the host's commands and returns what the reader
sends back, each answer with the time it takes (an inventory round's time grows with the
tags and, for HF, the anticollision slots). Tags are read through an :class:`AntennaField`,
so a round misses tags and reads border tags on the wrong antenna as a real one does.
The asyncio port around it is in readers.py; bench/readers.py drives it directly.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from firmware_bridge.rfid import a0_frame as a0
from firmware_bridge.rfid import isc_frame as isc
from firmware_bridge.rfid.codec import ScanningCodec
from firmware_bridge.rfid.events import HostCommand
from firmware_bridge.rfid.uid import reportable
from firmware_bridge.rfid.zones import Zone
from firmware_bridge.sim.antennas import AntennaField, Read, hf_round_seconds, uhf_round_seconds

FIRMWARE = (8, 2)
ISC_RECORDS_PER_ANSWER = 24
"""Records per ISC answer before 'more data' (a reader's buffer is a few kB)."""


@dataclass(frozen=True, slots=True)
class Answer:
    delay: float
    """Seconds after the command (or the previous answer) at which this is sent."""
    data: bytes


class VirtualMultiReader(ABC):
    def __init__(
        self,
        address: int,
        antennas: Mapping[int, Zone],
        field: AntennaField,
        table: Callable[[], Mapping[Zone, frozenset[bytes]]],
    ) -> None:
        """``antennas``: port (from 1) -> the zone it lies under; ``table()``: where every
        tag lies now."""
        self.address = address
        self.antennas = dict(antennas)
        self.field = field
        self.table = table
        self.power_dbm = [26] * max(4, len(self.antennas))
        self.missing: set[int] = set()
        """Ports whose antenna is unplugged (tests)."""
        self.mute = False
        """Answers nothing (a hung reader, for tests)."""
        self.extra: dict[int, set[bytes]] = {}
        """Foreign tags lying on a port's antenna (tests: a crowd of strangers)."""
        self.rounds = 0
        self.codec = self._new_codec()

    def receive(self, data: bytes, now: float) -> list[Answer]:
        answers: list[Answer] = []
        # A command cut short (the host unplugged mid-write) must not swallow the next ones:
        # like a real reader, forget a partial frame after a pause.
        for event in self.codec.poll(now) + self.codec.feed(data, now):
            if isinstance(event, HostCommand) and not self.mute:
                answers += self._command(event)
        return answers

    def reads(self, ports: Sequence[int]) -> dict[int, list[Read]]:
        """One round on ``ports``: the reads per port."""
        zones = {self.antennas[p]: p for p in ports if p in self.antennas and p not in self.missing}
        by_port: dict[int, list[Read]] = {p: [] for p in ports}
        for read in self.field.read_round(self.table(), frozenset(zones)):
            if self.reads_tag(read.tag):
                by_port[zones[read.zone]].append(read)
        for port, tags in self.extra.items():
            if port in self.antennas and port in by_port and port not in self.missing:
                by_port[port] += [
                    Read(self.antennas[port], t, -50) for t in sorted(tags) if self.reads_tag(t)
                ]
        self.rounds += 1
        return by_port

    def reads_tag(self, tag: bytes) -> bool:
        """Whether this reader's air interface names the tag (a card of any size it can
        report); one it cannot is never read, rather than stop the reader."""
        return reportable(tag)

    @abstractmethod
    def _new_codec(self) -> ScanningCodec: ...

    @abstractmethod
    def _command(self, cmd: HostCommand) -> list[Answer]: ...


class VirtualA0Reader(VirtualMultiReader):
    """Answers firmware, power and inventory (0x89 on antenna 1, 0x8A fast switch)."""

    def _new_codec(self) -> ScanningCodec:
        return a0.A0Codec(role="reader")

    def reads_tag(self, tag: bytes) -> bool:
        return a0.fits_epc(tag)  # (an EPC is whole 16-bit words: no 7-byte NFC card)

    def _command(self, cmd: HostCommand) -> list[Answer]:
        if cmd.reader_id not in (self.address, a0.BROADCAST):
            return []
        addr = self.address
        if cmd.cmd == a0.CMD_GET_FIRMWARE:
            return [Answer(0.002, a0.reply(addr, cmd.cmd, bytes(FIRMWARE)))]
        if cmd.cmd == a0.CMD_GET_POWER:
            return [Answer(0.002, a0.reply(addr, cmd.cmd, bytes(self.power_dbm[:8])))]
        if cmd.cmd == a0.CMD_SET_POWER and len(cmd.data) in (1, 4, 8):
            values = list(cmd.data) * (len(self.power_dbm) if len(cmd.data) == 1 else 1)
            self.power_dbm[: len(values)] = values
            return [Answer(0.002, a0.reply(addr, cmd.cmd, bytes((a0.SUCCESS,))))]
        if cmd.cmd == a0.CMD_REALTIME_INVENTORY:
            return self._round(cmd.cmd, [1])
        if cmd.cmd == a0.CMD_FAST_SWITCH_INVENTORY and len(cmd.data) in (10, 18):
            slots = cmd.data[:-2]
            ports = [slots[i] + 1 for i in range(0, len(slots), 2) if slots[i] != a0.ANTENNA_OFF]
            return self._round(cmd.cmd, ports)
        return [Answer(0.002, a0.error_frame(addr, cmd.cmd, 0x11))]

    def _round(self, cmd: int, ports: list[int]) -> list[Answer]:
        addr = self.address
        out = bytearray()
        for port in ports:
            if port in self.missing:
                out += a0.antenna_missing(addr, port)
        by_port = self.reads(ports)
        total = 0
        for port, reads in by_port.items():
            for read in reads:
                out += a0.tag_frame(addr, cmd, port, read.tag, read.rssi)
                total += 1
        seconds = uhf_round_seconds({p: len(r) for p, r in by_port.items()})
        if cmd == a0.CMD_REALTIME_INVENTORY:
            rate = round(total / seconds) if seconds else 0
            out += a0.round_end_realtime(addr, 1, min(rate, 0xFFFF), total)
        else:
            out += a0.round_end_fast_switch(addr, total, round(seconds * 1000))
        return [Answer(seconds, bytes(out))]


class VirtualIscReader(VirtualMultiReader):
    """Answers Get Reader Info and [0xB0][0x01] inventory over ANT_SEL, in answers of at
    most :data:`ISC_RECORDS_PER_ANSWER` records (status 0x94 until the last)."""

    _rest: list[isc.IscRecord]

    def _new_codec(self) -> ScanningCodec:
        self._rest = []
        return isc.IscCodec(role="reader")

    def _command(self, cmd: HostCommand) -> list[Answer]:
        if cmd.reader_id != self.address:
            return []
        addr = self.address
        if cmd.cmd == isc.CMD_READER_INFO:
            return [Answer(0.003, isc.reader_info_reply(addr, *FIRMWARE))]
        if cmd.cmd != isc.CMD_ISO_HOST or len(cmd.data) < 2 or cmd.data[0] != isc.SUB_INVENTORY:
            return [Answer(0.003, isc.status_reply(addr, cmd.cmd, 0x80))]
        mode = cmd.data[1]
        if mode & isc.MODE_MORE:
            return [Answer(0.004, self._answer())]
        mask = cmd.data[2] if mode & isc.MODE_ANT and len(cmd.data) > 2 else 1
        ports = [p for p in range(1, 9) if mask & (1 << (p - 1))]
        if any(p in self.missing for p in ports):
            return [Answer(0.01, isc.status_reply(addr, cmd.cmd, 0x84))]
        by_port = self.reads(ports)
        rssi: dict[bytes, list[tuple[int, int]]] = {}
        for port, reads in by_port.items():
            for read in reads:
                rssi.setdefault(read.tag, []).append((port, read.rssi))
        self._rest = [isc.IscRecord(tag, tuple(ants)) for tag, ants in rssi.items()]
        seconds = hf_round_seconds({p: len(r) for p, r in by_port.items()})
        return [Answer(seconds, self._answer())]

    def _answer(self) -> bytes:
        chunk, self._rest = (
            self._rest[:ISC_RECORDS_PER_ANSWER],
            self._rest[ISC_RECORDS_PER_ANSWER:],
        )
        status = isc.MORE_DATA if self._rest else isc.OK
        return isc.inventory_reply(self.address, chunk, status)


def make_virtual_reader(
    codec: str,
    address: int,
    antennas: Mapping[int, Zone],
    field: AntennaField,
    table: Callable[[], Mapping[Zone, frozenset[bytes]]],
) -> VirtualMultiReader:
    if codec == "a0":
        return VirtualA0Reader(address, antennas, field, table)
    if codec == "iso15693":
        return VirtualIscReader(address, antennas, field, table)
    raise ValueError(f"{codec!r} is not a multi-antenna reader (a0, iso15693)")
