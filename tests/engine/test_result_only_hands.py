"""A hand whose tiles the engine never saw (a table without readers): staff enter its
whole result with a finish, and it settles exactly as ``mjtable settle`` settles the
request kept in the event, and as the hand played where the discards change nothing."""

from __future__ import annotations

import random
from functools import cache

import pytest

from controller.cli.settle import settle_data
from engine.round import fold
from engine.round.actions import Shuffle
from engine.round.events import FinishedByStaff, Settled
from engine.round.finish import settlement_from_dict
from engine.round.replay import check
from engine.round.rules import apply
from engine.round.staff import Audit, StaffInputError, finish, result_of
from engine.round.state import Phase, RoundState
from engine.rulesets import builtin_ids
from engine.simulation import HandResult, play_session

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
