"""The tracker's ``HandPort`` with the engine alone, no store and no MQTT (the service's
port is ``controller.table.hand_keeper``): what the reader trials and the tracker's tests
drive it with."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from engine.round.actions import Action, Rejection
from engine.round.events import Event
from engine.round.fold import evolve
from engine.round.rules import apply
from engine.round.state import RoundState


class EnginePort:
    """A tracker's ``HandPort`` with the engine alone (the service adds the store and
    MQTT): the hand as the table sees it, or, for the players, as it truly goes."""

    def __init__(self, state: RoundState) -> None:
        self.state = state
        self.log: list[Event] = []

    def execute(self, action: Action) -> list[Event] | Rejection:
        result = apply(self.state, action)
        if not isinstance(result, Rejection):
            for e in result:
                evolve(self.state, e)
            self.log += result
        return result

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        yield
