"""What a seat (or the table) asks to do; ``apply`` turns a valid action into events.

Tile fields are physical ids. Where the wall order is known they may be left out (the
engine knows which tile comes); where it is not, the table reports the tile it saw.
Chow/pung/kong tiles may be left out too: the engine then takes the claimer's tiles of
that kind in the order they were received.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.round.events import DicePurpose


@dataclass(frozen=True, slots=True)
class Shuffle:
    order: tuple[int, ...] | None = None  # by wall position; None = unknown


@dataclass(frozen=True, slots=True)
class RollDice:
    """Dice for the break, the second break roll, 翻精 or 下精 (``tile``: the tile turned
    up, ``under_tile``: lianhua's 暗精, both only needed when the order is unknown)."""

    purpose: DicePurpose
    seat: int
    a: int
    b: int
    tile: int | None = None
    under_tile: int | None = None


@dataclass(frozen=True, slots=True)
class Deal:
    tiles: tuple[tuple[int, ...], ...] | None = None  # per seat, in the order taken


@dataclass(frozen=True, slots=True)
class FlipCaishen:
    tile: int | None = None


@dataclass(frozen=True, slots=True)
class Draw:
    """An ordinary draw, or the kong replacement when one is due."""

    seat: int
    tile: int | None = None


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    tile: int


@dataclass(frozen=True, slots=True)
class Chow:
    seat: int
    tiles: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Pung:
    seat: int
    tiles: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Kong:
    """On a discard: an exposed kong. On one's turn: ``tile`` names the kind, concealed
    (four in hand) or added (the fourth to one's pung)."""

    seat: int
    tile: int | None = None


@dataclass(frozen=True, slots=True)
class DeclareWin:
    seat: int


@dataclass(frozen=True, slots=True)
class Pass:
    seat: int


@dataclass(frozen=True, slots=True)
class PassRest:
    """Every seat that has not answered the tile in the window passes, in turn order: at a
    table the next seat drew, so nobody else claimed. The same events as their ``Pass``es
    one by one, in one step that is taken whole or refused whole."""


Action = (
    Shuffle
    | RollDice
    | Deal
    | FlipCaishen
    | Draw
    | Discard
    | Chow
    | Pung
    | Kong
    | DeclareWin
    | Pass
    | PassRest
)


@dataclass(frozen=True, slots=True)
class Rejection:
    """An action the rules refuse. Nothing changed. ``reason`` is for the dealer (Chinese
    first, an English gloss in brackets); ``code`` is stable for programs."""

    code: str
    reason: str

    def __str__(self) -> str:
        return f"{self.reason} [{self.code}]"
