"""From what the readers and buttons report to engine actions: the table tracker.

The tracker keeps two pictures of the table: where each tile *is* (the latest zone a
reader saw it enter, from TagIn/TagOut), and where the engine *says* it is (the folded
hand). Whenever they differ it looks for the one legal action that explains the
difference in the hand's current phase, and submits it:

    DEAL      every hand holds the tiles the deal gives it          -> Deal
    FLIP      the 财神 (or, without a lift order, the 精) on the spot -> FlipCaishen / RollDice
    TURN      a tile of the seat's hand lies in its discards         -> Discard
              four of a kind (or a pung's fourth) in its melds       -> Kong
    DRAW      the wall's next tile is in the seat's hand             -> Draw
    CLAIM     the discard and two or three of a seat's tiles in its melds
                                                      -> Chow / Pung / Kong, the others pass
              the next seat drew: everybody who said nothing passed  -> Pass ...
    ROB       the konger drew the replacement                        -> Pass ...

Buttons add what tiles cannot say: 胡 (DeclareWin), 过 (Pass), and the dice (the seat
due to roll presses confirm, or the dealer's GPIO button). A claim button waits for its
tiles. Because moves are found from the difference and not from the order of reports,
the same code resumes a hand after a power cut: the log gives the engine's picture, the
readers' first scans the table's.

Nothing here raises on bad input. An observation no rule explains waits; if it is still
unexplained after ``grace`` seconds it becomes an alert (a tile in two zones, a tile where
it should not be or missing, a seat with the wrong count: 相公). Unknown tags, fifth
copies, 诈胡 and silent readers are alerted at once. Sans-IO: time comes in as ``now``.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import structlog

from controller.dealer_guide import Roll, due_roll
from controller.dice import DiceRoller
from controller.tags import BadTag, TagBook, TagProblem
from engine.hand import MeldType
from engine.round.actions import (
    Action,
    Chow,
    Deal,
    DeclareWin,
    Discard,
    Draw,
    FlipCaishen,
    Kong,
    Pass,
    PassRest,
    Pung,
    Rejection,
    RollDice,
)
from engine.round.events import Event, WinRejected
from engine.round.state import SEATS, Phase, RoundState
from engine.tiles import kind_name
from engine.wall import FlipKind
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.rfid.inventory import TagIn, TagOut
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.table_events import (
    BOARD,
    BridgeEvent,
    ButtonPressed,
    DeviceState,
    ReaderBack,
    ReaderSilent,
)

log = structlog.get_logger(__name__)

JING_ZONE = Zone(ZoneKind.JING)
_CLAIM_BUTTONS = (SeatButton.CHOW, SeatButton.PUNG, SeatButton.KONG)
_WAIT_CODES = ("wrong_phase", "not_your_turn")  # a button early: keep it a moment
_QUIET_PHASES = (Phase.SETTLE, Phase.DONE)


@dataclass(frozen=True, slots=True)
class TrackerSettings:
    grace: float = 3.0
    """Seconds an unexplained observation waits before it becomes an alert."""
    claim_timeout: float | None = 6.0
    """After a 胡 on a discard (or on the last tile), seats that said nothing for this long
    pass. None: only buttons and the next draw close a claim window."""
    button_ttl: float = 5.0
    """A button that does not apply yet (pressed before the reader saw the discard) is
    kept this long."""
    meld_settle: float = 1.0
    """Seconds a meld laid without its claim button (lost to a restart, say) must lie
    unchanged before its tiles alone decide, when two of a kind could still become a kong
    (the seat holds the third). A button decides at once."""


@dataclass(frozen=True, slots=True)
class Alert:
    kind: str
    message: str
    seat: int | None = None


class HandPort(Protocol):
    """The hand in progress: its folded state, and the way actions become stored events."""

    @property
    def state(self) -> RoundState | None: ...

    def submit(self, action: Action) -> list[Event] | Rejection: ...

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Submits inside are stored together when it ends."""
        ...


@dataclass(slots=True)
class _Button:
    seat: int
    button: SeatButton
    t: float


@dataclass(slots=True)
class _Problems:
    since: dict[tuple[object, ...], float] = field(default_factory=dict)
    alerted: set[tuple[object, ...]] = field(default_factory=set)


def _zone_name(zone: Zone | None) -> str:
    return "nowhere" if zone is None else str(zone)


def _tile(t: int) -> str:
    return kind_name(t // 4)


class Tracker:
    def __init__(
        self,
        port: HandPort,
        book: TagBook,
        zones: ZoneMap,
        *,
        roller: DiceRoller,
        alert: Callable[[Alert], None],
        settings: TrackerSettings | None = None,
    ) -> None:
        self.port = port
        self.book = book
        self.observed = frozenset(zones.values())
        self.roller = roller
        self._alert = alert
        self.settings = settings or TrackerSettings()
        self.pending_roll: Roll | None = None
        self._at: dict[int, list[Zone]] = {}  # tile -> zones it is in, latest last
        self._entered: dict[int, float] = {}
        self._bad: dict[bytes, set[Zone]] = {}
        self._bad_alerted: set[bytes] = set()
        self._buttons: list[_Button] = []
        self._problems = _Problems()
        self._refused: set[str] = set()
        self._window: tuple[object, ...] | None = None
        self._window_since = 0.0
        self._board_down = False

    # --- what the table shows -------------------------------------------------------------

    def reset_table(self) -> None:
        """The tiles went back into the machine (a new wall): forget the old hand's buttons,
        rolls and alerts. Where tags lie stays as the readers last said: a tag the bridge
        still holds present (its TagOut is debounced) and that lands in the same zone again
        brings no new TagIn."""
        self._bad_alerted.clear()
        self._buttons.clear()
        self._problems = _Problems()
        self._refused.clear()
        self.pending_roll = None
        self._window = None

    def zone_of(self, tile: int) -> Zone | None:
        zs = self._at.get(tile)
        return zs[-1] if zs else None

    def tiles_in(self, zone: Zone) -> list[int]:
        """Tiles whose latest zone is ``zone``, in the order they arrived."""
        found = [t for t, zs in self._at.items() if zs and zs[-1] == zone]
        return sorted(found, key=lambda t: self._entered.get(t, 0.0))

    # --- input ------------------------------------------------------------------------------

    def observe(self, event: BridgeEvent, now: float) -> None:
        if isinstance(event, TagIn):
            self._tag_in(event.zone, event.uid, now)
        elif isinstance(event, TagOut):
            self._tag_out(event.zone, event.uid)
        elif isinstance(event, ButtonPressed):
            if event.button is SeatButton.CONFIRM:
                self.press_dice(event.seat, now)
                return
            self._buttons.append(_Button(event.seat, event.button, now))
        elif isinstance(event, ReaderSilent):
            self._raise(
                Alert("reader_silent", f"reader {event.reader_id} ({event.zone}) is silent")
            )
        elif isinstance(event, ReaderBack):
            log.info("reader back", reader=event.reader_id, zone=str(event.zone))
        elif isinstance(event, DeviceState) and event.device == BOARD:
            down = event.state in ("disconnected", "failed")
            if down and not self._board_down:
                self._raise(Alert("board_silent", f"the table board is {event.state}"))
            self._board_down = down
            return
        else:
            return
        self.reconcile(now)

    def _tag_in(self, zone: Zone, uid: bytes, now: float) -> None:
        found = self.book.tile_of(uid)
        if isinstance(found, BadTag):
            self._bad.setdefault(uid, set()).add(zone)
            if uid not in self._bad_alerted:
                self._bad_alerted.add(uid)
                kind = "unknown_tag" if found.problem is TagProblem.UNKNOWN else found.problem.value
                self._raise(Alert(kind, f"tag {uid.hex()} in {zone}: {found.detail}"))
            return
        zs = self._at.setdefault(found, [])
        if zone in zs:
            zs.remove(zone)
        zs.append(zone)
        self._entered[found] = now

    def _tag_out(self, zone: Zone, uid: bytes) -> None:
        found = self.book.tile_of(uid)
        if isinstance(found, BadTag):
            zones = self._bad.get(uid)
            if zones is not None:
                zones.discard(zone)
            return
        zs = self._at.get(found)
        if zs and zone in zs:
            zs.remove(zone)

    def press_dice(self, seat: int | None, now: float) -> None:
        """The dice button (``seat`` None: the panel's GPIO button, for whoever is due)."""
        st = self.port.state
        due = None if st is None else due_roll(st)
        if st is None or due is None or self.pending_roll is not None:
            log.info("dice button ignored: no roll is due", seat=seat)
            return
        purpose, roller = due
        if seat is not None and seat != roller:
            log.info("dice button ignored: another seat rolls", seat=seat, roller=roller)
            return
        index = len(st.dice)
        a, b = self.roller.roll(st.started.hand_no, index, purpose=purpose, seat=roller)
        roll = Roll(purpose, roller, a, b, index)
        if purpose in ("jing", "xia_jing") and st.order is None and JING_ZONE in self.observed:
            # Without a lift order the turned-up tile is known only once it lies on the spot.
            self.pending_roll = roll
        else:
            self._submit(RollDice(purpose, roller, a, b), now)
        self.reconcile(now)

    # --- reconciling ------------------------------------------------------------------------

    def reconcile(self, now: float) -> None:
        """Apply every action the table's picture explains, one at a time (stored as one
        batch: what one report explains is durable, and published, together)."""
        with self.port.batch():
            for _ in range(200):  # a hand has fewer actions than this between two reports
                if not self._step(now):
                    return

    def _step(self, now: float) -> bool:
        st = self.port.state
        if st is None or st.phase in _QUIET_PHASES:
            return False
        window = st.phase in (Phase.CLAIM, Phase.ROB)
        moved = self._try_buttons(st, now) or self._try_phase(st, now)
        current = self.port.state
        if moved and window and (current is None or current.phase not in (Phase.CLAIM, Phase.ROB)):
            # The window closed: claims announced for it are spent.
            self._buttons = [b for b in self._buttons if b.button not in _CLAIM_BUTTONS]
        return moved

    def _try_phase(self, st: RoundState, now: float) -> bool:
        phase = st.phase
        if phase is Phase.DEAL:
            return self._try_deal(st, now)
        if phase is Phase.FLIP:
            return self._try_flip(st, now)
        if phase is Phase.TURN:
            return self._try_turn(st, now)
        if phase in (Phase.DRAW, Phase.REPLACEMENT):
            tile = self._drawn(st, st.turn, tail=phase is Phase.REPLACEMENT)
            return tile is not None and self._submit(Draw(st.turn, tile), now)
        if phase in (Phase.CLAIM, Phase.ROB):
            return self._try_claim(st, now)
        if phase is Phase.XIA_DICE:
            return self._try_pending_flip(st, now)
        return False

    def _submit(self, action: Action, now: float) -> bool:
        result = self.port.submit(action)
        if isinstance(result, Rejection):
            key = repr(action)
            if key not in self._refused:
                self._refused.add(key)
                seat = getattr(action, "seat", None)
                self._raise(Alert("refused", f"{result.reason}", seat))
            return False
        for e in result:
            if isinstance(e, WinRejected):
                kind = "xianggong" if e.code == "xianggong" else "false_win"
                self._raise(Alert(kind, f"诈胡 {e.seat}号位: {e.reason}", e.seat))
        return True

    # --- buttons ---------------------------------------------------------------------------

    def _try_buttons(self, st: RoundState, now: float) -> bool:
        ttl = self.settings.button_ttl
        for b in list(self._buttons):
            if now - b.t > ttl:
                self._buttons.remove(b)
                log.info("button dropped", seat=b.seat, button=b.button.name, phase=st.phase.value)
                continue
            action = self._button_action(st, b)
            if action is None:
                continue
            result = self.port.submit(action)
            if isinstance(result, Rejection):
                if result.code not in _WAIT_CODES:
                    self._buttons.remove(b)
                    log.info("button refused", seat=b.seat, button=b.button.name, why=str(result))
                continue
            self._buttons.remove(b)
            for e in result:
                if isinstance(e, WinRejected):
                    kind = "xianggong" if e.code == "xianggong" else "false_win"
                    self._raise(Alert(kind, f"诈胡 {e.seat}号位: {e.reason}", e.seat))
            return True
        return False

    def _claim_button(self, seat: int) -> SeatButton | None:
        return next(
            (b.button for b in self._buttons if b.seat == seat and b.button in _CLAIM_BUTTONS), None
        )

    def _button_action(self, st: RoundState, b: _Button) -> Action | None:
        phase, seat = st.phase, b.seat
        window = phase in (Phase.CLAIM, Phase.ROB)
        answering = window and seat != st.turn and seat not in st.responses
        if b.button is SeatButton.WIN:
            if phase is Phase.TURN and seat == st.turn:
                return DeclareWin(seat)
            return DeclareWin(seat) if answering else None
        if b.button is SeatButton.PASS:
            if not answering:
                return None
            others = [s for s in self._unanswered(st) if s != seat]
            if any(self._claim_button(s) is not None for s in others):
                return None  # a claim announced by button waits for its tiles: keep it open
            return Pass(seat)
        if b.button in _CLAIM_BUTTONS and phase is Phase.TURN and seat == st.turn:
            self._buttons.remove(b)  # a kong on one's own turn: the tiles say which
            return None
        if b.button in _CLAIM_BUTTONS and answering and phase is Phase.CLAIM:
            if Zone(ZoneKind.MELDS, seat) in self.observed:
                return None  # the tiles will say which (see _try_claim)
            return self._blind_claim(st, seat, b.button)
        return None

    def _blind_claim(self, st: RoundState, seat: int, button: SeatButton) -> Action | None:
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
                if a < b and _is_chow(tile // 4, a // 4, b // 4):
                    return Chow(seat, (a, b))
        return None

    # --- phases ------------------------------------------------------------------------------

    def _hand(self, seat: int) -> Zone:
        return Zone(ZoneKind.HAND, seat)

    def _melds(self, seat: int) -> Zone | None:
        z = Zone(ZoneKind.MELDS, seat)
        return z if z in self.observed else None

    def _discards(self, seat: int) -> Zone | None:
        z = Zone(ZoneKind.DISCARDS, seat)
        if z in self.observed:
            return z
        pool = Zone(ZoneKind.POOL)
        return pool if pool in self.observed else None

    def _try_deal(self, st: RoundState, now: float) -> bool:
        assert st.wall is not None
        deal = st.wall.copy().deal()
        hands: list[tuple[int, ...]] = []
        known = st.order is not None
        for s in range(SEATS):
            have = self.tiles_in(self._hand(s))
            want = deal.tiles(s)
            if known:
                if set(have) != set(want):
                    return False
            elif len(have) != len(want) or any(t in st.seen for t in have):
                return False
            hands.append(tuple(have))
        return self._submit(Deal() if known else Deal(tuple(hands)), now)

    def _new_on_spot(self, st: RoundState) -> int | None:
        """A tile on the jing spot that the hand has not seen yet."""
        return next((t for t in self.tiles_in(JING_ZONE) if t not in st.seen), None)

    def _try_flip(self, st: RoundState, now: float) -> bool:
        if st.ruleset.flip_kind is FlipKind.CAISHEN:
            if st.order is not None:
                return self._submit(FlipCaishen(), now)
            tile = self._new_on_spot(st)
            return tile is not None and self._submit(FlipCaishen(tile), now)
        return self._try_pending_flip(st, now)

    def _try_pending_flip(self, st: RoundState, now: float) -> bool:
        roll = self.pending_roll
        if roll is None:
            return False
        tile = self._new_on_spot(st)
        if tile is None:
            return False
        self.pending_roll = None
        action = RollDice(roll.purpose, roll.seat, roll.a, roll.b, tile=tile)
        return self._submit(action, now)

    def _try_turn(self, st: RoundState, now: float) -> bool:
        seat = st.turn
        hand = st.hands[seat]
        dz = self._discards(seat)
        if dz is not None:
            out = sorted((t for t in hand if self.zone_of(t) == dz), key=lambda t: self._entered[t])
            if out:
                return self._submit(Discard(seat, out[0]), now)
        mz = self._melds(seat)
        if mz is None:
            return False
        laid = [t for t in hand if self.zone_of(t) == mz]
        if not laid:
            return False
        counts = Counter(t // 4 for t in laid)
        four = next((t for t in laid if counts[t // 4] == 4), None)
        if four is not None:
            return self._submit(Kong(seat, four), now)
        pungs = {m.tiles[0] // 4 for m in st.melds[seat] if m.type is MeldType.PUNG}
        added = next((t for t in laid if t // 4 in pungs), None)
        return added is not None and self._submit(Kong(seat, added), now)

    def _drawn(self, st: RoundState, seat: int, *, tail: bool) -> int | None:
        """The wall's next tile (head or tail) if it is now in ``seat``'s hand."""
        wall = st.wall
        assert wall is not None
        nxt = wall.peek_tail() if tail else wall.peek_head()
        if nxt is None:
            return None
        hz = self._hand(seat)
        if nxt.tile is not None:
            return nxt.tile if self.zone_of(nxt.tile) == hz else None
        return next((t for t in self.tiles_in(hz) if t not in st.seen), None)

    def _unanswered(self, st: RoundState) -> list[int]:
        return [s for s in ((st.turn + k) % SEATS for k in (1, 2, 3)) if s not in st.responses]

    def _pass_all(self, st: RoundState, now: float, but: int | None = None) -> bool:
        if but is None:
            # everybody still silent passes: one step, stored whole or refused whole
            current = self.port.state
            if current is None or current.phase not in (Phase.CLAIM, Phase.ROB):
                return False
            return bool(self._unanswered(current)) and self._submit(PassRest(), now)
        moved = False
        for s in self._unanswered(st):
            if s == but:
                continue
            current = self.port.state
            if current is None or current.phase not in (Phase.CLAIM, Phase.ROB):
                break
            moved = self._submit(Pass(s), now) or moved
        return moved

    def _try_claim(self, st: RoundState, now: float) -> bool:
        if st.phase is Phase.ROB:
            tile = self._drawn(st, st.turn, tail=True)
            return tile is not None and self._pass_all(st, now)
        discard = st.last_tile
        assert discard is not None and st.wall is not None
        for seat in self._unanswered(st):
            mz = self._melds(seat)
            if mz is None or self.zone_of(discard) != mz:
                continue
            laid = sorted(
                (t for t in st.hands[seat] if self.zone_of(t) == mz),
                key=lambda t: self._entered[t],
            )
            button = self._claim_button(seat)
            if button is None and self._still_laying(st, seat, discard, laid, now):
                return False  # (and the next draw does not pass it by)
            action = _meld_claim(seat, discard, laid, button)
            if action is None:
                continue
            if not self._submit(action, now):
                return False
            self._buttons = [
                b for b in self._buttons if not (b.seat == seat and b.button in _CLAIM_BUTTONS)
            ]
            self._pass_all(st, now, but=seat)  # the tile was taken: the others let it go
            return True
        if st.wall.is_exhausted or any(self._claim_button(s) for s in self._unanswered(st)):
            return False
        nxt = (st.turn + 1) % SEATS
        if self._drawn(st, nxt, tail=False) is not None:
            return self._pass_all(st, now)  # the next seat drew: nobody wanted the tile
        return False

    def _still_laying(
        self, st: RoundState, seat: int, discard: int, laid: list[int], now: float
    ) -> bool:
        """Two of the discard's kind laid while the seat holds the third: a pung, or a kong
        whose last tile is not read yet. Readers report a meld's tiles in no set order, so
        the tiles decide only after ``meld_settle`` seconds without a new one."""
        kind = discard // 4
        if sum(1 for t in laid if t // 4 == kind) != 2:
            return False
        if not any(t // 4 == kind and t not in laid for t in st.hands[seat]):
            return False
        latest = max(self._entered[t] for t in (*laid, discard))
        return now - latest < self.settings.meld_settle

    # --- time ----------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        """Claim-window timeouts, then alerts for what stayed unexplained too long."""
        st = self.port.state
        if st is not None and st.phase in (Phase.CLAIM, Phase.ROB):
            self._window_timeout(st, now)
        self.reconcile(now)
        self._check(now)

    def _window_timeout(self, st: RoundState, now: float) -> None:
        key = (st.started.hand_no, st.discards_total, st.phase, st.last_tile, len(st.wins))
        if key != self._window:
            self._window, self._window_since = key, now
            return
        timeout = self.settings.claim_timeout
        if timeout is None or now - self._window_since < timeout:
            return
        won = any(r is not None and r.claim == "win" for r in st.responses.values())
        last = st.phase is Phase.CLAIM and st.wall is not None and st.wall.is_exhausted
        if won or last:
            log.info("claim window timed out: the silent seats pass", phase=st.phase.value)
            self._pass_all(st, now)

    def expected_zones(self, st: RoundState) -> dict[int, Zone | None]:
        """Where the engine puts each tile it knows out of the wall (None: unread zone)."""
        out: dict[int, Zone | None] = {}

        def put(tiles: list[int] | tuple[int, ...], zone: Zone | None) -> None:
            for t in tiles:
                out[t] = zone if zone in self.observed else None

        for s in range(SEATS):
            put(st.hands[s], self._hand(s))
            for m in st.melds[s]:
                put(m.tiles, Zone(ZoneKind.MELDS, s))
            put(st.discards[s], self._discards(s))
        wall = st.wall
        if wall is not None:
            for f in (wall.flip, wall.xia_jing):
                if f is not None and f.tile is not None and not wall.is_taken(f.position):
                    put([f.tile], JING_ZONE)
        return out

    def _check(self, now: float) -> None:
        st = self.port.state
        found: dict[tuple[object, ...], Alert] = {}
        if st is not None and st.phase not in (*_QUIET_PHASES, Phase.XIA_DICE):
            self._find_problems(st, found)
        p = self._problems
        for key in list(p.since):
            if key not in found:
                del p.since[key]
                p.alerted.discard(key)
        for key, alert in found.items():
            first = p.since.setdefault(key, now)
            if now - first >= self.settings.grace and key not in p.alerted:
                p.alerted.add(key)
                self._raise(alert)

    def _find_problems(self, st: RoundState, found: dict[tuple[object, ...], Alert]) -> None:
        expected = self.expected_zones(st)
        before_play = st.phase in (Phase.SHUFFLE, Phase.BREAK_DICE, Phase.SECOND_DICE, Phase.DEAL)
        counts = Counter(zs[-1] for zs in self._at.values() if zs)
        off: set[int] = set()
        for s in range(SEATS):
            have, want = counts[self._hand(s)], len(st.hands[s])
            if before_play:
                want = 14 if s == st.dealer else 13
                if have <= want:
                    continue
            if have != want:
                off.add(s)
                held = set(self.tiles_in(self._hand(s)))
                extra = " ".join(_tile(t) for t in sorted(held - set(st.hands[s])))
                lack = " ".join(_tile(t) for t in sorted(set(st.hands[s]) - held))
                detail = (f" 多: {extra}" if extra else "") + (f" 少: {lack}" if lack else "")
                found[("xianggong", s)] = Alert(
                    "xianggong", f"相公：{s}号位手里有{have}张牌，应有{want}张{detail}", s
                )
        for t, zs in self._at.items():
            if not zs:
                continue
            if len(zs) > 1:
                where = ", ".join(str(z) for z in zs)
                found[("duplicate_tag", t)] = Alert(
                    "duplicate_tag", f"{_tile(t)} (tile {t}) is read in {where}"
                )
            here, want_zone = zs[-1], expected.get(t)
            if t in expected and want_zone is None:
                continue  # the engine puts it where no reader looks
            if here == want_zone:
                continue
            if here.kind is ZoneKind.HAND and (before_play or here.seat in off):
                continue  # being dealt, or the seat's count alert says it
            found[("tile_misplaced", t)] = Alert(
                "tile_misplaced",
                f"{_tile(t)} (tile {t}) lies in {here}, the hand has it in "
                f"{_zone_name(want_zone) if t in expected else 'the wall'}",
                here.seat,
            )
        for t, want_zone in expected.items():
            if want_zone is not None and self.zone_of(t) is None:
                found[("tile_missing", t)] = Alert(
                    "tile_missing",
                    f"{_tile(t)} (tile {t}) is not read in {want_zone}",
                    want_zone.seat,
                )

    def _raise(self, alert: Alert) -> None:
        log.warning("alert", kind=alert.kind, seat=alert.seat, message=alert.message)
        self._alert(alert)


def _is_chow(kind: int, a: int, b: int) -> bool:
    ks = sorted((kind, a, b))
    return ks[2] < 27 and ks[0] // 9 == ks[2] // 9 and ks == [ks[0], ks[0] + 1, ks[0] + 2]


def _meld_claim(
    seat: int, discard: int, laid: list[int], button: SeatButton | None
) -> Action | None:
    """The claim ``laid`` (the seat's own tiles in its melds, with the discard) makes."""
    kind = discard // 4
    same = [t for t in laid if t // 4 == kind]
    if button is SeatButton.KONG or (button is None and len(same) >= 3):
        return Kong(seat) if len(same) >= 3 else None
    if button is SeatButton.PUNG or (button is None and len(same) == 2):
        return Pung(seat, (same[0], same[1])) if len(same) >= 2 else None
    for i, a in enumerate(laid):
        for b in laid[i + 1 :]:
            if _is_chow(kind, a // 4, b // 4):
                return Chow(seat, (a, b))
    return None
