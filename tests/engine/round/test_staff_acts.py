"""Acts of a person on a hand: each an event with who, when and why, folded by replay,
validated as ``mjtable settle`` validates, and counted in the session totals exactly as a
recount of the log counts them."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli.settle import settle_data
from engine.round import Rejection, apply, finished_hand, fold, public_view
from engine.round.commands import STAFF_COMMANDS, Adjust, Audit, StaffInputError
from engine.round.events import (
    Event,
    FinishedByStaff,
    HandStarted,
    Settled,
    WinCorrected,
    WinDeclared,
    event_from_dict,
    settlement_from_dict,
)
from engine.round.fold import CorruptLog, advance
from engine.round.replay import check, split_hands
from engine.round.staff import hand_net, read_winners, session_totals
from engine.round.state import Phase, RoundState
from engine.rulesets import builtin_ids
from engine.session import Session
from engine.settlement import FinishedHand, SeatEnd, parse_finished_hand
from engine.settlement.finished_hand import request_of
from engine.simulation import HandResult, play_session
from engine.tiles import format_kinds
from tests.engine.staff_helpers import (
    adjust,
    apply_penalty,
    correct_win,
    finish,
    undo,
    void,
    void_earlier,
)

AUDIT = Audit("ann", "staff", "2026-12-03T20:00:00+00:00", "reader 3 silent")


@cache
def _played(ruleset: str, seed: int = 1, hands: int = 6) -> list[HandResult]:
    return list(play_session(ruleset, hands, random.Random(seed)))


def _roundtrip(events: list[Event]) -> list[Event]:
    return [event_from_dict(json.loads(json.dumps(e.to_dict()))) for e in events]


def _won_hands() -> list[tuple[str, HandResult]]:
    out = []
    for rid in builtin_ids():
        out += [(rid, r) for r in _played(rid) if r.state.wins]
    return out


def _before_win(result: HandResult) -> RoundState:
    i = next(i for i, e in enumerate(result.log) if isinstance(e, WinDeclared))
    return fold(result.log[:i])


def _xia(state: RoundState) -> str | None:
    xia = None if state.wall is None else state.wall.xia_jing
    return None if xia is None else format_kinds([xia.kind])


def test_a_hand_finished_by_hand_with_the_readers_picture_settles_as_played() -> None:
    """Every won hand of every ruleset: staff entering the winner's hand as the readers
    saw it, at the moment before the 胡, get the played hand's settlement, marked."""
    hands = _won_hands()
    assert len(hands) > 20
    for rid, result in hands:
        before = _before_win(result)
        events = finish(before, AUDIT, read_winners(result.state), xia_indicator=_xia(result.state))
        act, settled = events
        assert isinstance(act, FinishedByStaff) and isinstance(settled, Settled)
        got = settlement_from_dict(settled.settlement)
        played = result.state.settlement
        assert played is not None
        assert (got.lines, got.next_dealer) == (played.lines, played.next_dealer), rid
        assert got.notes[-1] == "工作人员录入 (entered by staff ann)"
        # the same request through ``mjtable settle`` gives the same lines
        assert settle_data(act.request)["lines"] == [ln.as_dict() for ln in got.lines]
        # replay folds it and recomputes the same settlement
        state = fold(_roundtrip([*before_log(result), *events]))
        assert state.phase is Phase.DONE and check(state) is None


def before_log(result: HandResult) -> list[Event]:
    i = next(i for i, e in enumerate(result.log) if isinstance(e, WinDeclared))
    return result.log[:i]


def _mid_hand(ruleset: str = "xingguo") -> tuple[HandResult, RoundState, list[Event]]:
    result = next(r for r in _played(ruleset) if r.state.wins)
    log = before_log(result)[:-6]
    return result, fold(log), log


def test_a_hand_finished_as_exhausted_by_hand() -> None:
    _, state, log = _mid_hand()
    events = finish(state, AUDIT)
    replayed = fold(_roundtrip([*log, *events]))
    assert replayed.phase is Phase.DONE and check(replayed) is None
    assert events[0].request["win"] is None  # 流局 in the mjtable settle vocabulary


def _winner_entry(result: HandResult) -> dict[str, Any]:
    return read_winners(result.state)[0]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda w: w | {"hand": "123456789m123p1s"}, "winners[0]"),  # not a win
        (lambda w: w | {"hand": w["hand"] + "9s"}, "winners[0].hand"),  # 15 tiles
        (lambda w: w | {"from": "nobody"}, "winners[0].from"),
        (lambda w: w | {"seat": 7}, "winners[0].seat"),
        (lambda w: w | {"flags": ["tian", "nope"]}, "winners[0].flags"),
        (lambda w: w | {"colour": 1}, "winners[0].colour"),
    ],
)
def test_a_bad_finish_names_the_field_and_changes_nothing(change: Any, field: str) -> None:
    result, state, _ = _mid_hand()
    before = state.snapshot()
    with pytest.raises(StaffInputError) as err:
        finish(state, AUDIT, [change(_winner_entry(result))])
    assert field in str(err.value)
    assert state.snapshot() == before


def test_a_fifth_copy_is_refused_naming_the_seats() -> None:
    result, state, _ = _mid_hand()
    w = _winner_entry(result)
    # the winner claims four of a kind another seat holds or shows one of
    kinds = [t // 4 for s in range(4) if s != w["seat"] for t in state.hands[s] + state.discards[s]]
    kind = format_kinds([kinds[0]])
    hand = format_kinds(sorted([kinds[0]] * 4 + [9, 10, 11, 12, 13, 14, 18, 18, 18, 19]))
    with pytest.raises(ValueError, match=r"^seats: 5 tiles"):
        finish(state, AUDIT, [w | {"hand": hand, "melds": [], "tile": kind}])


def test_a_reason_of_a_megabyte_is_refused() -> None:
    _, state, _ = _mid_hand()
    with pytest.raises(StaffInputError, match="reason"):
        void(state, Audit("ann", "staff", "t", "x" * 1_000_000))
    with pytest.raises(StaffInputError, match="reason"):
        void(state, Audit("ann", "staff", "t", " "))


def test_points_are_bounded() -> None:
    _, state, _ = _mid_hand()
    for points in (0, -5, 10**9):
        with pytest.raises(StaffInputError, match="points"):
            adjust(state, AUDIT, 0, 1, points)
    with pytest.raises(StaffInputError, match="to_seat"):
        adjust(state, AUDIT, 2, 2, 5)


def test_a_correction_keeps_the_read_and_settles_the_corrected_hand() -> None:
    result = next(r for r in _played("guangdong") if r.state.wins)
    state = result.state
    w = read_winners(state)[0]
    events = correct_win(state, AUDIT, w["seat"], w["hand"], w["melds"])
    act = events[0]
    assert isinstance(act, WinCorrected)
    assert act.read == {"hand": w["hand"], "melds": w["melds"]} == act.corrected
    after = advance(state, events)
    assert after.settlement is not None and state.settlement is not None
    assert after.settlement.lines == state.settlement.lines
    assert check(fold(_roundtrip([*result.log, *events]))) is None
    # a corrected hand that is no win is refused, and the played settlement stands
    with pytest.raises(ValueError, match="win"):
        correct_win(state, AUDIT, w["seat"], "123456789m123p1s", [])
    with pytest.raises(StaffInputError, match="seat"):
        correct_win(state, AUDIT, (w["seat"] + 1) % 4, w["hand"], [])


def test_penalties_use_the_rulesets_amount_or_the_owners() -> None:
    _, jing_state, _ = _mid_hand("xingguo")
    (p,) = apply_penalty(jing_state, AUDIT, 2, "false_win")
    assert (p.amount, p.amount_from) == (20, "ruleset")
    assert hand_net(advance(jing_state, [p])) == (20, 20, -60, 20)
    _, gd_state, _ = _mid_hand("guangdong")
    with pytest.raises(StaffInputError, match="owner sets one"):
        apply_penalty(gd_state, AUDIT, 1, "false_win")
    (p,) = apply_penalty(gd_state, AUDIT, 1, "xianggong", owner_amount=5)
    assert (p.amount, p.amount_from) == (5, "owner")


def test_void_this_hand_moves_no_points_and_keeps_the_deal() -> None:
    result = next(r for r in _played("xingguo") if r.state.wins)
    state = result.state
    events = void(state, AUDIT)
    after = advance(state, events)
    assert after.voided and after.settlement is not None and after.settlement.void
    assert hand_net(after) == (0, 0, 0, 0)
    assert after.settlement.next_dealer == state.started.dealer
    assert check(fold(_roundtrip([*result.log, *events]))) is None
    with pytest.raises(StaffInputError, match="voided already"):
        void(after, AUDIT)


def test_undo_takes_back_the_last_act_only() -> None:
    _, state, _ = _mid_hand()
    with pytest.raises(StaffInputError, match="no act"):
        undo(state, AUDIT)
    s1 = advance(state, adjust(state, AUDIT, 0, 1, 7))
    s2 = advance(s1, finish(s1, AUDIT))
    assert s2.phase is Phase.DONE
    s3 = advance(s2, undo(s2, AUDIT))
    assert s3.snapshot() == s1.snapshot()  # the hand is open again, the adjustment stands
    s4 = advance(s3, undo(s3, AUDIT))
    assert s4.snapshot() == state.snapshot()


def test_a_log_that_undoes_what_is_not_last_is_corrupt() -> None:
    _, state, log = _mid_hand()
    events = adjust(state, AUDIT, 0, 1, 7)
    bad = event_from_dict(undo(advance(state, events), AUDIT)[0].to_dict() | {"undone": "x"})
    with pytest.raises(CorruptLog):
        fold([*log, *events, bad])


def test_staff_events_hide_the_other_seats_tiles() -> None:
    result, state, _ = _mid_hand()
    act = finish(state, AUDIT, [_winner_entry(result)])[0]
    public = act.public_dict()
    assert "request" not in public and public["winners"] == [_winner_entry(result)]
    assert public["by"] == "ann" and public["reason"] == "reader 3 silent"


# --- the totals: live (Session.follow) against a recount of the log --------------------

ACTS = ("adjust", "penalty", "void", "undo", "finish", "correct", "void_earlier")


def _act(
    name: str, state: RoundState, rng: random.Random, nets: dict[int, Any]
) -> list[Event] | None:
    a = Audit(rng.choice(["ann", "bo"]), rng.choice(["staff", "owner"]), "t", "why")
    try:
        if name == "adjust":
            return adjust(state, a, rng.randrange(4), rng.randrange(4), rng.randint(1, 99))
        if name == "penalty":
            return apply_penalty(state, a, rng.randrange(4), "xianggong", rng.randint(1, 30))
        if name == "void":
            return void(state, a)
        if name == "undo":
            return undo(state, a)
        if name == "finish":
            return finish(state, a)
        if name == "correct" and state.wins:
            w = read_winners(state)[0]
            return correct_win(state, a, w["seat"], w["hand"], w["melds"])
        if name == "void_earlier" and nets:
            no = rng.choice(sorted(nets))
            return void_earlier(state, a, no, nets.pop(no))
    except StaffInputError:
        return None
    return None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), ruleset=st.sampled_from(["xingguo", "guangdong", "yichun"]))
def test_live_totals_equal_a_recount_of_the_log(seed: int, ruleset: str) -> None:
    rng = random.Random(seed)
    played = _played(ruleset, seed=seed % 3, hands=4)
    session = Session(ruleset)
    log: list[Event] = []
    nets: dict[int, Any] = {}  # hand_no -> standing nets of hands not voided yet
    for n, result in enumerate(played):
        # the played hand up to some point, then acts, then (maybe) the rest of it
        hand = [e for e in result.log if not isinstance(e, HandStarted)]
        started = HandStarted(
            ruleset,
            result.state.started.dealer,
            hand_no=n + 1,
            dealer_streak=result.state.started.dealer_streak,
            prevailing_wind=result.state.started.prevailing_wind,
            first_dealer=result.state.started.first_dealer,
            options=result.state.started.options,
        )
        cut = rng.randint(len(hand) // 2, len(hand))
        state = fold([started, *hand[:cut]])
        hand_log: list[Event] = [started, *hand[:cut]]
        if state.settlement is not None:
            session.record(state.settlement)
        for _ in range(rng.randint(0, 6)):
            events = _act(rng.choice(ACTS), state, rng, nets)
            if events is None:
                continue
            after = advance(state, events)
            session.follow(state, after)
            state = after
            hand_log += events
        if state.settlement is None:  # nobody finished it: staff do
            try:
                events = finish(state, AUDIT)
            except StaffInputError:  # a seat the readers saw with a wrong count
                events = void(state, AUDIT)
            after = advance(state, events)
            session.follow(state, after)
            state, hand_log = after, hand_log + events
        assert state.settlement is not None
        if not state.voided:
            nets[n + 1] = state.settlement.net
        log += hand_log
    replayed = _roundtrip(log)
    assert tuple(session.totals) == session_totals(replayed)
    assert sum(session.totals) == 0
    for hand in split_hands(replayed):
        assert check(fold(hand)) is None


def test_each_act_reads_as_a_line_with_who_and_why() -> None:
    from engine.round.narration import owner_text

    _, state, _ = _mid_hand()
    (e,) = adjust(state, AUDIT, 0, 3, 12)
    assert owner_text(e, "en") == "staff ann: seat 1 pays seat 4 12 (adjustment) — reader 3 silent"


# --- one path: a person's act is a command that ``apply`` takes like a move ---------------


def test_apply_refuses_a_bad_act_naming_the_field_and_changes_nothing() -> None:
    _, state, log = _mid_hand()
    refused = apply(state, Adjust(AUDIT, 2, 2, 5))
    assert isinstance(refused, Rejection) and refused.code == "bad_act"
    assert refused.reason == "to_seat: the same seat as from_seat"
    assert public_view(state) == public_view(fold(log))
    events = apply(state, Adjust(AUDIT, 0, 3, 12))
    assert not isinstance(events, Rejection) and [e.type for e in events] == ["adjusted"]


def test_every_act_of_a_person_is_a_frozen_command() -> None:
    for command in STAFF_COMMANDS:
        params = getattr(command, "__dataclass_params__", None)
        assert params is not None and params.frozen, command


@pytest.mark.parametrize("ruleset", builtin_ids())
def test_the_request_of_a_played_hand_reads_back_as_that_hand(ruleset: str) -> None:
    """``request_of`` is ``parse_finished_hand``'s inverse on every played hand."""
    for result in _played(ruleset):
        hand = finished_hand(result.state)
        again = parse_finished_hand(json.loads(json.dumps(request_of(hand))))
        assert _in_order(again) == _in_order(hand)


def _in_order(hand: FinishedHand) -> FinishedHand:
    """(tile notation sorts a hand's tiles, a meld's and the discards; the 诈胡 seats too)"""
    seats = tuple(
        SeatEnd(
            tuple(sorted(s.concealed)),
            tuple(replace(m, kinds=tuple(sorted(m.kinds))) for m in s.melds),
            tuple(sorted(s.discards)),
        )
        for s in hand.seats
    )
    return replace(hand, seats=seats, false_win=tuple(sorted(hand.false_win)))  # type: ignore[arg-type]
