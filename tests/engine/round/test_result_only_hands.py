"""A hand whose tiles the engine never saw (a table without readers): staff enter its
whole result with a finish, and it settles exactly as ``mjtable settle`` settles the
request kept in the event, and as the hand played where the discards change nothing."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from controller.cli.settle import settle_data
from engine.round import fold
from engine.round.actions import Shuffle
from engine.round.commands import Audit, StaffInputError
from engine.round.events import (
    FinishedByStaff,
    FlipEntered,
    Settled,
    event_from_dict,
    settlement_from_dict,
)
from engine.round.finish import finished_hand
from engine.round.projection import public_view
from engine.round.replay import check
from engine.round.rules import apply
from engine.round.staff import result_of
from engine.round.state import Phase, RoundState
from engine.rulesets import builtin_ids
from engine.settlement.finished_hand import request_of
from engine.settlement.needs import kind_of, reduced_hand
from engine.simulation import HandResult, play_session
from tests.engine.staff_helpers import enter_flip, finish, undo

AUDIT = Audit("ann", "staff", "2026-12-03T20:00:00+00:00", "")


@cache
def _played(ruleset: str) -> list[HandResult]:
    return list(play_session(ruleset, 6, random.Random(3)))


def _unseen(result: HandResult) -> tuple[RoundState, list]:
    """The same hand as a table without readers holds it: started, walls of unknown order."""
    started = result.log[0]
    state = RoundState(started)  # type: ignore[arg-type]
    shuffled = apply(state, Shuffle(None))
    assert isinstance(shuffled, list)
    log = [started, *shuffled]
    return fold(log), log


@pytest.mark.parametrize("ruleset", builtin_ids())
def test_a_result_entered_on_an_unseen_hand_settles_as_mjtable_settle(ruleset: str) -> None:
    for result in _played(ruleset):
        state, log = _unseen(result)
        body = result_of(result.state)
        winners = body.get("winners", [])
        events = finish(
            state,
            AUDIT,
            winners,
            body["seats"],
            xia_indicator=body.get("xia_indicator"),
            indicator=body.get("indicator"),
            an_indicator=body.get("an_indicator"),
        )
        act, settled = events
        assert isinstance(act, FinishedByStaff) and isinstance(settled, Settled)
        got = settlement_from_dict(settled.settlement)
        assert settle_data(act.request)["lines"] == [ln.as_dict() for ln in got.lines]
        played = result.state.settlement
        assert played is not None
        assert got.next_dealer == played.next_dealer
        table_only = any("guan_fengxiang" in ln.code for ln in played.lines)
        if not (result.state.gz_rounds or result.state.false_win or table_only):
            # 跟庄, 诈胡 and 关风向 live in the discards and the buttons, which a result
            # leaves out
            assert got.lines == played.lines, (ruleset, body)
        after = fold([*log, *events])
        assert after.phase is Phase.DONE and check(after) is None


def test_an_indicator_entered_where_the_readers_saw_the_flip_is_refused() -> None:
    result = next(r for r in _played("xingguo") if r.state.wall and r.state.wall.flip)
    before_end = fold([e for e in result.log if not isinstance(e, Settled)][:40])
    assert before_end.wall is not None and before_end.wall.flip is not None
    with pytest.raises(StaffInputError, match=r"^indicator:"):
        finish(before_end, AUDIT, seats=[], indicator="1m")


def test_the_xia_jing_goes_with_the_result_where_no_reader_saw_it_and_only_there() -> None:
    won = [r for r in _played("yongfeng") if r.state.wins]
    assert won
    result = won[0]
    body = result_of(result.state)
    state, _ = _unseen(result)
    assert "xia_indicator" in body
    without = {k: v for k, v in body.items() if k != "xia_indicator"}
    with pytest.raises(ValueError, match=r"^xia_indicator: required by yongfeng"):
        finish(state, AUDIT, without["winners"], without["seats"], indicator=body["indicator"])
    # where the readers saw it turned up after the win, it is theirs, not entered by hand
    seen = fold([e for e in result.log if not isinstance(e, Settled)])
    assert seen.wall is not None and seen.wall.xia_jing is not None
    with pytest.raises(StaffInputError, match=r"^xia_indicator: the readers saw the 下精"):
        finish(seen, AUDIT, [], [], xia_indicator=body["xia_indicator"])


def test_the_flip_entered_by_staff_is_shown_settled_with_and_undone() -> None:
    """On an unseen hand staff enter the turned-up 精 while it is played: the public view
    shows it, the finish settles with it (as ``mjtable settle`` on the request), a replay
    folds it, and undo takes it back."""
    result = next(r for r in _played("xingguo") if r.state.wall and r.state.wall.flip)
    state, log = _unseen(result)
    body = result_of(result.state)
    flipped = enter_flip(state, AUDIT, body["indicator"])
    (act,) = flipped
    assert isinstance(act, FlipEntered) and act.by == "ann" and act.indicator == body["indicator"]
    after = fold([*log, *flipped])
    assert public_view(after)["jing"]["zheng"] == body["indicator"]
    assert public_view(state)["jing"] == {}  # (the state it was entered on is unchanged)
    with pytest.raises(StaffInputError, match=r"^indicator: entered as"):
        enter_flip(after, AUDIT, "1m")
    with pytest.raises(StaffInputError, match=r"^indicator: entered as"):
        finish(after, AUDIT, body.get("winners", []), body["seats"], indicator="9p")
    winners = body.get("winners", [])
    events = finish(after, AUDIT, winners, body["seats"], an_indicator=body.get("an_indicator"))
    fin, settled = events
    assert isinstance(fin, FinishedByStaff) and fin.request["indicator"] == body["indicator"]
    assert isinstance(settled, Settled)
    lines = settlement_from_dict(settled.settlement).lines
    assert settle_data(fin.request)["lines"] == [ln.as_dict() for ln in lines]
    replayed = fold([event_from_dict(e.to_dict()) for e in [*log, *flipped, *events]])
    assert replayed.phase is Phase.DONE and check(replayed) is None
    undone = fold([*log, *flipped, *undo(after, AUDIT)])
    assert undone.flip_entered is None and public_view(undone)["jing"] == {}


@pytest.mark.parametrize(
    ("text", "why"),
    [("", "one tile"), ("1m2m", "one tile"), ("0x", ""), ("5s" * 40, "one tile")],
)
def test_a_flip_that_is_not_one_tile_is_refused(text: str, why: str) -> None:
    state, _ = _unseen(next(iter(_played("xingguo"))))
    with pytest.raises(StaffInputError, match=rf"^indicator: {why}"):
        enter_flip(state, AUDIT, text)


def test_a_flip_is_refused_where_the_readers_saw_it_or_none_is_turned_up() -> None:
    result = next(r for r in _played("xingguo") if r.state.wall and r.state.wall.flip)
    before_end = fold([e for e in result.log if not isinstance(e, Settled)][:40])
    with pytest.raises(StaffInputError, match=r"^indicator: the readers saw the flip"):
        enter_flip(before_end, AUDIT, "1m")
    state, _ = _unseen(next(iter(_played("guangdong"))))
    with pytest.raises(StaffInputError, match=r"^indicator: guangdong turns up no tile"):
        enter_flip(state, AUDIT, "1m")


def _entered_with_needs(result: HandResult, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (the whole result) as staff enter it under the hand's needs: the winners
    whole (their discards cut to the counted 精), every other seat partial."""
    hand = finished_hand(result.state)
    needs = result.state.ruleset.needs(kind_of(hand))
    seats = request_of(reduced_hand(hand, needs))["seats"]
    winners = [w | {"discards": seats[w["seat"]]["discards"]} for w in body.get("winners", [])]
    won = {w["seat"] for w in winners}
    others = [{"seat": s, **seats[s]} for s in range(4) if s not in won]
    assert all(o["partial"] for o in others)
    return body | {"winners": winners, "seats": others}


@pytest.mark.parametrize("ruleset", builtin_ids())
def test_a_result_entered_with_only_what_it_needs_settles_as_the_whole_result(
    ruleset: str,
) -> None:
    """On a table without readers staff give the winner's hand and, of the other seats,
    only what the ruleset reads: the same settlement as the four whole hands."""
    for result in _played(ruleset):
        body = result_of(result.state)
        settled = []
        for entry in (body, _entered_with_needs(result, body)):
            state, _ = _unseen(result)
            flips = {k: entry.get(k) for k in ("xia_indicator", "indicator", "an_indicator")}
            act, done = finish(state, AUDIT, entry.get("winners", []), entry["seats"], **flips)
            assert isinstance(done, Settled) and isinstance(act, FinishedByStaff)
            assert settle_data(act.request)["lines"] == done.settlement["lines"]
            settled.append(done.settlement | {"lines": sorted(done.settlement["lines"], key=repr)})
        assert settled[0] == settled[1], ruleset
