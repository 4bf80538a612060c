"""The centre display's line names the seat to play as the seats' stickers do (1-4), or
the member who sits there."""

from __future__ import annotations

import random

from controller.table.display import status_text
from engine.round import Action, RoundState
from engine.round.events import Event, HandStarted
from engine.round.state import Phase
from tests.engine.round_helpers import play

PLAYING = (Phase.TURN, Phase.DRAW, Phase.REPLACEMENT)
NAMES = ["王五", None, "李四", None]


def test_the_seat_to_play_is_numbered_1_to_4_or_named() -> None:
    seen: set[int] = set()

    def each(state: RoundState, action: Action, events: list[Event]) -> None:
        if state.phase not in PLAYING:
            return
        seen.add(state.turn)
        assert f" {state.turn + 1}号位" in status_text(state, 1, None)
        named = status_text(state, 1, None, names=NAMES)
        assert f" {NAMES[state.turn] or f'{state.turn + 1}号位'}" in named

    play(HandStarted("xingguo", 0), random.Random("display"), each=each)
    assert seen == {0, 1, 2, 3}
