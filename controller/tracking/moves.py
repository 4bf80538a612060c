"""Which legal action explains the difference between the table's picture and the hand's.

One phase, one rule (see ``controller.tracking.tracker``); each ``Moves`` method submits the action
it finds and says whether the hand moved. Buttons are consulted only where tiles wait
for them (a claim announced by button, the dice without a lift order).

A tile may move on before any reader saw it where it went: an antenna misses a tile a few
rounds running now and then (an edge, a stack, a metal-backed tile), and a player can
discard a tile three rounds after drawing it, or claim a discard as soon as it lands. Where
the tile shows up then is where it can only have got through the moves not seen: a dealt
or drawn tile in the seat's discards or in any seat's melds was in its hand first, a
tile of the seat's hand in another seat's melds was its discard. The moves are applied
in order, as if each had been seen (``reached``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from controller.table.dealer_guide import Roll
from controller.tracking.buttons import ButtonQueue
from controller.tracking.melds import meld_claim
from controller.tracking.picture import JING_ZONE, TablePicture
from controller.tracking.window import in_window, unanswered
from engine.hand import MeldType
from engine.round.actions import (
    Action,
    Deal,
    Discard,
    Draw,
    FlipCaishen,
    Kong,
    Pass,
    PassRest,
    RollDice,
)
from engine.round.state import SEATS, Phase, RoundState
from engine.tiles import kind_of
from engine.wall import FlipKind
from firmware_bridge.rfid.zones import ZoneKind

SubmitAt = Callable[[Action, float], bool]
"""Submit an action at ``now``; whether the engine took it."""
Current = Callable[[], RoundState | None]
"""The hand's state as it is now (it changes with every action taken)."""


class Moves:
    def __init__(
        self,
        picture: TablePicture,
        buttons: ButtonQueue,
        *,
        current: Current,
        submit: SubmitAt,
        meld_settle: float,
    ) -> None:
        self.picture = picture
        self.buttons = buttons
        self._current = current
        self._submit = submit
        self.meld_settle = meld_settle
        self.pending_roll: Roll | None = None
        """A roll whose turned-up tile is known only once it lies on the spot."""

    def step(self, st: RoundState, now: float) -> bool:
        """Submit the action the tiles show in the hand's phase, if any."""
        phase = st.phase
        if phase is Phase.DEAL:
            return self._deal(st, now)
        if phase is Phase.FLIP:
            return self._flip(st, now)
        if phase is Phase.TURN:
            return self._turn(st, now)
        if phase in (Phase.DRAW, Phase.REPLACEMENT):
            tile = self._drawn(st, st.turn, tail=phase is Phase.REPLACEMENT)
            return tile is not None and self._submit(Draw(st.turn, tile), now)
        if in_window(st):
            return self._claim(st, now)
        if phase is Phase.XIA_DICE:
            return self._pending_flip(st, now)
        return False

    def pass_all(self, st: RoundState, now: float, but: int | None = None) -> bool:
        """The seats still silent in the window pass (all but ``but``, who took the tile)."""
        if but is None:
            # everybody still silent passes: one step, stored whole or refused whole
            current = self._current()
            if current is None or not in_window(current):
                return False
            return bool(unanswered(current)) and self._submit(PassRest(), now)
        moved = False
        for s in unanswered(st):
            if s == but:
                continue
            if not in_window(self._current()):
                break
            moved = self._submit(Pass(s), now) or moved
        return moved

    # --- one phase each ---------------------------------------------------------------------

    def reached(self, tile: int, seat: int) -> bool:
        """Whether the tile lies in ``seat``'s hand, or where a tile of that hand can only
        have got by moves the readers did not see: the seat's discards, or any seat's
        melds (discarded and claimed, or laid in a kong)."""
        pic = self.picture
        zone = pic.zone_of(tile)
        if zone is None:
            return False
        if zone == pic.hand(seat) or zone == pic.discards(seat):
            return True
        return (
            zone.kind is ZoneKind.MELDS and zone.seat is not None and pic.melds(zone.seat) == zone
        )

    def _deal(self, st: RoundState, now: float) -> bool:
        assert st.wall is not None
        deal = st.wall.copy().deal()
        hands: list[tuple[int, ...]] = []
        known = st.order is not None
        for s in range(SEATS):
            have = self.picture.tiles_in(self.picture.hand(s))
            want = deal.tiles(s)
            if known:
                # every dealt tile, and no other, in the hand (or, already, where the hand's
                # tiles go next: a dealt tile the dealer discarded before it was read)
                if not set(have) <= set(want) or not all(
                    t is not None and self.reached(t, s) for t in want
                ):
                    return False
            elif len(have) != len(want) or any(t in st.seen for t in have):
                return False
            hands.append(tuple(have))
        return self._submit(Deal() if known else Deal(tuple(hands)), now)

    def _new_on_spot(self, st: RoundState) -> int | None:
        """A tile on the jing spot that the hand has not seen yet."""
        return next((t for t in self.picture.tiles_in(JING_ZONE) if t not in st.seen), None)

    def _flip(self, st: RoundState, now: float) -> bool:
        if st.ruleset.flip_kind is FlipKind.CAISHEN:
            if st.order is not None:
                return self._submit(FlipCaishen(), now)
            tile = self._new_on_spot(st)
            return tile is not None and self._submit(FlipCaishen(tile), now)
        return self._pending_flip(st, now)

    def _pending_flip(self, st: RoundState, now: float) -> bool:
        roll = self.pending_roll
        if roll is None:
            return False
        tile = self._new_on_spot(st)
        if tile is None:
            return False
        self.pending_roll = None
        action = RollDice(roll.purpose, roll.seat, roll.a, roll.b, tile=tile)
        return self._submit(action, now)

    def _turn(self, st: RoundState, now: float) -> bool:
        pic = self.picture
        seat = st.turn
        hand = st.hands[seat]
        thrown = self._thrown(st, seat)
        if thrown is not None:
            return self._submit(Discard(seat, thrown), now)
        mz = pic.melds(seat)
        if mz is None:
            return False
        laid = [t for t in hand if pic.zone_of(t) == mz]
        if not laid:
            return False
        counts = Counter(kind_of(t) for t in laid)
        four = next((t for t in laid if counts[kind_of(t)] == 4), None)
        if four is not None:
            return self._submit(Kong(seat, four), now)
        pungs = {kind_of(m.tiles[0]) for m in st.melds[seat] if m.type is MeldType.PUNG}
        added = next((t for t in laid if kind_of(t) in pungs), None)
        return added is not None and self._submit(Kong(seat, added), now)

    def _thrown(self, st: RoundState, seat: int) -> int | None:
        """The tile of the seat's hand it discarded: in its discards, or in another seat's
        melds (claimed before the discards' antenna read it; no antenna next to a hand
        reaches another seat's melds, so this is no border read). Of several, the first
        to arrive: a seat discards once a turn, and a tile claimed lay there before the
        seat's next discard."""
        pic = self.picture
        away = {pic.discards(seat)} | {pic.melds(s) for s in range(SEATS) if s != seat}
        away.discard(None)
        out = [t for t in st.hands[seat] if pic.zone_of(t) in away]
        return min(out, key=pic.entered) if out else None

    def _drawn(self, st: RoundState, seat: int, *, tail: bool) -> int | None:
        """The wall's next tile (head or tail) if it is now in ``seat``'s hand."""
        wall = st.wall
        assert wall is not None
        nxt = wall.peek_tail() if tail else wall.peek_head()
        if nxt is None:
            return None
        if nxt.tile is not None:
            return nxt.tile if self.reached(nxt.tile, seat) else None
        # an unknown wall: a tile the hand has not seen, in the seat's hand (or discarded
        # before the hand's antenna read it)
        zones = (self.picture.hand(seat), self.picture.discards(seat))
        return next(
            (
                t
                for z in zones
                if z is not None
                for t in self.picture.tiles_in(z)
                if t not in st.seen
            ),
            None,
        )

    def _claim(self, st: RoundState, now: float) -> bool:
        if st.phase is Phase.ROB:
            tile = self._drawn(st, st.turn, tail=True)
            return tile is not None and self.pass_all(st, now)
        pic = self.picture
        discard = st.last_tile
        assert discard is not None and st.wall is not None
        for seat in unanswered(st):
            mz = pic.melds(seat)
            if mz is None or pic.zone_of(discard) != mz:
                continue
            laid = sorted((t for t in st.hands[seat] if pic.zone_of(t) == mz), key=pic.entered)
            button = self.buttons.claim_of(seat)
            if button is None and self._still_laying(st, seat, discard, laid, now):
                return False  # (and the next draw does not pass it by)
            action = meld_claim(seat, discard, laid, button)
            if action is None:
                continue
            if not self._submit(action, now):
                return False
            self.buttons.drop_claims(seat)
            self.pass_all(st, now, but=seat)  # the tile was taken: the others let it go
            return True
        nxt = (st.turn + 1) % SEATS
        drawn = self._drawn(st, nxt, tail=False)
        if drawn is not None and (
            pic.zone_of(drawn) != pic.hand(nxt) or self._thrown(st, nxt) is not None
        ):
            # The next seat drew and has already discarded: whatever a claim button
            # pressed since meant, it was not this tile.
            return self.pass_all(st, now)
        if st.wall.is_exhausted or any(self.buttons.claim_of(s) for s in unanswered(st)):
            return False
        if drawn is not None:
            return self.pass_all(st, now)  # the next seat drew: nobody wanted the tile
        return False

    def _still_laying(
        self, st: RoundState, seat: int, discard: int, laid: list[int], now: float
    ) -> bool:
        """Two of the discard's kind laid while the seat holds the third: a pung, or a kong
        whose last tile is not read yet. Readers report a meld's tiles in no set order, so
        the tiles decide only after ``meld_settle`` seconds without a new one."""
        kind = kind_of(discard)
        if sum(1 for t in laid if kind_of(t) == kind) != 2:
            return False
        if not any(kind_of(t) == kind and t not in laid for t in st.hands[seat]):
            return False
        latest = max(self.picture.entered(t) for t in (*laid, discard))
        return now - latest < self.meld_settle
