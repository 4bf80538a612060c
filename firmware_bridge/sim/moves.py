"""What a driver asks the virtual table to do, and what it sees. No rules: physical acts only.

A driver decides *which* tiles move (for bots, from the rules engine in the controller);
the table carries the moves out, and its readers and board report them like hardware.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from firmware_bridge.protocol.messages import Led, SeatButton, TableState
from firmware_bridge.rfid.zones import Zone


@dataclass(frozen=True, slots=True)
class TakeFromWall:
    """Take the tile at ring `position` out of the wall into `to` (a draw: a seat's hand)."""

    position: int
    to: Zone


@dataclass(frozen=True, slots=True)
class MoveTag:
    """Put `tag` into `to`, from wherever it lies (a hand, the melds, even the wall).
    A discard is a move to the seat's discards (or the pool); a meld moves tags to melds."""

    tag: bytes
    to: Zone


@dataclass(frozen=True, slots=True)
class FlipToJing:
    """Turn `tag` up and put it on the jing spot (from the wall, usually)."""

    tag: bytes


@dataclass(frozen=True, slots=True)
class PressButton:
    seat: int
    button: SeatButton


@dataclass(frozen=True, slots=True)
class Pause:
    """Let time pass (a bot thinking; readers scanning)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class EndHand:
    """The hand is over: every tile goes back into the table, which shuffles and raises new
    walls. The driver sees the next hand as `view.hand` + 1 with a full wall."""


@dataclass(frozen=True, slots=True)
class PlaceCard:
    """A player's own tag that is no tile (a member card) laid on `to`, or taken away
    (`to` None). It is no tile of the table: the machine never takes it in."""

    tag: bytes
    to: Zone | None


Move = TakeFromWall | MoveTag | FlipToJing | PressButton | Pause | EndHand | PlaceCard


@dataclass(frozen=True, slots=True)
class Rejection:
    """A move the table could not carry out (an empty wall position, an unknown tag...)."""

    move: Move
    reason: str


@dataclass(frozen=True, slots=True)
class TableView:
    """What a driver may look at: the physical table, as the sim knows it.

    `wall[p]` is the tag at ring position `p` (None once taken); `lift_order` is the whole
    wall as built (what the board's lift reader reports), unchanged by draws. Positions
    follow engine.wall: position 2*i is ring stack i's top tile, 2*i + 1 its bottom.
    """

    hand: int
    """Wall builds so far: 1 for the first hand (0 before the first walls are up)."""
    state: TableState
    wall: tuple[bytes | None, ...]
    lift_order: tuple[bytes, ...]
    zones: Mapping[Zone, frozenset[bytes]]
    dice: tuple[int, ...] | None = None
    """The last DiceResult the board sent (after the host's DiceRoll)."""
    texts: Mapping[int, str] = field(default_factory=dict)
    """What the host last showed on each display (0 centre, 1–4 seats)."""
    leds: Mapping[int, Led] = field(default_factory=dict)
    rejected: tuple[Rejection, ...] = ()
    """Moves refused since the driver was last asked."""
    t: float = 0.0

    def tags_in(self, zone: Zone) -> frozenset[bytes]:
        return self.zones.get(zone, frozenset())

    def position_of(self, tag: bytes) -> int | None:
        """The tag's ring position while it is still in the wall."""
        try:
            return self.wall.index(tag)
        except ValueError:
            return None

    def zone_of(self, tag: bytes) -> Zone | None:
        return next((z for z, tags in self.zones.items() if tag in tags), None)


class Driver(Protocol):
    """Decides the physical moves. Asked again after its moves are done, whenever the
    walls are up; an empty answer means "nothing now" (asked again after a short idle or
    when something changes: a host command, a new hand)."""

    async def next_moves(self, view: TableView) -> Sequence[Move]: ...


class IdleDriver:
    """Moves nothing: the table shuffles, raises the walls and reports."""

    async def next_moves(self, view: TableView) -> Sequence[Move]:
        return ()


class ScriptedDriver:
    """Plays a list of moves, then idles. `add()` appends more (tests that react to what
    they saw); `done` is set whenever every move so far has been handed out."""

    def __init__(self, moves: Sequence[Move] = ()) -> None:
        self._pending: list[Move] = list(moves)
        self.last_view: TableView | None = None
        self.rejected: list[Rejection] = []

    def add(self, *moves: Move) -> None:
        self._pending.extend(moves)

    @property
    def pending(self) -> int:
        return len(self._pending)

    async def next_moves(self, view: TableView) -> Sequence[Move]:
        self.last_view = view
        self.rejected.extend(view.rejected)
        moves, self._pending = self._pending, []
        return moves
