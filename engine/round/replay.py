"""Replaying a log: split it into hands, fold step by step, say each step in words, and
check that the settlement recomputed from the folded state is the one recorded (the one
re-check: ``mjtable replay``, the owner's replay page and the tests all call ``check``)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.errors import EngineError
from engine.round.events import (
    Adjusted,
    Chowed,
    ClaimDeclared,
    ClaimsResolved,
    Dealt,
    DiceRolled,
    Discarded,
    Drew,
    Event,
    Exhausted,
    FinishedByStaff,
    FlipEntered,
    HandStarted,
    HandVoided,
    JingFlipped,
    Konged,
    Passed,
    PenaltyApplied,
    Punged,
    ReplacementDrawn,
    Settled,
    Shuffled,
    StaffAct,
    StaffUndone,
    WinCorrected,
    WinDeclared,
    WinRejected,
)
from engine.round.finish import settle
from engine.round.fold import evolve, start
from engine.round.state import RoundState
from engine.tiles import format_kinds, kind_of


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


def _t(tile: int | None) -> str:
    return "?" if tile is None else format_kinds([kind_of(tile)])


_PENALTIES = {"false_win": "诈胡", "xianggong": "相公"}


def _describe_act(e: StaffAct) -> str:
    match e:
        case FinishedByStaff():
            seats = ", ".join(str(w.get("seat")) for w in e.winners)
            what = f"seat {seats} wins" if e.winners else "流局"
        case WinCorrected():
            what = (
                f"seat {e.seat}'s hand corrected: {e.read.get('hand')} → {e.corrected.get('hand')}"
            )
        case PenaltyApplied():
            what = (
                f"seat {e.seat} {_PENALTIES[e.penalty]}: pays {e.amount} to each "
                f"({e.amount_from}'s amount)"
            )
        case Adjusted():
            what = f"seat {e.from_seat} pays seat {e.to_seat} {e.points} (adjustment)"
        case HandVoided():
            what = f"hand {e.hand_no} voided"
        case FlipEntered():
            what = f"the flipped tile entered: {e.indicator}"
        case StaffUndone():
            what = f"undoes {e.undone}"
        case _:
            what = e.type
    why = f" — {e.reason}" if e.reason else ""
    return f"{e.role} {e.by}: {what}{why}"


def describe(e: Event) -> str:
    """One line a dealer can read."""
    if isinstance(e, StaffAct):
        return _describe_act(e)
    s = getattr(e, "seat", None)
    who = f"seat {s}" if s is not None else ""
    match e:
        case HandStarted():
            return (
                f"hand {e.hand_no}: {e.ruleset}, dealer seat {e.dealer}, streak {e.dealer_streak}"
            )
        case Shuffled():
            return "shuffled (wall order known)" if e.order else "shuffled (order unknown)"
        case DiceRolled():
            return f"{who} rolls {e.a}+{e.b} ({e.purpose})"
        case Dealt():
            return "dealt: " + " | ".join(format_kinds([kind_of(t) for t in h]) for h in e.tiles)
        case JingFlipped():
            return f"{e.purpose} turned up: {_t(e.tile)}"
        case Drew():
            return f"{who} draws {_t(e.tile)}"
        case ReplacementDrawn():
            return f"{who} draws replacement {_t(e.tile)}"
        case Discarded():
            return f"{who} discards {_t(e.tile)}" + (" (passed a self-drawn win)" * e.declined_win)
        case ClaimDeclared():
            return f"{who} claims {e.claim}"
        case Passed():
            return f"{who} passes"
        case ClaimsResolved():
            return f"claims on {_t(e.tile)} resolved"
        case Chowed():
            return f"{who} chows {_t(e.tile)} from seat {e.from_seat}"
        case Punged():
            return f"{who} pungs {_t(e.tile)} from seat {e.from_seat}"
        case Konged():
            return f"{who} kong ({e.kong}) {_t(e.tile if e.tile is not None else e.tiles[0])}"
        case WinDeclared():
            frm = "" if e.discarder is None else f" from seat {e.discarder}"
            return f"{who} wins on {_t(e.tile)} ({e.source}{frm})"
        case WinRejected():
            return f"{who} win refused: {e.reason}"
        case Exhausted():
            return "流局 (wall exhausted)"
        case Settled():
            return "settled: nets " + " ".join(str(n) for n in e.settlement["net"])
    return e.type
