"""Typed table messages (protocol version 1) and their payload layouts. Sans-IO.

Every message is a frozen dataclass with `encode() -> bytes` (the frame payload) and
`decode(payload)`. Constructing a message with out-of-range fields raises ValueError (a bug
at the sender); decoding bad bytes raises MalformedMessage, which the link counts.
All integers are big-endian. Tag UIDs are raw bytes, 8 in every message but
SizedInventory (4..10: a member's card beside the tiles); the bridge never interprets them.
"""

from __future__ import annotations

import struct
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from typing import ClassVar, Self, TypeVar

from .framing import MAX_PAYLOAD, PROTOCOL_VERSION

UID_SIZE = 8
MAX_UIDS = 127  # 127 * 8 bytes + a few header bytes fits MAX_PAYLOAD
SIZED_UID_SIZES = range(4, 11)
"""The UID sizes a SizedInventory carries: ISO 14443 cards of 4, 7 and 10 bytes, ISO 15693
tags of 8, and the sizes between (what a reader reports, never padded)."""
MAX_FAULTS = 32
MAX_TEXT_BYTES = 200
MAX_SOFTWARE_BYTES = 32
MAX_WINDOW = 8  # the sack bitmap is 8 bits wide
SEATS = 4


class MessageType(IntEnum):
    # 0x01-0x0F: link control, not sequenced.
    HELLO = 0x01
    ACK = 0x02
    # 0x10 and up: sequenced, acked, delivered exactly once and in order.
    HEARTBEAT = 0x10
    # 0x20-0x2F: board -> Pi reports.
    STATUS = 0x20
    WALL_ORDER = 0x21
    BUTTON = 0x22
    INVENTORY = 0x23
    DICE_RESULT = 0x24
    INVENTORY_SIZED = 0x25
    # 0x30-0x3F: Pi -> board commands.
    DICE_ROLL = 0x30
    DISPLAY_TEXT = 0x31
    LED = 0x32


FIRST_SEQUENCED_TYPE = 0x10


def is_sequenced(type_: int) -> bool:
    return type_ >= FIRST_SEQUENCED_TYPE


class Role(IntEnum):
    HOST = 0  # the Pi
    TABLE_BOARD = 1
    READER_BUS = 2
    SIMULATOR = 3


class TableState(IntEnum):
    IDLE = 0
    SHUFFLING = 1
    WALLS_RISING = 2
    WALLS_UP = 3
    FAULT = 4


class SeatButton(IntEnum):
    WIN = 1  # 胡
    CHOW = 2  # 吃
    PUNG = 3  # 碰
    KONG = 4  # 杠
    PASS = 5  # 过
    CONFIRM = 6


class LedMode(IntEnum):
    OFF = 0
    ON = 1
    BLINK_SLOW = 2
    BLINK_FAST = 3


class MessageError(ValueError):
    """A payload that cannot become a message."""


class UnknownMessageType(MessageError):
    pass


class MalformedMessage(MessageError):
    pass


@dataclass(frozen=True, slots=True)
class Message(ABC):
    """Base of all messages; subclasses set TYPE and implement encode/decode."""

    TYPE: ClassVar[MessageType]

    @abstractmethod
    def encode(self) -> bytes: ...

    @classmethod
    @abstractmethod
    def decode(cls, payload: bytes) -> Self: ...


_REGISTRY: dict[int, type[Message]] = {}
_M = TypeVar("_M", bound=type[Message])


def _register(cls: _M) -> _M:
    _REGISTRY[cls.TYPE] = cls
    return cls


def message_types() -> dict[int, type[Message]]:
    """Every known message class by type byte."""
    return dict(_REGISTRY)


def decode_message(type_: int, payload: bytes) -> Message:
    """Type byte + payload -> message. Raises UnknownMessageType or MalformedMessage only."""
    cls = _REGISTRY.get(type_)
    if cls is None:
        raise UnknownMessageType(f"unknown message type 0x{type_:02x}")
    try:
        return cls.decode(payload)
    except MalformedMessage:
        raise
    except (ValueError, IndexError, struct.error) as exc:  # UnicodeDecodeError is a ValueError
        raise MalformedMessage(f"{cls.__name__}: {exc}") from exc


def _need(payload: bytes, size: int, what: str) -> None:
    if len(payload) != size:
        raise MalformedMessage(f"{what}: expected {size} bytes, got {len(payload)}")


def _check_range(name: str, value: int, lo: int, hi: int) -> None:
    if not lo <= value <= hi:
        raise ValueError(f"{name}={value} outside {lo}..{hi}")


def _check_uids(uids: tuple[bytes, ...]) -> None:
    if len(uids) > MAX_UIDS:
        raise ValueError(f"{len(uids)} UIDs exceed {MAX_UIDS} per message")
    for uid in uids:
        if not isinstance(uid, bytes) or len(uid) != UID_SIZE:
            raise ValueError(f"UID {uid!r} is not {UID_SIZE} bytes")


def _split_uids(data: bytes, count: int) -> tuple[bytes, ...]:
    return tuple(data[i * UID_SIZE : (i + 1) * UID_SIZE] for i in range(count))


def _enum(kind: Callable[[int], IntEnum], value: int, what: str) -> None:
    try:
        kind(value)
    except ValueError as exc:
        raise ValueError(f"unknown {what} {value}") from exc


@_register
@dataclass(frozen=True, slots=True)
class Hello(Message):
    """Link handshake and version negotiation (see docs/protocol.md, 'Hello')."""

    TYPE: ClassVar[MessageType] = MessageType.HELLO
    _FMT: ClassVar[struct.Struct] = struct.Struct(">IIBBBBBH")
    NEED_REPLY: ClassVar[int] = 0x01

    session: int
    peer_session: int = 0  # 0: "I have not heard you yet"
    min_version: int = PROTOCOL_VERSION
    max_version: int = PROTOCOL_VERSION
    need_reply: bool = True
    role: Role = Role.HOST
    window: int = MAX_WINDOW
    max_payload: int = MAX_PAYLOAD
    software: str = ""

    def __post_init__(self) -> None:
        _check_range("session", self.session, 1, 0xFFFFFFFF)
        _check_range("peer_session", self.peer_session, 0, 0xFFFFFFFF)
        _check_range("min_version", self.min_version, 1, 0xFF)
        _check_range("max_version", self.max_version, self.min_version, 0xFF)
        _enum(Role, self.role, "role")
        _check_range("window", self.window, 1, MAX_WINDOW)
        _check_range("max_payload", self.max_payload, 16, 0xFFFF)
        if len(self.software.encode()) > MAX_SOFTWARE_BYTES:
            raise ValueError(f"software name longer than {MAX_SOFTWARE_BYTES} bytes")

    def encode(self) -> bytes:
        software = self.software.encode()
        flags = self.NEED_REPLY if self.need_reply else 0
        head = self._FMT.pack(
            self.session,
            self.peer_session,
            self.min_version,
            self.max_version,
            flags,
            self.role,
            self.window,
            self.max_payload,
        )
        return head + bytes((len(software),)) + software

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        size = cls._FMT.size
        if len(payload) < size + 1:
            raise MalformedMessage(f"Hello: {len(payload)} bytes is too short")
        session, peer, lo, hi, flags, role, window, max_payload = cls._FMT.unpack_from(payload)
        _need(payload, size + 1 + payload[size], "Hello")
        return cls(
            session=session,
            peer_session=peer,
            min_version=lo,
            max_version=hi,
            need_reply=bool(flags & cls.NEED_REPLY),
            role=Role(role),
            window=window,
            max_payload=max_payload,
            software=payload[size + 1 :].decode(),
        )


@_register
@dataclass(frozen=True, slots=True)
class Heartbeat(Message):
    """Keepalive sent by the link when idle; consumed by the link, never delivered."""

    TYPE: ClassVar[MessageType] = MessageType.HEARTBEAT

    uptime_ms: int  # sender's clock in ms, modulo 2**32, for diagnostics only

    def __post_init__(self) -> None:
        _check_range("uptime_ms", self.uptime_ms, 0, 0xFFFFFFFF)

    def encode(self) -> bytes:
        return self.uptime_ms.to_bytes(4, "big")

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        _need(payload, 4, "Heartbeat")
        return cls(int.from_bytes(payload, "big"))


@_register
@dataclass(frozen=True, slots=True)
class Status(Message):
    """Table state and active fault codes (codes are board-defined, passed through)."""

    TYPE: ClassVar[MessageType] = MessageType.STATUS

    state: TableState
    faults: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _enum(TableState, self.state, "table state")
        if len(self.faults) > MAX_FAULTS:
            raise ValueError(f"more than {MAX_FAULTS} fault codes")
        for code in self.faults:
            _check_range("fault code", code, 0, 0xFFFF)

    def encode(self) -> bytes:
        return bytes((self.state, len(self.faults))) + b"".join(
            code.to_bytes(2, "big") for code in self.faults
        )

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        if len(payload) < 2:
            raise MalformedMessage("Status: too short")
        count = payload[1]
        _need(payload, 2 + 2 * count, "Status")
        faults = tuple(int.from_bytes(payload[2 + 2 * i : 4 + 2 * i], "big") for i in range(count))
        return cls(TableState(payload[0]), faults)


@_register
@dataclass(frozen=True, slots=True)
class WallOrder(Message):
    """Tags in the order they went up on the lift: positions start..start+len-1 of total."""

    TYPE: ClassVar[MessageType] = MessageType.WALL_ORDER
    _FMT: ClassVar[struct.Struct] = struct.Struct(">HHB")

    start: int
    total: int
    uids: tuple[bytes, ...]

    def __post_init__(self) -> None:
        _check_uids(self.uids)
        _check_range("total", self.total, 0, 0xFFFF)
        # §5.4: start + count <= total, so a chunk holding more tags than the wall is refused.
        if not 0 <= self.start <= self.total - len(self.uids):
            raise ValueError(
                f"start={self.start} + {len(self.uids)} tags outside total={self.total}"
            )

    def encode(self) -> bytes:
        return self._FMT.pack(self.start, self.total, len(self.uids)) + b"".join(self.uids)

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        size = cls._FMT.size
        if len(payload) < size:
            raise MalformedMessage("WallOrder: too short")
        start, total, count = cls._FMT.unpack_from(payload)
        _need(payload, size + UID_SIZE * count, "WallOrder")
        return cls(start, total, _split_uids(payload[size:], count))


@_register
@dataclass(frozen=True, slots=True)
class ButtonPress(Message):
    """A seat's button was pressed. Seats are 0..3 counted from the board's seat 0."""

    TYPE: ClassVar[MessageType] = MessageType.BUTTON

    seat: int
    button: SeatButton

    def __post_init__(self) -> None:
        _check_range("seat", self.seat, 0, SEATS - 1)
        _enum(SeatButton, self.button, "button")

    def encode(self) -> bytes:
        return bytes((self.seat, self.button))

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        _need(payload, 2, "ButtonPress")
        return cls(payload[0], SeatButton(payload[1]))


@_register
@dataclass(frozen=True, slots=True)
class Inventory(Message):
    """The full set of tags a reader sees in its zone now (absolute, not a delta)."""

    TYPE: ClassVar[MessageType] = MessageType.INVENTORY

    reader: int
    zone: int
    uids: tuple[bytes, ...]

    def __post_init__(self) -> None:
        _check_range("reader", self.reader, 0, 0xFF)
        _check_range("zone", self.zone, 0, 0xFF)
        _check_uids(self.uids)

    def encode(self) -> bytes:
        return bytes((self.reader, self.zone, len(self.uids))) + b"".join(self.uids)

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        if len(payload) < 3:
            raise MalformedMessage("Inventory: too short")
        count = payload[2]
        _need(payload, 3 + UID_SIZE * count, "Inventory")
        return cls(payload[0], payload[1], _split_uids(payload[3:], count))


@_register
@dataclass(frozen=True, slots=True)
class SizedInventory(Inventory):
    """An Inventory whose UIDs are 4..10 bytes, each after its size: what a board sends for
    a reader that sees a UID that is not 8 bytes (a member's card). A receiver that predates
    it skips it as an unknown type; every other set still comes as an Inventory."""

    TYPE: ClassVar[MessageType] = MessageType.INVENTORY_SIZED

    def __post_init__(self) -> None:
        _check_range("reader", self.reader, 0, 0xFF)
        _check_range("zone", self.zone, 0, 0xFF)
        if len(self.uids) > MAX_UIDS:
            raise ValueError(f"{len(self.uids)} UIDs exceed {MAX_UIDS} per message")
        for uid in self.uids:
            if not isinstance(uid, bytes) or len(uid) not in SIZED_UID_SIZES:
                raise ValueError(f"UID {uid!r} is not 4 to 10 bytes")
        size = 3 + sum(1 + len(uid) for uid in self.uids)
        if size > MAX_PAYLOAD:
            raise ValueError(f"{size} bytes exceed a payload's {MAX_PAYLOAD}")

    def encode(self) -> bytes:
        data = b"".join(bytes((len(uid),)) + uid for uid in self.uids)
        return bytes((self.reader, self.zone, len(self.uids))) + data

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        if len(payload) < 3:
            raise MalformedMessage("SizedInventory: too short")
        uids, i = [], 3
        for _ in range(payload[2]):
            size = payload[i] if i < len(payload) else 0
            if size not in SIZED_UID_SIZES or i + 1 + size > len(payload):
                raise MalformedMessage(f"SizedInventory: no UID of 4 to 10 bytes at {i}")
            uids.append(payload[i + 1 : i + 1 + size])
            i += 1 + size
        _need(payload, i, "SizedInventory")
        return cls(payload[0], payload[1], tuple(uids))


@_register
@dataclass(frozen=True, slots=True)
class DiceResult(Message):
    """Faces of the table's own dice after a roll (1..6 each)."""

    TYPE: ClassVar[MessageType] = MessageType.DICE_RESULT

    values: tuple[int, ...]

    def __post_init__(self) -> None:
        _check_range("dice count", len(self.values), 1, 4)
        for value in self.values:
            _check_range("die", value, 1, 6)

    def encode(self) -> bytes:
        return bytes((len(self.values), *self.values))

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        if not payload:
            raise MalformedMessage("DiceResult: empty")
        _need(payload, 1 + payload[0], "DiceResult")
        return cls(tuple(payload[1:]))


@_register
@dataclass(frozen=True, slots=True)
class DiceRoll(Message):
    """Ask the table to roll `count` dice; it answers with DiceResult."""

    TYPE: ClassVar[MessageType] = MessageType.DICE_ROLL

    count: int = 2

    def __post_init__(self) -> None:
        _check_range("dice count", self.count, 1, 4)

    def encode(self) -> bytes:
        return bytes((self.count,))

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        _need(payload, 1, "DiceRoll")
        return cls(payload[0])


@_register
@dataclass(frozen=True, slots=True)
class DisplayText(Message):
    """Show UTF-8 text on a table display: target 0 is the centre, 1..4 the seats."""

    TYPE: ClassVar[MessageType] = MessageType.DISPLAY_TEXT

    target: int
    text: str

    def __post_init__(self) -> None:
        _check_range("target", self.target, 0, SEATS)
        if len(self.text.encode()) > MAX_TEXT_BYTES:
            raise ValueError(f"text longer than {MAX_TEXT_BYTES} UTF-8 bytes")

    def encode(self) -> bytes:
        text = self.text.encode()
        return bytes((self.target, len(text))) + text

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        if len(payload) < 2:
            raise MalformedMessage("DisplayText: too short")
        _need(payload, 2 + payload[1], "DisplayText")
        return cls(payload[0], payload[2:].decode())


@_register
@dataclass(frozen=True, slots=True)
class Led(Message):
    """Set one board LED (index is board-defined) to a mode and colour."""

    TYPE: ClassVar[MessageType] = MessageType.LED

    led: int
    mode: LedMode
    red: int = 0
    green: int = 0
    blue: int = 0

    def __post_init__(self) -> None:
        _check_range("led", self.led, 0, 0xFF)
        _enum(LedMode, self.mode, "LED mode")
        for name in ("red", "green", "blue"):
            _check_range(name, getattr(self, name), 0, 0xFF)

    def encode(self) -> bytes:
        return bytes((self.led, self.mode, self.red, self.green, self.blue))

    @classmethod
    def decode(cls, payload: bytes) -> Self:
        _need(payload, 5, "Led")
        return cls(payload[0], LedMode(payload[1]), payload[2], payload[3], payload[4])
