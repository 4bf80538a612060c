"""What the TableBridge reports: board messages, zone changes and device health.

Tags are UIDs and zones; nothing here knows tiles or rules. Every event carries `t`, the
bridge's monotonic clock when it was observed.
"""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.protocol.messages import SeatButton, TableState
from firmware_bridge.rfid.events import ReaderAlert as ReaderAlert
from firmware_bridge.rfid.inventory import TagIn, TagOut
from firmware_bridge.rfid.zones import Zone

BOARD = "board"
"""`DeviceState.device` of the table board (readers are named by their URL)."""


@dataclass(frozen=True, slots=True)
class TableStatus:
    """The board's current state (absolute; a repeat is harmless)."""

    state: TableState
    faults: tuple[int, ...]
    t: float


@dataclass(frozen=True, slots=True)
class LiftOrder:
    """The whole wall as the lift reader saw it go up, by ring position. Secret: never to be
    published (docs/design.md, 'One projection for what the public may see')."""

    uids: tuple[bytes, ...]
    t: float


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    seat: int
    button: SeatButton
    t: float
    acked: int | None = None
    """How many of the host's messages the board had acknowledged when it sent the press
    (``TableBridge.show_text`` numbers them): which texts its displays showed by then.
    None: not known."""


@dataclass(frozen=True, slots=True)
class DiceRolled:
    values: tuple[int, ...]
    t: float


@dataclass(frozen=True, slots=True)
class ReaderSilent:
    """`reader_id` (covering `zone`) has not reported for the bridge's `silent_after`
    seconds; `last_report` is None if it never reported. A TagOut follows for each tag it
    alone read: a silent reader's last report is no picture of its zone."""

    reader_id: int
    zone: Zone
    last_report: float | None
    t: float


@dataclass(frozen=True, slots=True)
class ReaderBack:
    """A reader that was silent reports again."""

    reader_id: int
    zone: Zone
    t: float


@dataclass(frozen=True, slots=True)
class DeviceState:
    """A device's line changed: the board's is `disconnected`, `connecting`, `up` or
    `failed` (the link state); a reader port's is `disconnected` or `connected`."""

    device: str
    state: str
    t: float


BridgeEvent = (
    TableStatus
    | LiftOrder
    | ButtonPressed
    | DiceRolled
    | TagIn
    | TagOut
    | ReaderSilent
    | ReaderBack
    | ReaderAlert
    | DeviceState
)
