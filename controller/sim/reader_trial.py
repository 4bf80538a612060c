"""Whole hands of legal play read through a reader model into the controller's tracker.

No asyncio and no clock: the players keep their own engine round (the truth) and carry
each action out as physical moves on a virtual table (dice by the seat's button, the deal
four tiles at a time, the 精 on its spot, draws, discards, a pung now and then with its
button); between one batch of moves and the next the readers make ``pace`` inventory
rounds (``ROUNDS_PER_BATCH`` unless told: ``firmware_bridge.sim.reader_trial``), and every
TagIn/TagOut goes to a :class:`~controller.tracking.tracker.Tracker` whose engine round is the
hand as the table sees it. Counted, per reader model:

- a **false move**: a TagIn into a zone the tile is not in, or an action the tracker
  applied that the players did not take (its events differ from the players' round);
- a **lost tile**: a TagOut from the zone the tile still lies in;
- a **missed move**: an action carried out on the table that the tracker has not applied
  when the hand is judged, ``SETTLE_ROUNDS`` rounds after the last move;
- the **delay** of each action: inventory rounds from its last physical move (the deal's
  last tile, a pung's three) to the round after which the tracker had applied it (1 = the
  first round after the move);
- **unseen** moves (not errors): moves no reader saw before the tile moved on, which the
  tracker had to infer (``controller.tracking.moves``).

bench/readers.py runs many hands per model and seed; tests/controller/sim/test_reader_trial.py
a few.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from controller.config import TrackerSettings
from controller.table.dealer_guide import due_roll
from controller.table.dice import DiceRoller
from controller.table.tags import TagBook
from controller.tracking.engine_port import EnginePort
from controller.tracking.tracker import Alert, Tracker
from controller.tracking.window import in_window, unanswered
from engine.round.actions import (
    Action,
    Deal,
    Discard,
    Draw,
    Pass,
    PassRest,
    Pung,
    Rejection,
    RollDice,
    Shuffle,
)
from engine.round.events import DicePurpose, Event, HandStarted
from engine.round.fold import evolve
from engine.round.state import SEATS, Phase, RoundState
from engine.tiles import KIND_LABELS, kind_of
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.rfid.inventory import TagIn, TagOut
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.sim import TileSet
from firmware_bridge.sim.antennas import AntennaField, FieldModel
from firmware_bridge.sim.model import TableModel
from firmware_bridge.sim.moves import FlipToJing, MoveTag, TakeFromWall
from firmware_bridge.sim.reader_trial import (
    ROUNDS_PER_BATCH,
    SETTLE_ROUNDS,
    ReaderModel,
    ReaderPipeline,
    TrialResult,
)
from firmware_bridge.table_events import ButtonPressed

RULESET = "xingguo"
TURNS = 60
"""Discards per hand (the wall would allow a few more)."""
PUNG_CHANCE = 0.5
"""How often a seat holding a pair of the discard's kind claims it."""
DICE_SEED = 23559
"""Every trial hand rolls 6+5, 5+4, 3+5 (break, second break, 翻精) from this seed's
committed dice: the rolls the trials' recorded cases were found with."""

PhysicalMove = TakeFromWall | MoveTag | FlipToJing


class _Hand:
    """One hand: the players' round and the table, the readers and the tracker."""

    def __init__(
        self, kind: ReaderModel, tiles: TileSet, field_: AntennaField, rng: random.Random
    ) -> None:
        self.kind = kind
        self.uids = tiles.uids
        self.tile_of = {uid: t for t, uid in enumerate(self.uids)}
        self.rng = rng
        self.model = TableModel(self.uids)
        self.model.build_wall(rng)
        order = tuple(self.tile_of[uid] for uid in self.model.lift_order)
        started = HandStarted(RULESET, dealer=0)
        self.truth = EnginePort(RoundState(started))
        self.port = EnginePort(RoundState(started))
        self.roller = DiceRoller(seed=DICE_SEED)
        committed = self.roller.commit(table="trial", session="trial", hand_no=1)
        for port in (self.truth, self.port):
            evolve(port.state, committed)
            assert not isinstance(port.execute(Shuffle(order)), Rejection)
        self.alerts: list[Alert] = []
        zones = ZoneMap.standard()
        self.tracker = Tracker(
            self.port,
            TagBook(tiles.registry()),
            zones,
            roller=self.roller,
            alert=self.alerts.append,
            settings=TrackerSettings(claim_timeout=None),
        )
        self.pipe = ReaderPipeline(kind, zones, field_, self.model)
        self.buttons: list[tuple[int, SeatButton]] = []
        """Claim buttons pressed with the next batch of moves."""

    # --- the players ----------------------------------------------------------------------

    def act(self, action: Action) -> None:
        result = self.truth.execute(action)
        if isinstance(result, Rejection):
            raise AssertionError(f"the players' own round refused {action!r}: {result}")

    def batches(self) -> Iterator[list[tuple[PhysicalMove, int]]]:
        """The hand, one batch of (physical move, the players' event count once it is
        applied) at a time; the players' round moves on as each batch is made."""
        st = self.truth.state
        while (due := due_roll(st)) is not None and st.phase is not Phase.FLIP:
            self._roll(*due)
        wall = st.wall
        assert wall is not None
        deal = wall.copy().deal()
        self.act(Deal())
        dealt = len(self.truth.log)
        seats = [(st.dealer + k) % SEATS for k in range(SEATS)]
        for start in (0, 4, 8, 12):
            for seat in seats:
                hand = Zone(ZoneKind.HAND, seat)
                tiles = deal.positions(seat)[start : start + 4 if start < 12 else None]
                yield [(TakeFromWall(p, hand), dealt) for p in tiles]
        due = due_roll(st)
        assert due is not None
        self._roll(*due)
        flip = wall.flip
        assert flip is not None and flip.tile is not None
        yield [(FlipToJing(self.uids[flip.tile]), len(self.truth.log))]
        for _ in range(TURNS):
            if st.phase is not Phase.TURN:
                return
            seat = st.turn
            tile = self.rng.choice(sorted(st.hands[seat]))
            self.act(Discard(seat, tile))
            yield [(self._move(tile, Zone(ZoneKind.DISCARDS, seat)), len(self.truth.log))]
            claimed = self._pung(tile)
            if claimed is not None:
                yield claimed
                continue
            nxt = wall.peek_head()
            if nxt is None or nxt.tile is None:
                return
            self.act(PassRest())
            self.act(Draw((seat + 1) % SEATS, nxt.tile))
            hand = Zone(ZoneKind.HAND, (seat + 1) % SEATS)
            yield [(self._move(nxt.tile, hand), len(self.truth.log))]

    def _roll(self, purpose: DicePurpose, seat: int) -> None:
        st = self.truth.state
        a, b = self.roller.roll(st.dice_commit, len(st.dice), purpose=purpose, seat=seat)
        self.act(RollDice(purpose, seat, a, b))

    def _move(self, tile: int, to: Zone) -> PhysicalMove:
        uid = self.uids[tile]
        place = self.model.place_of(uid)
        return TakeFromWall(place, to) if isinstance(place, int) else MoveTag(uid, to)

    def _pung(self, discard: int) -> list[tuple[PhysicalMove, int]] | None:
        """A seat with a pair of the discard's kind claims it (button, then the tiles), the
        others pass; None if nobody does."""
        st = self.truth.state
        for seat in unanswered(st):
            pair = [t for t in sorted(st.hands[seat]) if kind_of(t) == kind_of(discard)][:2]
            if len(pair) < 2 or self.rng.random() >= PUNG_CHANCE:
                continue
            self.act(Pung(seat, (pair[0], pair[1])))
            for other in unanswered(st):
                if other != seat and in_window(st):
                    self.act(Pass(other))
            self.buttons.append((seat, SeatButton.PUNG))
            melds = Zone(ZoneKind.MELDS, seat)
            return [(self._move(t, melds), len(self.truth.log)) for t in (discard, *pair)]
        return None


def _same(a: Event, b: Event) -> bool:
    """The same event, but for the order of a meld's own tiles (the players name them in
    one order, the tracker in the order the readers reported them)."""
    if a == b:
        return True
    mine, theirs = getattr(a, "tiles", None), getattr(b, "tiles", None)
    if type(a) is not type(b) or not isinstance(mine, tuple) or not isinstance(theirs, tuple):
        return False
    return dataclasses.replace(a, tiles=tuple(sorted(mine))) == dataclasses.replace(  # type: ignore[call-arg]
        b, tiles=tuple(sorted(theirs))
    )


def _apply(model: TableModel, move: PhysicalMove) -> None:
    if isinstance(move, TakeFromWall):
        rejected = model.take_from_wall(move)
    else:
        rejected = model.move_tag(move)
    assert rejected is None, rejected


def play_hand(hand: _Hand, result: TrialResult, pace: int = ROUNDS_PER_BATCH) -> None:
    """Play one hand through the readers and the tracker, counting into ``result``; the
    players act every ``pace`` inventory rounds."""
    now = 0.0
    rounds = 0
    # per action carried out: the players' event count once it is applied -> the round of
    # its last physical move (the deal's is its last tile), and what it was
    pending: dict[int, tuple[int, str]] = {}
    last_move: dict[bytes, int] = {}  # tag -> the round it last moved
    seen: set[bytes] = set()  # tags read in their zone since they last moved
    port, truth, tracker = hand.port, hand.truth, hand.tracker
    agreed = 0  # events of the tracker's round checked against the players'
    wrong = False

    def judge(events: list[TagIn | TagOut]) -> None:
        for event in events:
            truth_at = hand.model.place_of(event.uid)
            if isinstance(event, TagIn):
                if event.zone != truth_at:
                    result.false_moves += 1
                    result.note(f"{hand.kind}: false TagIn of {event.uid.hex()} to {event.zone}")
                else:
                    seen.add(event.uid)
            elif event.zone == truth_at:
                result.lost_tiles += 1
                result.note(f"{hand.kind}: {event.uid.hex()} lost from {event.zone}")

    def step() -> None:
        nonlocal now, rounds, agreed, wrong
        # a seat due to roll presses its dice button until the table's round has rolled
        due = due_roll(port.state)
        if due is not None and len(port.state.dice) < len(truth.state.dice):
            tracker.press_dice(due[1], now)
        seconds, events = hand.pipe.round(now)
        now += seconds
        rounds += 1
        judge(events)
        for event in events:
            tracker.observe(event, now)
        if not wrong:
            at = next(
                (
                    i
                    for i in range(agreed, len(port.log))
                    if i >= len(truth.log) or not _same(port.log[i], truth.log[i])
                ),
                None,
            )
            if at is not None:
                wrong = True
                result.false_moves += 1
                players = truth.log[at] if at < len(truth.log) else "nothing"
                result.note(f"{hand.kind}: tracker applied {port.log[at]!r}, not {players!r}")
            agreed = len(port.log)
        for count in [n for n in pending if n <= len(port.log) and not wrong]:
            result.delays.append(rounds - pending.pop(count)[0])

    step()
    for batch in hand.batches():
        for seat, button in hand.buttons:
            tracker.observe(ButtonPressed(seat, button, now), now)
        hand.buttons.clear()
        for move, count in batch:
            uid = (
                move.tag
                if isinstance(move, MoveTag | FlipToJing)
                else hand.model.wall[move.position]
            )
            assert uid is not None
            if uid in last_move and uid not in seen:
                result.unseen += 1
            seen.discard(uid)
            last_move[uid] = rounds
            _apply(hand.model, move)
            pending[count] = (rounds, f"{move}")
            result.moves += 1
        for _ in range(pace):
            step()
    for _ in range(SETTLE_ROUNDS):
        step()
    for _, what in [] if wrong else pending.values():  # (after a false move: its own count)
        result.missed_moves += 1
        result.note(f"{hand.kind}: {what} never applied")
    result.rounds += rounds


def run_trial(
    kind: ReaderModel,
    hands: int,
    *,
    seed: int = 0,
    first: int = 0,
    miss_rate: float = 0.05,
    border_rate: float = 0.02,
    pace: int = ROUNDS_PER_BATCH,
) -> TrialResult:
    """Hands ``first`` .. ``first + hands - 1`` of ``seed`` through reader model ``kind``
    (each hand seeded on its own: any slice gives the same figures for those hands)."""
    result = TrialResult(kind)
    tiles = TileSet(seed, KIND_LABELS, epc=kind == "a0")
    for h in range(first, first + hands):
        rng = random.Random(f"{seed}:{kind}:{h}")
        field_ = AntennaField(
            FieldModel(miss_rate=miss_rate, border_rate=border_rate if kind != "ref" else 0.0),
            random.Random(f"{seed}:{kind}:{h}:field"),
        )
        before = result.errors
        play_hand(_Hand(kind, tiles, field_, rng), result, pace)
        if result.errors != before and len(result.examples) < 5:
            result.note(f"    (seed {seed}, hand {h})")
        result.hands += 1
    return result
