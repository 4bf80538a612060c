"""Replaying a log: split it into hands, fold step by step (``engine.round.narration``
says each step in words), and check that the settlement recomputed from the folded state
is the one recorded (the one re-check: ``mjtable replay``, the owner's replay page and
the tests all call ``check``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.errors import EngineError
from engine.round.events import (
    Event,
    HandStarted,
)
from engine.round.finish import settle
from engine.round.fold import evolve, start
from engine.round.state import RoundState


def split_hands(events: Iterable[Event]) -> Iterator[list[Event]]:
    """A log of several hands, one list per hand (each starts with HandStarted)."""
    hand: list[Event] = []
    for e in events:
        if isinstance(e, HandStarted) and hand:
            yield hand
            hand = []
        hand.append(e)
    if hand:
        yield hand


def steps(events: Iterable[Event]) -> Iterator[tuple[Event, RoundState]]:
    """Each event with the state right after it."""
    it = iter(events)
    state = start(next(it, None))
    yield state.started, state
    for e in it:
        evolve(state, e)
        yield e, state


def check(
    state: RoundState, beside: Mapping[str, Mapping[str, Any] | None] | None = None
) -> str | None:
    """None when the log's settlement, and each one kept ``beside`` it (by what to call it,
    e.g. ``{"the stored settlement": ...}``; None: missing), are, line by line and reason
    by reason, what the rules give now; else the first difference in words."""
    if state.settlement is None:
        return "the log ends before the settlement"
    try:
        derived = _plain(settle(state).as_dict())
    except EngineError as err:  # the folded tiles cannot be settled (SettleInputError …)
        return f"the folded hand cannot be settled: {err}"
    recorded: dict[str, Mapping[str, Any] | None] = {
        "the log's settlement": state.settlement.as_dict(),
        **(beside or {}),
    }
    for where, settlement in recorded.items():
        if settlement is None:
            return f"{where} is missing"
        diff = _difference(_plain(settlement), derived)
        if diff is not None:
            return f"{where}: {diff}"
    return None


def _plain(value: Any) -> Any:
    """As stored (JSON): tuples as lists, whole floats as they were written."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def _difference(recorded: dict[str, Any], derived: dict[str, Any]) -> str | None:
    """The first difference between two settlements' ``as_dict()``, in words; None if equal."""
    lines_a, lines_b = recorded.get("lines") or [], derived.get("lines") or []
    for i, (a, b) in enumerate(zip(lines_a, lines_b, strict=False)):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return f"line {i + 1} {key}: {a.get(key)!r:.80}, re-derived {b.get(key)!r:.80}"
    if len(lines_a) != len(lines_b):
        return f"{len(lines_a)} lines, re-derived {len(lines_b)}"
    for key in sorted(set(recorded) | set(derived)):
        if recorded.get(key) != derived.get(key):
            return f"{key}: {recorded.get(key)!r:.80}, re-derived {derived.get(key)!r:.80}"
    return None
