"""FEIG ISC host protocol ("advanced" frame) for HF ISO 15693 readers with antenna
multiplexers, as far as an inventory table needs it.

Frame, both ways (ALENGTH counts the whole frame, MSB first; the CRC is
CRC-16/MCRF4XX over STX..DATA, poly 0x8408 reflected, preset 0xFFFF, sent LSB first)::

    host:   02 | ALENGTH:u16 | COM-ADR | CONTROL | DATA …          | CRC16
    reader: 02 | ALENGTH:u16 | COM-ADR | CONTROL | STATUS | DATA … | CRC16

Inventory is CONTROL 0xB0 (ISO host command), DATA ``01 | MODE | ANT_SEL``: MODE bit 4
(ANT) asks for antenna numbers and selects the antennas in the ANT_SEL bit field, bit 7
(MORE) fetches the rest of the records after STATUS 0x94 ("more data"). The reader runs
the ISO 15693 16-slot anticollision on each selected antenna and answers, with ANT set::

    DATA-SETS | DATA-SETS × ( FLAGS | TR-TYPE | IDDT | IDD_LEN | IDD |
                              ANT_CNT | ANT_CNT × ( ANT_NR | RSSI | 5 reserved ) )

TR-TYPE 0x03 is ISO 15693 and IDD its 8-byte UID (``E0`` first). RSSI is read as -dBm.
STATUS 0x00 OK, 0x01 no transponder (an empty round), 0x94 more data; others are errors.
Sources in docs/rfid.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from firmware_bridge.rfid.codec import CommandCodec, Step
from firmware_bridge.rfid.events import (
    Ack,
    HostCommand,
    ReaderEvent,
    ReaderFault,
    RoundEnd,
    TagSighting,
)

STX = 0x02
CMD_ISO_HOST = 0xB0
CMD_READER_INFO = 0x66
SUB_INVENTORY = 0x01
MODE_ANT = 0x10
MODE_MORE = 0x80
TR_ISO15693 = 0x03
IDDT_UID = 0x00

OK = 0x00
NO_TRANSPONDER = 0x01
MORE_DATA = 0x94
STATUS_TEXT = {
    0x00: "OK",
    0x01: "no transponder",
    0x02: "data false",
    0x80: "unknown command",
    0x81: "length error",
    0x82: "command not available",
    0x83: "RF communication error",
    0x84: "RF warning (antenna)",
    0x94: "more data",
    0x95: "ISO 15693 error",
}
MAX_FRAME = 1024
"""Longest frame accepted (a reader buffers a few dozen records per answer)."""
_ANT_RECORD = 7  # ANT_NR, RSSI, 5 reserved
_MIN_FRAME = 7  # STX, ALENGTH 2, COM-ADR, CONTROL, CRC 2


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_CRC_TABLE = _crc_table()  # a byte at a time: every ISC frame is checked twice


def crc16_mcrf4xx(data: bytes | bytearray, crc: int = 0xFFFF) -> int:
    """CRC-16/MCRF4XX (FEIG's CRC16): check value 0x6F91 for b"123456789"."""
    table = _CRC_TABLE
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc


def status_text(status: int) -> str:
    return STATUS_TEXT.get(status, f"status {status:#04x}")


def encode_isc(addr: int, control: int, data: bytes = b"") -> bytes:
    length = len(data) + _MIN_FRAME
    if not 0 <= addr <= 0xFF or not 0 <= control <= 0xFF or length > MAX_FRAME:
        raise ValueError(f"addr {addr}, control {control:#x}, {len(data)} bytes: not a frame")
    body = bytes((STX,)) + length.to_bytes(2, "big") + bytes((addr, control)) + data
    return body + crc16_mcrf4xx(body).to_bytes(2, "little")


def ant_sel(antennas: Iterable[int]) -> int:
    mask = 0
    for a in antennas:
        if not 1 <= a <= 8:
            raise ValueError(f"antenna {a}: ANT_SEL covers antennas 1-8")
        mask |= 1 << (a - 1)
    return mask


def cmd_inventory(addr: int, antennas: Sequence[int], *, more: bool = False) -> bytes:
    mode = MODE_ANT | (MODE_MORE if more else 0)
    return encode_isc(addr, CMD_ISO_HOST, bytes((SUB_INVENTORY, mode, ant_sel(antennas))))


def cmd_reader_info(addr: int) -> bytes:
    """[0x66] Get Reader Info, mode 0x00 (firmware)."""
    return encode_isc(addr, CMD_READER_INFO, b"\x00")


@dataclass(frozen=True, slots=True)
class IscRecord:
    """One transponder of an inventory answer: its UID and the antennas that read it."""

    uid: bytes
    rssi_by_antenna: tuple[tuple[int, int], ...]
    """(antenna number from 1, RSSI in dBm)."""


def inventory_reply(addr: int, records: Sequence[IscRecord], status: int = OK) -> bytes:
    if not records and status == OK:
        status = NO_TRANSPONDER
    data = bytearray((status,))
    if records:
        data.append(len(records))
        for rec in records:
            data += bytes((0x01, TR_ISO15693, IDDT_UID, len(rec.uid))) + rec.uid
            data.append(len(rec.rssi_by_antenna))
            for antenna, rssi in rec.rssi_by_antenna:
                data += bytes((antenna, max(0, min(0xFF, -rssi)))) + b"\xff" * 5
    return encode_isc(addr, CMD_ISO_HOST, bytes(data))


def reader_info_reply(addr: int, major: int, minor: int) -> bytes:
    # STATUS, SW-REV (2), D-REV, HW-TYPE, SW-TYPE, TR-TYPE (2), RX-BUF (2), TX-BUF (2)
    data = bytes((OK, major, minor, 0, 0, 0x71, 0, 0x03)) + (1024).to_bytes(2, "big") * 2
    return encode_isc(addr, CMD_READER_INFO, data)


def status_reply(addr: int, control: int, status: int) -> bytes:
    return encode_isc(addr, control, bytes((status,)))


class IscCodec(CommandCodec):
    """Decoder for ISC advanced frames; ``role`` as for the A0 codec."""

    sync = bytes((STX,))

    def _parse(self, buf: bytes | bytearray) -> tuple[Step, int]:
        if len(buf) < 3:
            return Step.NEED_MORE, 0
        total = int.from_bytes(buf[1:3], "big")
        if not _MIN_FRAME <= total <= MAX_FRAME:
            return Step.MALFORMED, 0
        if len(buf) < total:
            return Step.NEED_MORE, 0
        if crc16_mcrf4xx(buf[: total - 2]) != int.from_bytes(buf[total - 2 : total], "little"):
            return Step.BAD_CHECKSUM, 0
        return Step.OK, total

    def _decode(self, frame: bytes, t: float) -> list[ReaderEvent]:
        addr, control, data = frame[3], frame[4], frame[5:-2]
        if self.role == "reader":
            return [HostCommand(addr, control, data, t)]
        if not data:
            self._stats.malformed += 1
            return []
        status, rest = data[0], data[1:]
        if control != CMD_ISO_HOST:
            return [Ack(addr, control, status, rest, t)]
        if status == NO_TRANSPONDER:
            return [RoundEnd(addr, control, 0, t)]
        if status not in (OK, MORE_DATA):
            return [ReaderFault(addr, control, status, None, status_text(status), t)]
        sightings = self._records(addr, rest, t)
        if sightings is None:
            self._stats.malformed += 1
            return []
        end = RoundEnd(addr, control, len(sightings), t, more=status == MORE_DATA)
        return [*sightings, end]

    @staticmethod
    def _records(addr: int, data: bytes, t: float) -> list[ReaderEvent] | None:
        """The sightings in an inventory answer, or None when it does not add up."""
        if not data:
            return None
        count, i = data[0], 1
        out: list[ReaderEvent] = []
        for _ in range(count):
            if i + 4 > len(data):
                return None
            idd_len = data[i + 3]
            i += 4
            uid = data[i : i + idd_len]
            i += idd_len
            if len(uid) != idd_len or i >= len(data):
                return None
            ants = data[i]
            i += 1
            if i + ants * _ANT_RECORD > len(data):
                return None
            for _ in range(ants):
                out.append(TagSighting(addr, data[i], bytes(uid), -float(data[i + 1]), t))
                i += _ANT_RECORD
        return out if i == len(data) else None
