"""Which claim a seat makes on the discard: from the tiles it laid, or, where no reader
covers its melds, from the button alone (the engine picks the tiles)."""

from __future__ import annotations

from engine.round.actions import Action, Chow, Kong, Pung
from engine.round.state import RoundState
from engine.tiles import kind_of
from firmware_bridge.protocol.messages import SeatButton


def is_chow(kind: int, a: int, b: int) -> bool:
    """Whether the three kinds make a run in one suit."""
    ks = sorted((kind, a, b))
    return ks[2] < 27 and ks[0] // 9 == ks[2] // 9 and ks == [ks[0], ks[0] + 1, ks[0] + 2]


def meld_claim(
    seat: int, discard: int, laid: list[int], button: SeatButton | None
) -> Action | None:
    """The claim ``laid`` (the seat's own tiles in its melds, with the discard) makes."""
    kind = kind_of(discard)
    same = [t for t in laid if kind_of(t) == kind]
    if button is SeatButton.KONG or (button is None and len(same) >= 3):
        return Kong(seat) if len(same) >= 3 else None
    if button is SeatButton.PUNG or (button is None and len(same) == 2):
        return Pung(seat, (same[0], same[1])) if len(same) >= 2 else None
    for i, a in enumerate(laid):
        for b in laid[i + 1 :]:
            if is_chow(kind, kind_of(a), kind_of(b)):
                return Chow(seat, (a, b))
    return None


def blind_claim(st: RoundState, seat: int, button: SeatButton) -> Action | None:
    """A claim where no reader covers the melds: the engine picks the tiles."""
    if button is SeatButton.PUNG:
        return Pung(seat)
    if button is SeatButton.KONG:
        return Kong(seat)
    tile = st.last_tile
    assert tile is not None
    hand = st.hands[seat]
    for a in hand:
        for b in hand:
            if a < b and is_chow(kind_of(tile), kind_of(a), kind_of(b)):
                return Chow(seat, (a, b))
    return None
