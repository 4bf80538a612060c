"""The serial command set of the Impinj R2000 / E710 UHF reader modules ("A0" protocol).

Frame, both ways::

    A0 | len | addr | cmd | data … | check

``len`` counts addr, cmd, data and check (so ``len == 3 + len(data)``); ``check`` is the
two's complement of the byte sum of head..data, so a whole frame sums to 0 modulo 256.
``addr`` is the reader's bus address (0xFF: any reader).

The host asks, the reader answers. Inventory answers (0x89 real time, 0x8A fast antenna
switching, 0x8B session/target) are one frame per tag read, then one end-of-round summary:

- tag: ``freq_ant | PC:u16 | EPC | RSSI``; antenna = (freq_ant & 3) + 1, plus 4 when the
  RSSI byte's top bit is set (8-port readers); dBm = (RSSI & 0x7F) - 129;
- summary (data is 7 bytes): 0x89 ``ant | read_rate:u16 | total:u32``, 0x8A
  ``total:u24 | duration_ms:u32``;
- error: one data byte, the error code; 0x8A also ``ant | code`` for an antenna missing.

Sources in docs/rfid.md. The codec is sans-IO like the others (see codec.py); ``role``
says which side's frames it decodes: ``"host"`` decodes the reader's answers,
``"reader"`` the host's commands (for the virtual reader).
"""

from __future__ import annotations

from collections.abc import Sequence

from firmware_bridge.rfid.codec import CommandCodec, Step
from firmware_bridge.rfid.events import (
    Ack,
    HostCommand,
    ReaderEvent,
    ReaderFault,
    RoundEnd,
    TagSighting,
)

HEAD = 0xA0
BROADCAST = 0xFF

CMD_GET_FIRMWARE = 0x72
CMD_SET_POWER = 0x76
CMD_GET_POWER = 0x77
CMD_REALTIME_INVENTORY = 0x89
CMD_FAST_SWITCH_INVENTORY = 0x8A
CMD_SESSION_INVENTORY = 0x8B
INVENTORY_CMDS = frozenset(
    {CMD_REALTIME_INVENTORY, CMD_FAST_SWITCH_INVENTORY, CMD_SESSION_INVENTORY}
)

SUCCESS = 0x10
ANTENNA_MISSING = 0x22
ANTENNA_OFF = 0xFF
"""In a fast-switch command: this slot's antenna is skipped."""
RSSI_OFFSET = 129
MAX_LEN = 0x60
"""Longest ``len`` accepted: a tag frame with the longest EPC (62 bytes) is 69. Answers we
never ask for (tag memory reads) may be longer; refusing them keeps a false head byte
followed by a large length from stalling the stream until the gap timeout."""

ERRORS: dict[int, str] = {
    0x10: "command success",
    0x11: "command fail",
    0x20: "MCU reset error",
    0x21: "CW on error",
    0x22: "antenna missing",
    0x23: "write flash error",
    0x24: "read flash error",
    0x25: "set output power error",
    0x31: "tag inventory error",
    0x32: "tag read error",
    0x33: "tag write error",
    0x34: "tag lock error",
    0x35: "tag kill error",
    0x36: "no tag",
    0x37: "inventory OK but access failed",
    0x38: "buffer is empty",
    0x40: "access or password error",
    0x41: "invalid parameter",
    0x47: "antenna id out of range",
    0x48: "output power out of range",
    0x52: "PLL lock fail",
    0x53: "RF chip does not respond",
    0x54: "cannot reach the output power",
    0x57: "output power too low",
}


def error_text(code: int) -> str:
    return ERRORS.get(code, f"error {code:#04x}")


def checksum(data: bytes | bytearray) -> int:
    """Two's complement of the byte sum."""
    return (-sum(data)) & 0xFF


def encode_a0(addr: int, cmd: int, data: bytes = b"") -> bytes:
    if not 0 <= addr <= 0xFF or not 0 <= cmd <= 0xFF or len(data) > MAX_LEN - 3:
        raise ValueError(f"addr {addr}, cmd {cmd:#x}, {len(data)} data bytes: not a frame")
    body = bytes((HEAD, len(data) + 3, addr, cmd)) + data
    return body + bytes((checksum(body),))


# --- host -> reader -----------------------------------------------------------------------


def cmd_get_firmware(addr: int) -> bytes:
    return encode_a0(addr, CMD_GET_FIRMWARE)


def cmd_get_power(addr: int) -> bytes:
    return encode_a0(addr, CMD_GET_POWER)


def cmd_set_power(addr: int, dbm: Sequence[int]) -> bytes:
    """One value for every antenna, or one per antenna (4 or 8)."""
    if len(dbm) not in (1, 4, 8) or not all(0 <= p <= 33 for p in dbm):
        raise ValueError(f"output power {list(dbm)}: 1, 4 or 8 values of 0-33 dBm")
    return encode_a0(addr, CMD_SET_POWER, bytes(dbm))


def cmd_realtime_inventory(addr: int, repeat: int = 1) -> bytes:
    return encode_a0(addr, CMD_REALTIME_INVENTORY, bytes((repeat,)))


def cmd_fast_switch(
    addr: int, antennas: Sequence[int], *, stay: int = 1, interval_ms: int = 0, repeat: int = 1
) -> bytes:
    """Inventory the given antennas (1-based ports) in turn, ``stay`` rounds each; 4 slots,
    or 8 when a port above 4 is asked for. Unused slots are skipped (0xFF)."""
    slots = 8 if any(a > 4 for a in antennas) else 4
    if not antennas or len(antennas) > slots or not all(1 <= a <= 8 for a in antennas):
        raise ValueError(f"antennas {list(antennas)}: 1-8 ports numbered from 1")
    data = bytearray()
    for i in range(slots):
        ant = antennas[i] - 1 if i < len(antennas) else ANTENNA_OFF
        data += bytes((ant, stay))
    data += bytes((interval_ms, repeat))
    return encode_a0(addr, CMD_FAST_SWITCH_INVENTORY, bytes(data))


# --- reader -> host -------------------------------------------------------------------------


def reply(addr: int, cmd: int, data: bytes) -> bytes:
    return encode_a0(addr, cmd, data)


def fits_epc(epc: bytes) -> bool:
    """Whether a tag id is an EPC a tag frame carries: 2 to 62 bytes, whole words."""
    return 2 <= len(epc) <= 62 and not len(epc) % 2


def tag_frame(
    addr: int, cmd: int, antenna: int, epc: bytes, rssi_dbm: int, freq_index: int = 0
) -> bytes:
    if not 1 <= antenna <= 8 or not fits_epc(epc):
        raise ValueError(f"antenna {antenna}, EPC of {len(epc)} bytes: not a tag frame")
    raw_rssi = max(0, min(0x7F, rssi_dbm + RSSI_OFFSET)) | (0x80 if antenna > 4 else 0)
    pc = (len(epc) // 2) << 11
    freq_ant = ((freq_index & 0x3F) << 2) | ((antenna - 1) & 0x03)
    data = bytes((freq_ant,)) + pc.to_bytes(2, "big") + epc + bytes((raw_rssi,))
    return encode_a0(addr, cmd, data)


def round_end_realtime(addr: int, antenna: int, read_rate: int, total: int) -> bytes:
    data = bytes((antenna - 1,)) + read_rate.to_bytes(2, "big") + total.to_bytes(4, "big")
    return encode_a0(addr, CMD_REALTIME_INVENTORY, data)


def round_end_fast_switch(addr: int, total: int, duration_ms: int) -> bytes:
    data = total.to_bytes(3, "big") + duration_ms.to_bytes(4, "big")
    return encode_a0(addr, CMD_FAST_SWITCH_INVENTORY, data)


def error_frame(addr: int, cmd: int, code: int) -> bytes:
    return encode_a0(addr, cmd, bytes((code,)))


def antenna_missing(addr: int, antenna: int, code: int = ANTENNA_MISSING) -> bytes:
    return encode_a0(addr, CMD_FAST_SWITCH_INVENTORY, bytes((antenna - 1, code)))


class A0Codec(CommandCodec):
    """Decoder for A0 frames. The reader id of every event is the frame's address."""

    sync = bytes((HEAD,))

    def _parse(self, buf: bytes | bytearray) -> tuple[Step, int]:
        if len(buf) < 2:
            return Step.NEED_MORE, 0
        if not 3 <= buf[1] <= MAX_LEN:
            return Step.MALFORMED, 0
        total = buf[1] + 2
        if len(buf) < total:
            return Step.NEED_MORE, 0
        if sum(buf[:total]) & 0xFF:
            return Step.BAD_CHECKSUM, 0
        return Step.OK, total

    def _decode(self, frame: bytes, t: float) -> list[ReaderEvent]:
        addr, cmd, data = frame[2], frame[3], frame[4:-1]
        if self.role == "reader":
            return [HostCommand(addr, cmd, data, t)]
        if cmd not in INVENTORY_CMDS:
            return [Ack(addr, cmd, data[0] if len(data) == 1 else SUCCESS, data, t)]
        if len(data) == 1:
            if data[0] == SUCCESS:
                return [Ack(addr, cmd, SUCCESS, data, t)]
            return [ReaderFault(addr, cmd, data[0], None, error_text(data[0]), t)]
        if len(data) == 2 and cmd == CMD_FAST_SWITCH_INVENTORY:
            antenna = data[0] + 1
            return [ReaderFault(addr, cmd, data[1], antenna, error_text(data[1]), t)]
        if len(data) == 7:
            reads = data[3:7] if cmd == CMD_REALTIME_INVENTORY else data[0:3]
            return [RoundEnd(addr, cmd, int.from_bytes(reads, "big"), t)]
        if len(data) < 4:
            self._stats.malformed += 1
            return []
        freq_ant, pc, raw_rssi = data[0], int.from_bytes(data[1:3], "big"), data[-1]
        epc = data[3:-1]
        if len(epc) != (pc >> 11) * 2 or not epc:
            self._stats.malformed += 1
            return []
        antenna = (freq_ant & 0x03) + 1 + (4 if raw_rssi & 0x80 else 0)
        rssi = float((raw_rssi & 0x7F) - RSSI_OFFSET)
        return [TagSighting(addr, antenna, bytes(epc), rssi, t)]
