"""A result entered by hand (a staff finish, the players' claim), corrected once it settled:
``entered_entry`` gives it back in the finish's terms, every other seat cut to what the
ruleset settles, and ``CorrectResult`` with it unchanged settles the hand as before, for
every built-in ruleset; a replay folds the correction, an undo takes it back; a hand the
readers settled, or a voided one, has no entered result to correct."""

from __future__ import annotations

from typing import Any

import pytest

from engine.round import fold
from engine.round.commands import (
    AnswerClaim,
    Audit,
    CorrectResult,
    Finish,
    StaffInputError,
    Undo,
    Void,
)
from engine.round.events import ClaimMade, ResultCorrected, Settled
from engine.round.replay import check
from engine.round.staff import entered_entry, result_of
from engine.rulesets import builtin_ids
from engine.simulation import HandResult
from tests.engine.round.test_player_claims import _jing, _pass_undecided, claims, who
from tests.engine.round.test_result_only_hands import _played, _unseen
from tests.engine.staff_helpers import done, finish

STAFF = Audit("ann", "staff", "2026-12-07T09:00:00+00:00", "the wrong seat won")
FLIPS = ("indicator", "an_indicator", "xia_indicator")


def _as_entered(state: Any) -> CorrectResult:
    entry = entered_entry(state)
    assert entry is not None
    flips = {k: entry.get(k) for k in FLIPS}
    return CorrectResult(Finish.of(STAFF, entry["winners"], entry["seats"], **flips))


def _corrected_the_same(log: list[Any]) -> None:
    """Corrected to what was entered: the same nets, a replay of the log folding it; an
    undo puts the entry back."""
    state = fold(log)
    assert state.settlement is not None
    made = done(state, _as_entered(state))
    assert [type(e) for e in made] == [ResultCorrected, Settled]
    after = fold([*log, *made])
    assert after.settlement is not None and after.settlement.net == state.settlement.net
    assert check(after) is None
    again = done(after, _as_entered(after))  # a correction is corrected the same way
    assert fold([*log, *made, *again]).settlement == after.settlement
    undone = fold([*log, *made, *done(after, Undo(STAFF))])
    assert undone.settlement == state.settlement and entered_entry(undone) is not None


def _finished(result: HandResult) -> list[Any]:
    state, log = _unseen(result)
    body = result_of(result.state)
    flips = {k: body.get(k) for k in FLIPS}
    return log + finish(state, STAFF, body.get("winners", []), body["seats"], **flips)


@pytest.mark.parametrize("ruleset", builtin_ids())
def test_a_staff_finish_corrected_as_entered_settles_the_same(ruleset: str) -> None:
    for result in _played(ruleset):
        _corrected_the_same(_finished(result))


@pytest.mark.parametrize("ruleset", ["xingguo", "guangdong"])
def test_a_players_claim_corrected_as_entered_settles_the_same(ruleset: str) -> None:
    tried = 0
    for body, log, claimed in claims(ruleset):
        log += done(fold(log), claimed)
        claim = log[-1]
        assert isinstance(claim, ClaimMade)
        seats = {s["seat"]: s for s in body["seats"]}
        for payer in claim.payers:
            jing = _jing(seats[payer], body["indicator"]) if claim.jing_counts else None
            log += done(fold(log), AnswerClaim(who(payer), payer, True, jing))
        _pass_undecided(log)  # where several may win one discard, the others said 没胡
        assert fold(log).settlement is not None
        _corrected_the_same(log)
        tried += 1
    assert tried


def test_a_hand_the_readers_settled_or_a_voided_one_has_no_entered_result() -> None:
    result = _played("xingguo")[0]
    assert entered_entry(result.state) is None
    with pytest.raises(StaffInputError, match="no result entered by hand"):
        done(result.state, _correction_of(_finished(result)))
    log = _finished(result)
    voided = fold([*log, *done(fold(log), Void(STAFF))])
    assert entered_entry(voided) is None
    with pytest.raises(StaffInputError, match="voided"):
        done(voided, _correction_of(log))


def _correction_of(log: list[Any]) -> CorrectResult:
    return _as_entered(fold(log))
