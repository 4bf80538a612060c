"""A person's acts as the tests write them (positional, JSON objects for tiles): each
builds the engine's command and goes through ``apply``, the one path, a refusal raised
as ``StaffInputError`` with the field it names."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.round import Rejection, RoundState, apply
from engine.round.commands import (
    Adjust,
    Audit,
    Command,
    CorrectWin,
    EnterFlip,
    Finish,
    Penalise,
    StaffInputError,
    Undo,
    Void,
    VoidEarlier,
)
from engine.round.events import Event
from engine.settlement.ledger import Amount


def done(state: RoundState, command: Command) -> list[Event]:
    result = apply(state, command)
    if isinstance(result, Rejection):
        raise StaffInputError(result.reason)
    return result


def finish(
    state: RoundState,
    audit: Audit,
    winners: Sequence[object] = (),
    seats: Sequence[object] = (),
    **flips: str | None,
) -> list[Event]:
    return done(state, Finish.of(audit, winners, seats, **flips))


def correct_win(
    state: RoundState, audit: Audit, seat: int, hand: str, melds: Sequence[object] = ()
) -> list[Event]:
    return done(state, CorrectWin.of(audit, seat, hand, melds))


def apply_penalty(
    state: RoundState, audit: Audit, seat: int, penalty: Any, owner_amount: int | None = None
) -> list[Event]:
    return done(state, Penalise(audit, seat, penalty, owner_amount))


def adjust(
    state: RoundState, audit: Audit, from_seat: int, to_seat: int, points: int
) -> list[Event]:
    return done(state, Adjust(audit, from_seat, to_seat, points))


def void(state: RoundState, audit: Audit) -> list[Event]:
    return done(state, Void(audit))


def void_earlier(
    state: RoundState, audit: Audit, hand_no: int, net: Sequence[Amount]
) -> list[Event]:
    return done(state, VoidEarlier(audit, hand_no, tuple(net)))


def undo(state: RoundState, audit: Audit) -> list[Event]:
    return done(state, Undo(audit))


def enter_flip(state: RoundState, audit: Audit, indicator: Any) -> list[Event]:
    return done(state, EnterFlip(audit, indicator))
