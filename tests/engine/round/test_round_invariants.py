"""Properties over simulated hands, every ruleset: tiles, zero-sum, replay, legality.

The default run plays a few dozen hands per ruleset; MJTABLE_SIM_HANDS=2000 plays more.
"""

from __future__ import annotations

import random

import pytest

from engine.round import (
    Chow,
    DeclareWin,
    Discard,
    Draw,
    Kong,
    Pass,
    PassRest,
    Pung,
    Rejection,
    RollDice,
    RoundState,
    apply,
)
from engine.round.actions import Action, Deal, FlipCaishen, Shuffle
from engine.round.events import Event, HandStarted
from engine.round.finish import settle
from engine.session import Session
from tests.engine.round_helpers import (
    RULESETS,
    check_places,
    hands_per_ruleset,
    play,
    replayed,
)


def random_action(rng: random.Random, state: RoundState) -> Action:
    seat = rng.randrange(4)
    tile = rng.randrange(136)
    hand = state.hands[seat]
    if hand and rng.random() < 0.5:
        tile = rng.choice(hand)
    choices: list[Action] = [
        Discard(seat, tile),
        Draw(seat, tile),
        Draw(seat),
        Pung(seat),
        Kong(seat, tile),
        Kong(seat),
        Chow(seat, (tile, rng.randrange(136))),
        DeclareWin(seat),
        Pass(seat),
        PassRest(),
        RollDice("jing", seat, rng.randint(1, 6), rng.randint(1, 6)),
        RollDice("break", seat, rng.randint(0, 7), rng.randint(1, 6)),
        Deal(),
        FlipCaishen(),
        Shuffle(tuple(range(135))),
    ]
    return rng.choice(choices)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_simulated_hands_keep_every_invariant(ruleset: str) -> None:
    rng = random.Random(f"invariants-{ruleset}")
    probe = random.Random(f"probe-{ruleset}")
    session = Session(ruleset, first_dealer=rng.randrange(4))
    refused = 0

    def each(state: RoundState, action: Action, events: list[Event]) -> None:
        nonlocal refused
        if state.wall is not None and state.wall.dealt:
            check_places(state)
        # a random action: refused with a reason and nothing changed, or simply legal
        before = state.snapshot()
        attempt = random_action(probe, state)
        result = apply(state, attempt)
        assert state.snapshot() == before
        if isinstance(result, Rejection):
            refused += 1
            assert result.code and result.reason

    for _ in range(hands_per_ruleset(25)):
        started = session.next_hand()
        state, log = play(started, rng, each=each)
        assert state.settlement is not None
        assert sum(state.settlement.net) == 0
        # replay: the JSON log folds to the same state, the settlement recomputes the same
        again = replayed(log)
        assert again.snapshot() == state.snapshot()
        assert again.settlement == state.settlement
        assert settle(again) == state.settlement
        session.record(state.settlement)
    assert refused > 0
    assert sum(session.totals) == 0


def test_fold_rejects_a_log_without_a_start() -> None:
    from engine.round import CorruptLog, fold

    with pytest.raises(CorruptLog):
        fold([])


def test_logs_start_with_the_hand() -> None:
    state, log = play(HandStarted("xingguo", 0), random.Random(1))
    assert isinstance(log[0], HandStarted)
    assert log[-1].type == "settled"
    assert state.finished
