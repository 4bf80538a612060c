"""Shared pieces of the round tests: playing hands step by step with checks in between."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from collections.abc import Callable

from engine.bots import Bot
from engine.round import (
    Action,
    Rejection,
    RoundState,
    apply,
    event_from_dict,
    evolve,
    fold,
)
from engine.round.events import Event, HandStarted
from engine.simulation import table_action, waiting_seats

RULESETS = ("xingguo", "nanchang", "jian", "yongfeng", "lianhua", "yichun", "chongji", "guangdong")


def hands_per_ruleset(default: int) -> int:
    """MJTABLE_SIM_HANDS=2000 runs the long version."""
    return int(os.environ.get("MJTABLE_SIM_HANDS", default))


def check_places(state: RoundState) -> None:
    """Each of the 136 tiles is in exactly one place (wall order known)."""
    places = Counter(t for t, _ in state.tile_places())
    assert len(places) == 136 and set(places.values()) == {1}, places.most_common(3)


def json_roundtrip(log: list[Event]) -> list[Event]:
    text = "\n".join(json.dumps(e.to_dict(), ensure_ascii=False) for e in log)
    return [event_from_dict(json.loads(line)) for line in text.splitlines()]


Step = Callable[[RoundState, Action, list[Event]], None]


def play(
    started: HandStarted,
    rng: random.Random,
    bots: list[Bot] | None = None,
    each: Step | None = None,
) -> tuple[RoundState, list[Event]]:
    """Play a hand like ``engine.simulation.play_hand``, calling ``each`` after a step."""
    bots = bots or [Bot(s) for s in range(4)]
    state = RoundState(started)
    log: list[Event] = [started]
    while state.settlement is None:
        action = table_action(state, rng) or bots[waiting_seats(state)[0]].act(state)
        result = apply(state, action)
        assert not isinstance(result, Rejection), f"{action} refused: {result}"
        for e in result:
            evolve(state, e)
            log.append(e)
        if each is not None:
            each(state, action, result)
    return state, log


def play_hands(ruleset: str, seed: str, each: Step, hands: int = 6) -> None:
    """``hands`` hands of ``ruleset`` with the deal moving round, ``each`` after a step."""
    rng = random.Random(seed)
    for n in range(hands):
        play(HandStarted(ruleset, n % 4), rng, each=each)


def replayed(log: list[Event]) -> RoundState:
    return fold(json_roundtrip(log))
