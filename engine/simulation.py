"""Bots at a virtual table: whole hands and sessions, for the demo, tests and benchmarks.

The only randomness is the ``random.Random`` the caller passes in: it shuffles the wall
and rolls the dice (unless the caller passes the rolls themselves: ``Rolls``, e.g. the
table's committed dice). The bots are deterministic, so a seed fixes every hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from engine.bots import Bot
from engine.errors import EngineError
from engine.hand import Shape
from engine.round.actions import (
    Action,
    Deal,
    FlipCaishen,
    Pass,
    PassRest,
    Rejection,
    RollDice,
    Shuffle,
)
from engine.round.events import Event, HandStarted
from engine.round.finish import finished_hand, win_of
from engine.round.fold import evolve_all
from engine.round.rules import apply
from engine.round.state import (
    AT_CLAIM,
    AT_DRAW,
    AT_REPLACEMENT,
    AT_ROB,
    AT_TURN,
    SEATS,
    Phase,
    RoundState,
)
from engine.session import Session
from engine.settlement import Settlement
from engine.wall import Dice, FlipKind, second_roller


class IllegalMove(EngineError, RuntimeError):
    """A bot (or the table) asked for something the engine refused: a bug, never play."""


Rolls = Callable[[int, int], tuple[int, int]]
"""(hand number, the roll's index in the hand from 0) -> the two dice."""


def table_action(
    state: RoundState, rng: random.Random, rolls: Rolls | None = None
) -> Action | None:
    """What the table itself does next (shuffle, dice, deal, flips), or None."""
    phase = state.phase
    dealer = state.dealer

    def _dice(rng: random.Random) -> tuple[int, int]:
        if rolls is not None:
            return rolls(state.started.hand_no, len(state.dice))
        return rng.randint(1, 6), rng.randint(1, 6)

    if phase is Phase.SHUFFLE:
        order = list(range(136))
        rng.shuffle(order)
        return Shuffle(tuple(order))
    if phase is Phase.BREAK_DICE:
        return RollDice("break", dealer, *_dice(rng))
    if phase is Phase.SECOND_DICE:
        first = state.dice[0]
        procedure = state.wall_rules.procedure
        roller = second_roller(procedure, dealer, Dice(first.a, first.b))
        assert roller is not None
        return RollDice("break_second", roller, *_dice(rng))
    if phase is Phase.DEAL:
        return Deal()
    if phase is Phase.FLIP:
        if state.ruleset.flip_kind is FlipKind.CAISHEN:
            return FlipCaishen()
        return RollDice("jing", dealer, *_dice(rng))
    if phase is Phase.XIA_DICE:
        return RollDice("xia_jing", dealer, *_dice(rng))
    return None


def waiting_seats(state: RoundState) -> list[int]:
    """Seats that must act now, in turn order."""
    if state.phase in (Phase.TURN, Phase.DRAW, Phase.REPLACEMENT):
        return [state.turn]
    if state.phase in (Phase.CLAIM, Phase.ROB):
        order = [(state.turn + k) % SEATS for k in (1, 2, 3)]
        return [s for s in order if s not in state.responses]
    return []


_PASS_REST = PassRest()


def play_hand(
    started: HandStarted,
    rng: random.Random,
    bots: Sequence[Bot] | None = None,
    on_event: Callable[[Event], None] | None = None,
    rolls: Rolls | None = None,
) -> tuple[RoundState, list[Event]]:
    """Play one hand to its settlement; returns the final state and the whole log."""
    bots = bots or [Bot(s) for s in range(SEATS)]
    state = RoundState(started)
    log: list[Event] = [started]
    if on_event is not None:
        on_event(started)
    append = log.append
    extend = log.extend
    # the answers of the seats in the open claim window: asked all at once when it opens
    # (a bot's answer reads its own hand and the tile only), applied one by one unless
    # every seat passes, as most do: then one PassRest says so
    answers: tuple[Action, Action, Action] = (_PASS_REST, _PASS_REST, _PASS_REST)
    while state.settlement is None:
        phase = state.phase
        action: Action | None
        if phase is AT_CLAIM or phase is AT_ROB:
            turn = state.turn
            responses = state.responses
            if not responses:
                answers = (
                    bots[(turn + 1) % SEATS].answer(state),
                    bots[(turn + 2) % SEATS].answer(state),
                    bots[(turn + 3) % SEATS].answer(state),
                )
                a1, a2, a3 = answers
                if type(a1) is Pass and type(a2) is Pass and type(a3) is Pass:
                    action = _PASS_REST
                else:
                    action = a1
            elif (turn + 2) % SEATS not in responses:
                action = answers[1]
            else:
                action = answers[2]
        elif phase is AT_TURN or phase is AT_DRAW or phase is AT_REPLACEMENT:
            action = bots[state.turn].act(state)
        else:
            action = table_action(state, rng, rolls)
            if action is None:
                action = bots[waiting_seats(state)[0]].act(state)
        result = apply(state, action)
        if isinstance(result, Rejection):
            raise IllegalMove(f"{action!r} refused: {result}")
        if on_event is None:
            evolve_all(state, result)
            extend(result)
        else:
            for event in result:
                evolve_all(state, (event,))
                append(event)
                on_event(event)
    return state, log


@dataclass(frozen=True, slots=True)
class HandResult:
    state: RoundState
    log: list[Event]
    settlement: Settlement


def play_session(
    ruleset: str,
    hands: int,
    rng: random.Random,
    options: dict[str, object] | None = None,
    rolls: Rolls | None = None,
) -> Iterator[HandResult]:
    """``hands`` hands in a row with four bots; the session moves the deal on."""
    session = Session(ruleset, dict(options or {}))
    bots = [Bot(s) for s in range(SEATS)]
    for _ in range(hands):
        state, log = play_hand(session.next_hand(), rng, bots, rolls=rolls)
        assert state.settlement is not None
        session.record(state.settlement)
        yield HandResult(state, log, state.settlement)


_SHAPE_RANK = {
    Shape.PINGHU: 0,
    Shape.XIAOQI: 1,
    Shape.DAQI: 2,
    Shape.SHISANLAN: 3,
    Shape.QIXING_SHISANLAN: 4,
    Shape.QUANFENG: 5,
    Shape.SHISANYAO: 6,
    Shape.JIULIAN: 7,
    Shape.SICAISHEN: 8,
}


def win_shapes(state: RoundState) -> list[str]:
    """The shape of each declared win (the rarest the ruleset allows for that hand)."""
    hand = finished_hand(state)
    out: list[str] = []
    for e in state.wins:
        win = win_of(e)
        readings = [
            r
            for r in state.ruleset.all_readings(hand, win)
            if state.ruleset.forbidden(hand, win, r) is None
        ]
        if readings:
            out.append(max(readings, key=lambda r: _SHAPE_RANK.get(r.shape, 0)).shape.value)
    return out
