"""Bots: their fast shanten agrees with the engine's, and they play sensibly and legally."""

from __future__ import annotations

import random

import pytest

from engine.analysis import shanten
from engine.bot_eval import HandShape
from engine.bots import Bot
from engine.hand import Shape, ShapeOptions
from engine.round import Action, RoundState
from engine.round.actions import Chow, DeclareWin, Discard, Kong, Pass, Pung
from engine.round.events import Event, HandStarted
from engine.round.fold import evolve_all
from engine.round.rules import Rejection, apply
from engine.round.state import Phase
from engine.simulation import play_hand, table_action, waiting_seats
from engine.tiles import counts_of, kind_of
from tests.engine.round_helpers import play, play_hands

OPTIONS = [
    ShapeOptions(),
    ShapeOptions(
        honor_sets=True,
        shapes=frozenset({Shape.PINGHU, Shape.XIAOQI, Shape.DAQI, Shape.SHISANLAN}),
    ),
]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("wild", [frozenset(), frozenset({4, 5})])
def test_discard_shanten_matches_the_engine(options: ShapeOptions, wild: frozenset[int]) -> None:
    rng = random.Random(f"{options}-{sorted(wild)}")
    for _ in range(150):
        hand = [kind_of(t) for t in rng.sample(range(136), 14)]
        scores = HandShape(counts_of(hand), wild, options, 0).discards(set(hand))
        for kind, got in scores.items():
            rest = list(hand)
            rest.remove(kind)
            assert got == shanten(rest, (), wild, options), (hand, kind)
        assert HandShape(counts_of(hand[:13]), wild, options, 0).shanten() == shanten(
            hand[:13], (), wild, options
        )


def test_bots_win_and_keep_wildcards() -> None:
    rng = random.Random(4)
    wins = jing_discards = discards = 0
    for n in range(20):
        state, log = play_hand(HandStarted("xingguo", n % 4), rng)
        wins += bool(state.wins)
        wild = state.wild
        for e in log:
            if e.type == "discarded":
                discards += 1
                jing_discards += kind_of(e.tile) in wild  # type: ignore[attr-defined]
    assert wins >= 15
    assert jing_discards * 20 < discards


@pytest.mark.parametrize("ruleset", ["guangdong", "xingguo", "chongji", "yongfeng"])
def test_the_simulator_plays_what_the_seats_play_one_by_one(ruleset: str) -> None:
    # play_hand asks a window's seats at once and sends PassRest when all pass; the test
    # driver asks and applies one seat at a time: the logs are the same
    for n in range(4):
        fast = play_hand(HandStarted(ruleset, n), random.Random(n))[1]
        step = play(HandStarted(ruleset, n), random.Random(n))[1]
        assert fast == step


def test_bots_are_deterministic() -> None:
    a = play_hand(HandStarted("chongji", 1), random.Random(8))[1]
    b = play_hand(HandStarted("chongji", 1), random.Random(8))[1]
    assert a == b


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("wild", [frozenset(), frozenset({4, 5})])
@pytest.mark.parametrize("melds", [0, 1])
def test_choice_is_the_best_of_the_discard_scores(
    options: ShapeOptions, wild: frozenset[int], melds: int
) -> None:
    rng = random.Random(f"choice-{options}-{sorted(wild)}-{melds}")
    for n in range(600):
        size = 14 - 3 * melds
        if n % 3 == 0:
            hand = [kind_of(t) for t in rng.sample(range(136), size)]
        elif n % 3 == 1:  # near seven pairs
            kinds = rng.sample(range(34), 7)
            hand = [k for k in kinds[: size // 2] for _ in range(2)]
            hand += rng.sample(range(34), size - len(hand))
        else:  # near 十三烂: kinds apart, a few honors, maybe a wildcard
            hand = rng.sample([k for k in range(34) if k >= 27 or k % 3 == n % 3], size)
        shape = HandShape(counts_of(hand), wild, options, melds)
        barred = rng.choice([None, *hand, rng.randrange(34)])
        kinds = set(hand)
        if barred is not None and len(kinds) > 1:
            kinds.discard(barred)
        else:
            barred = None
        scores = shape.discards(kinds)
        low, tied = shape.choice(barred)
        assert low == min(scores.values()), (hand, barred)
        assert sorted(tied) == sorted(k for k in kinds if scores[k] == low), (hand, barred)


@pytest.mark.parametrize("ruleset", ["guangdong", "xingguo", "chongji"])
def test_answers_do_not_depend_on_the_other_seats_answers(ruleset: str) -> None:
    # at a table the answers in a claim window are not known until it closes: asking every
    # seat against the state as the window opens gives the answers the seats send in turn
    expected: dict[int, Action] = {}
    asked = [Bot(s) for s in range(4)]  # bots of their own: no cache shared with the play
    checked = 0

    def each(state: RoundState, action: Action, result: list[Event]) -> None:
        nonlocal checked
        if isinstance(action, (Pass, DeclareWin, Pung, Chow, Kong)) and action.seat in expected:
            assert action == expected.pop(action.seat), (state.phase, action)
            checked += 1
        if state.phase in (Phase.CLAIM, Phase.ROB) and not state.responses:
            window = state.copy()
            expected.clear()
            for k in (1, 2, 3):
                seat = (state.turn + k) % 4
                expected[seat] = asked[seat].answer(window)

    play_hands(ruleset, f"answers-{ruleset}", each)
    assert checked > 200


def test_a_bot_reads_the_hand_played_not_the_discard_it_chose() -> None:
    """A driver may ask a bot and play another tile (a hint the player ignores): the bot's
    next answers read the hand as it is, not the one its own discard would have left."""
    rng = random.Random(11)
    bots = [Bot(s) for s in range(4)]
    overridden = checked = 0
    for n in range(4):
        state = RoundState(HandStarted("guangdong", n))
        while state.settlement is None:
            action = table_action(state, rng) or bots[waiting_seats(state)[0]].act(state)
            if isinstance(action, Discard) and action.seat == 0:
                others = [t for t in state.hands[0] if kind_of(t) != kind_of(action.tile)]
                if others and overridden <= checked:
                    action = Discard(0, others[-1])
                    overridden += 1
            result = apply(state, action)
            assert not isinstance(result, Rejection), f"{action} refused: {result}"
            evolve_all(state, result)
            if state.phase is Phase.CLAIM and state.turn != 0 and not state.responses:
                held = bots[0]._current(state)
                assert list(held.counts) == counts_of([kind_of(t) for t in state.hands[0]])
                checked += 1
    assert overridden > 20 and checked > 60


def test_a_bot_answers_only_in_a_claim_window() -> None:
    state, _ = play(HandStarted("guangdong", 0), random.Random(3))
    with pytest.raises(ValueError, match="no tile to answer"):
        Bot(1).answer(state)
