"""Simulated hands under an owner's options, not only the built-in presets: every ruleset
plays sessions with booleans flipped and choices re-picked (the options with a set of
values: 148 across the eight presets), and the invariants hold as for the presets.

The default run plays a few hands per option set; MJTABLE_SIM_HANDS=2000 plays more.
"""

from __future__ import annotations

import random
import typing
from collections.abc import Iterator
from enum import Enum
from typing import Any

import pytest
from pydantic import BaseModel

from engine.round import RoundState
from engine.round.actions import Action
from engine.round.events import Event
from engine.round.finish import settle
from engine.rulesets.preset import builtin_preset_data
from engine.rulesets.registry import FAMILIES, load_ruleset
from engine.session import Session
from tests.engine.round_helpers import (
    RULESETS,
    check_places,
    hands_per_ruleset,
    play,
    replayed,
)

_NAMES = {"id", "name", "family", "description"}


def _leaves(
    data: dict[str, Any], path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], Any]]:
    for key, value in data.items():
        if isinstance(value, dict):
            yield from _leaves(value, (*path, key))
        elif (*path, key)[0] not in _NAMES:
            yield (*path, key), value


def _choices(model: type[BaseModel], path: tuple[str, ...]) -> list[Any]:
    """The values the preset model allows at ``path``: both booleans, a Literal's or an
    Enum's values; none for free numbers."""
    for part in path[:-1]:
        sub = model.model_fields[part].annotation
        assert isinstance(sub, type) and issubclass(sub, BaseModel)
        model = sub
    ann = model.model_fields[path[-1]].annotation
    if ann is bool:
        return [False, True]
    if typing.get_origin(ann) is typing.Literal:
        return list(typing.get_args(ann))
    if isinstance(ann, type) and issubclass(ann, Enum):
        return [e.value for e in ann]
    return []


def option_sets(ruleset: str, count: int) -> list[dict[str, Any]]:
    """``count`` overrides of ``ruleset``'s preset that the preset model accepts, each
    changing about a third of the options that have a set of values."""
    data = builtin_preset_data(ruleset)
    model = FAMILIES[data["family"]][0]
    fields = [(p, [c for c in _choices(model, p) if c != v]) for p, v in _leaves(data)]
    fields = [(p, c) for p, c in fields if c]
    rng = random.Random(f"options-{ruleset}")
    out: list[dict[str, Any]] = []
    for _ in range(count * 5):
        options = {".".join(p): rng.choice(c) for p, c in fields if rng.random() < 0.35}
        try:
            load_ruleset(ruleset, options)
        except ValueError:
            continue  # a combination the preset model refuses (with a reason)
        out.append(options)
        if len(out) == count:
            break
    return out


@pytest.mark.parametrize("ruleset", RULESETS)
def test_option_sets_are_mostly_accepted(ruleset: str) -> None:
    sets = option_sets(ruleset, 3)
    assert len(sets) == 3
    assert all(sets)  # each changes something


@pytest.mark.parametrize("ruleset", RULESETS)
def test_simulated_hands_keep_their_invariants_under_other_options(ruleset: str) -> None:
    def each(state: RoundState, action: Action, events: list[Event]) -> None:
        if state.wall is not None and state.wall.dealt:
            check_places(state)

    for n, options in enumerate(option_sets(ruleset, 3)):
        rng = random.Random(f"options-{ruleset}-{n}")
        session = Session(ruleset, options, first_dealer=rng.randrange(4))
        for _ in range(hands_per_ruleset(4)):
            # (play refuses a bot move the engine rejects)
            state, log = play(session.next_hand(), rng, each=each)
            assert state.settlement is not None
            assert state.started.options == options
            assert sum(state.settlement.net) == 0
            # the log carries the options: replay folds the same state and settlement
            again = replayed(log)
            assert again.snapshot() == state.snapshot()
            assert settle(again) == state.settlement
            session.record(state.settlement)
        assert sum(session.totals) == 0
