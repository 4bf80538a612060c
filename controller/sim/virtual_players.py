"""Four engine bots at the virtual table: a ``Driver`` whose every move is a person's.

The players keep their own engine round, fed only from what people at a table see: the
wall as the lift built it (``view.lift_order`` is the wall order) and the dice the
service shows on the centre display. They press the dice button (seat confirm: the Pi
rolls), take the dealt tiles from the wall positions the engine computes, turn the 精 onto
the jing spot, draw, discard, claim with a seat button and the meld's tiles, declare wins
and, when the hand is settled, let the table collect the tiles (``EndHand``).

They wait for the table: after each move they do nothing until the display's event count
(``#seq``, controller.table.display) has caught up with their own round, exactly as players
wait for the dealer's display. If the display does not move for ``retry_after`` seconds
(the service restarted and lost a press), they press the same buttons again; a roll the
display shows that they had not pressed for yet (a repeated press can roll it), they take.

They accept the table's ruling, as people accept the staff's. A hand the service ended
that they had not (finished or voided by staff: the display shows it settled while their
own round goes on) is over for them too: they drop their round and let the table collect
the tiles. Who deals next then is what the table shows on the next hand (the wind, the
dealer and the streak of the display, ``controller.table.display``): on walls they have not
touched yet, a hand the display shows at its start under another number or deal is taken
as the table deals it. The same holds for players who arrive at a table whose session is
under way (the service restarted with its virtual table).

Claims are made only as they would stand: if several seats want the same discard, the
one that gets it claims and the others say nothing (a person does not lay down a meld
that loses). Passes are not pressed: the next draw says them, except after a 胡 and on
the last tile, when the silent seats press 过.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import structlog

from controller.table.dealer_guide import due_roll
from controller.table.display import Shown, parse_status
from engine.bots import Bot
from engine.round.actions import (
    Action,
    Chow,
    Deal,
    DeclareWin,
    Discard,
    FlipCaishen,
    Kong,
    Pass,
    Pung,
    Rejection,
    RollDice,
    Shuffle,
)
from engine.round.claims import standing_meld_claim
from engine.round.events import Chowed, ClaimName, DicePurpose, Event, Konged, Punged
from engine.round.fold import evolve
from engine.round.rules import apply
from engine.round.state import SEATS, Phase, RoundState
from engine.session import Session
from engine.wall import FlipKind
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.sim.moves import (
    EndHand,
    FlipToJing,
    Move,
    MoveTag,
    Pause,
    PressButton,
    TableView,
    TakeFromWall,
)

log = structlog.get_logger(__name__)


class ShadowError(RuntimeError):
    """The players' own round refused a move of theirs: a bug, never play."""


@dataclass(slots=True)
class _Shadow:
    state: RoundState
    events: int
    table_hand: int
    awaiting_roll: tuple[DicePurpose, int] | None = None
    sent_buttons: list[PressButton] = field(default_factory=list)
    sent_at: float = 0.0
    waiting_for: int = 0
    start: int = 0
    """Its events once shuffled: while ``events`` is still this, no tile was touched."""
    in_step: bool = False
    """The display has shown this very hand at the players' count: it is the table's."""
    ruled: bool = False
    """The table ended it (staff), not the players' own round."""


class VirtualPlayers:
    """``Driver`` for ``VirtualTable``: ``uids[t]`` is the tag of tile id ``t``."""

    def __init__(
        self,
        ruleset: str,
        uids: Sequence[bytes],
        *,
        options: dict[str, object] | None = None,
        zones: ZoneMap | None = None,
        think: float = 0.0,
        between_hands: float = 0.0,
        retry_after: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.session = Session(ruleset, dict(options or {}))
        self.uids = tuple(uids)
        self.tile_of = {uid: t for t, uid in enumerate(self.uids)}
        self.bots = [Bot(s) for s in range(SEATS)]
        zone_set = set((zones or ZoneMap.standard()).values())
        self.pool = Zone(ZoneKind.POOL) in zone_set
        self.think = think
        # How long they look at the settlement before letting the table collect the tiles
        # (people read it; the display shows it until the next hand starts).
        self.between_hands = between_hands
        self.retry_after = retry_after
        self._clock = clock
        self.shadow: _Shadow | None = None
        self.finished: list[RoundState] = []
        """Every hand the players saw settled, in order."""
        self.stalls = 0
        self.moved = 0
        """Events the players' own rounds have taken, all hands together (how far play got)."""
        self.ruled = 0
        """Hands the table ended that the players had not (finished or voided by staff)."""
        self.dealt_by_table = 0
        """Hands whose number or deal the players took off the display."""
        self.hold: Callable[[int, int], bool] | None = None
        """Asked with (hand number, events of their round) before each move of theirs:
        while it says so, the players sit still (they called staff over)."""
        self.held = False
        """They are sitting still as ``hold`` asked, their round at the table's count."""

    # --- the Driver protocol -------------------------------------------------------------

    async def next_moves(self, view: TableView) -> Sequence[Move]:
        now = self._now()
        sh = self.shadow
        if sh is None or sh.table_hand != view.hand:
            if not view.lift_order:
                return ()
            sh = self.shadow = self._new_hand(view)
        shown = parse_status(view.texts.get(0, ""))
        if shown is None:
            return ()
        if sh.ruled:
            return ()  # (the tiles are being collected)
        own = sh.events + sh.state.finished  # (the table reveals its dice seed at the end)
        if shown.hand_no == sh.state.started.hand_no and shown.over and sh.in_step:
            if not sh.state.finished:
                return self._ruled(sh)
            if shown.seq != own:  # staff acted on the settled hand: it stays over
                return self._end_hand(sh)
        elif self._dealt_otherwise(sh, shown):
            sh = self.shadow = self._new_hand(view, shown)
            own = sh.events
        if shown.hand_no != sh.state.started.hand_no:
            return ()
        if sh.awaiting_roll is None and shown.seq > own and sh.in_step:
            # The table rolled a roll the players had not pressed for yet: a press repeated
            # while the service restarted reaches it after the first, and rolls the next
            # roll too when the same seat rolls both. People read it off the display.
            due = due_roll(sh.state)
            if due is not None and shown.roll is not None and shown.roll[0] == len(sh.state.dice):
                sh.awaiting_roll = due
        if sh.awaiting_roll is not None:
            moves = self._take_roll(sh, shown.roll)
            if moves is None:
                return self._retry(sh, now)
            return moves
        if shown.seq != own:
            if shown.seq > own and sh.waiting_for != shown.seq:
                sh.waiting_for = shown.seq
                log.warning("the table is ahead of the players", table=shown.seq, own=own)
            return self._retry(sh, now)
        sh.in_step = True
        if sh.state.finished:
            return self._end_hand(sh)
        self.held = self.hold is not None and self.hold(sh.state.started.hand_no, sh.events)
        if self.held:
            return ()
        moves = self._act(sh, view)
        sh.sent_buttons = [m for m in moves if isinstance(m, PressButton)]
        sh.sent_at = now
        if moves and self.think > 0:
            return [Pause(self.think), *moves]
        return moves

    def _now(self) -> float:
        return self._clock()

    def _retry(self, sh: _Shadow, now: float) -> Sequence[Move]:
        if sh.sent_buttons and now - sh.sent_at >= self.retry_after:
            sh.sent_at = now
            self.stalls += 1
            log.info("the table did not answer: pressing again", buttons=len(sh.sent_buttons))
            return list(sh.sent_buttons)
        return ()

    # --- the round the players keep ----------------------------------------------------------

    def _new_hand(self, view: TableView, shown: Shown | None = None) -> _Shadow:
        """Their round on the walls in view; ``shown``: as the display deals it."""
        old = self.shadow
        if old is not None and not old.state.finished and not old.ruled and shown is None:
            log.warning("new walls before the hand was settled", hand=old.state.started.hand_no)
        if shown is not None and shown.deal is not None:
            self._take_deal(shown)
        started = self.session.next_hand()
        state = RoundState(started)
        order = tuple(self.tile_of[uid] for uid in view.lift_order)
        # the table's log opens with hand_started and its dice commitment
        sh = _Shadow(state, 2, view.hand)
        self._apply(sh, Shuffle(order))
        sh.start = sh.events
        return sh

    def _dealt_otherwise(self, sh: _Shadow, shown: Shown) -> bool:
        """The display shows a hand at its start, on walls the players have not touched,
        under another number or deal than theirs: the table's session is not what their
        own says (the hand before was ended by staff, or they came to a session under way)."""
        if sh.in_step or sh.events != sh.start or shown.seq != sh.start or shown.deal is None:
            return False
        started = sh.state.started
        deal = shown.deal
        return (shown.hand_no, deal.dealer, deal.streak, deal.prevailing_wind) != (
            started.hand_no,
            started.dealer,
            started.dealer_streak,
            started.prevailing_wind,
        )

    def _take_deal(self, shown: Shown) -> None:
        """Their session as the table keeps it: the hand shown is the next one."""
        deal = shown.deal
        assert deal is not None
        mine = self.session.next_hand()
        log.info(
            "the players take the table's deal",
            hand_no=shown.hand_no,
            dealer=deal.dealer,
            own=(mine.hand_no, mine.dealer),
        )
        self.dealt_by_table += 1
        session = self.session
        session.hand_no = shown.hand_no - 1
        session.dealer, session.dealer_streak = deal.dealer, deal.streak
        session.prevailing_wind = deal.prevailing_wind

    def _ruled(self, sh: _Shadow) -> Sequence[Move]:
        """The table settled the hand their own round still plays (staff finished or
        voided it): it is over, the tiles go back into the table."""
        log.info("the table ended the hand: the players let it go", hand=sh.state.started.hand_no)
        sh.ruled = True
        self.ruled += 1
        if self.between_hands > 0:
            return [Pause(self.between_hands), EndHand()]
        return [EndHand()]

    def _apply(self, sh: _Shadow, action: Action) -> list[Event]:
        result = apply(sh.state, action)
        if isinstance(result, Rejection):
            raise ShadowError(f"{action!r} refused: {result}")
        for e in result:
            evolve(sh.state, e)
        sh.events += len(result)
        self.moved += len(result)
        return result

    def _end_hand(self, sh: _Shadow) -> Sequence[Move]:
        settlement = sh.state.settlement
        assert settlement is not None
        if not self.finished or self.finished[-1] is not sh.state:
            self.session.record(settlement)
            self.finished.append(sh.state)
            if self.between_hands > 0:
                return [Pause(self.between_hands), EndHand()]
        return [EndHand()]

    # --- deciding ------------------------------------------------------------------------------

    def _act(self, sh: _Shadow, view: TableView) -> list[Move]:
        st = sh.state
        due = due_roll(st)
        if due is not None:
            sh.awaiting_roll = due
            return [PressButton(due[1], SeatButton.CONFIRM)]
        phase = st.phase
        if phase is Phase.DEAL:
            return self._deal(sh)
        if phase is Phase.FLIP:  # the 财神: no dice, the service turns it up at once
            self._apply(sh, FlipCaishen())
            return self._flip_moves(st)
        if phase is Phase.TURN:
            return self._turn(sh, view)
        if phase in (Phase.DRAW, Phase.REPLACEMENT):
            return self._draw(sh, view, st.turn)
        if phase in (Phase.CLAIM, Phase.ROB):
            return self._answer(sh, view)
        return []

    def _take_roll(self, sh: _Shadow, roll: tuple[int, int, int] | None) -> list[Move] | None:
        """The dice the display shows for the roll pressed for; None while not shown yet."""
        st = sh.state
        assert sh.awaiting_roll is not None
        if roll is None or roll[0] != len(st.dice):
            return None
        purpose, seat = sh.awaiting_roll
        sh.awaiting_roll = None
        self._apply(sh, RollDice(purpose, seat, roll[1], roll[2]))
        if purpose in ("jing", "xia_jing"):
            return self._flip_moves(st, xia=purpose == "xia_jing")
        return []

    def _flip_moves(self, st: RoundState, *, xia: bool = False) -> list[Move]:
        wall = st.wall
        assert wall is not None
        flip = wall.xia_jing if xia else wall.flip
        if flip is None or flip.tile is None:
            return []
        return [FlipToJing(self.uids[flip.tile])]

    def _deal(self, sh: _Shadow) -> list[Move]:
        st = sh.state
        assert st.wall is not None
        deal = st.wall.copy().deal()
        moves: list[Move] = []
        for s in range(SEATS):
            moves += [TakeFromWall(d.position, _hand(s)) for d in deal.hands[s]]
        self._apply(sh, Deal())
        if st.phase is Phase.FLIP and st.ruleset.flip_kind is FlipKind.CAISHEN:
            self._apply(sh, FlipCaishen())  # the service turns the 财神 up with the deal
            moves += self._flip_moves(st)
        return moves

    def _take(self, view: TableView, tile: int, seat: int) -> Move:
        """A tile from the wall, or from the jing spot if it was turned up there."""
        uid = self.uids[tile]
        position = view.position_of(uid)
        if position is None:
            return MoveTag(uid, _hand(seat))
        return TakeFromWall(position, _hand(seat))

    def _draw(self, sh: _Shadow, view: TableView, seat: int) -> list[Move]:
        st = sh.state
        assert st.wall is not None
        nxt = st.wall.peek_tail() if st.phase is Phase.REPLACEMENT else st.wall.peek_head()
        assert nxt is not None and nxt.tile is not None
        self._apply(sh, self.bots[seat].act(st))
        return [self._take(view, nxt.tile, seat)]

    def _turn(self, sh: _Shadow, view: TableView) -> list[Move]:
        st = sh.state
        seat = st.turn
        action = self.bots[seat].act(st)
        if isinstance(action, DeclareWin):
            self._apply(sh, action)
            return [PressButton(seat, SeatButton.WIN)]
        if isinstance(action, Discard):
            self._apply(sh, action)
            return [MoveTag(self.uids[action.tile], self._discards(seat))]
        if isinstance(action, Kong):
            events = self._apply(sh, action)
            konged = next(e for e in events if isinstance(e, Konged))
            melds = _melds(seat)
            return [
                PressButton(seat, SeatButton.KONG),
                *(MoveTag(self.uids[t], melds) for t in konged.tiles),
            ]
        raise ShadowError(f"seat {seat} chose {action!r} on its turn")

    def _answer(self, sh: _Shadow, view: TableView) -> list[Move]:
        st = sh.state
        order = [(st.turn + k) % SEATS for k in (1, 2, 3)]
        answers = {s: self.bots[s].act(st) for s in order}
        wins = [s for s in order if isinstance(answers[s], DeclareWin)]
        if wins:
            moves: list[Move] = []
            for s in wins:
                self._apply(sh, DeclareWin(s))
                moves.append(PressButton(s, SeatButton.WIN))
            for s in order:
                if s in wins:
                    continue
                if sh.state.phase not in (Phase.CLAIM, Phase.ROB):
                    break
                self._apply(sh, Pass(s))
                moves.append(PressButton(s, SeatButton.PASS))
            return moves
        claim = _standing_claim(st.turn, answers)
        if st.phase is Phase.CLAIM and claim is not None:
            return self._claim(sh, claim, order)
        # nobody wants it: the next draw says so, or at the last tile everyone presses 过
        last = st.phase is Phase.CLAIM and st.wall is not None and st.wall.is_exhausted
        for s in order:
            self._apply(sh, Pass(s))
        if last:
            return [PressButton(s, SeatButton.PASS) for s in order]
        if sh.state.phase in (Phase.DRAW, Phase.REPLACEMENT):
            return self._draw(sh, view, sh.state.turn)
        return []

    def _claim(self, sh: _Shadow, claim: Action, order: list[int]) -> list[Move]:
        seat = getattr(claim, "seat")  # noqa: B009
        discard = sh.state.last_tile
        assert discard is not None
        events = self._apply(sh, claim)
        for s in order:
            if s != seat and sh.state.phase is Phase.CLAIM:
                events += self._apply(sh, Pass(s))
        meld = next(e for e in events if isinstance(e, Chowed | Punged | Konged))
        button = {Chowed: SeatButton.CHOW, Punged: SeatButton.PUNG, Konged: SeatButton.KONG}
        melds = _melds(seat)
        # The discard goes last: the meld's reader then sees the whole meld at once.
        return [
            PressButton(seat, button[type(meld)]),
            *(MoveTag(self.uids[t], melds) for t in meld.tiles),
            MoveTag(self.uids[discard], melds),
        ]

    def _discards(self, seat: int) -> Zone:
        return Zone(ZoneKind.POOL) if self.pool else Zone(ZoneKind.DISCARDS, seat)


def _hand(seat: int) -> Zone:
    return Zone(ZoneKind.HAND, seat)


def _melds(seat: int) -> Zone:
    return Zone(ZoneKind.MELDS, seat)


_MELD_CLAIM_NAMES: dict[type, ClaimName] = {Kong: "kong", Pung: "pung", Chow: "chow"}


def _standing_claim(discarder: int, answers: dict[int, Action]) -> Action | None:
    """The meld claim that would stand, as the round resolves it (``standing_meld_claim``)."""
    claims = {
        s: _MELD_CLAIM_NAMES[type(a)] for s, a in answers.items() if type(a) in _MELD_CLAIM_NAMES
    }
    seat = standing_meld_claim(discarder, claims)
    return None if seat is None else answers[seat]
