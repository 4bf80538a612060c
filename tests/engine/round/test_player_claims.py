"""Players score their own hand: a seat claims its win (or a 流局) on a hand whose tiles
the engine never saw, the engine checks it at once, and the paying seats' confirmations
(with their 精 counts in the jing family) settle it exactly as ``mjtable settle`` settles
the request kept in the finish. A non-win, a claim for another seat, a second claim, an
answer from a seat that does not pay: refused, nothing kept."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from controller.cli.settle import settle_data
from engine.round import fold
from engine.round.commands import (
    AnswerClaim,
    Audit,
    Claim,
    PassClaim,
    SeatEntry,
    StaffInputError,
    WinnerEntry,
)
from engine.round.events import (
    ClaimAnswered,
    ClaimJoined,
    ClaimMade,
    ClaimPassed,
    Event,
    FinishedByStaff,
    Settled,
    settlement_from_dict,
)
from engine.round.player_claims import claim_view, stalled, undecided
from engine.round.replay import check
from engine.round.staff import result_of
from engine.round.state import Phase
from engine.simulation import play_session
from engine.tiles import parse_kinds, successor
from tests.engine.round.test_result_only_hands import _entered_with_needs, _played, _unseen
from tests.engine.staff_helpers import done, enter_flip, finish

STAMP = "2026-12-07T02:00:00+00:00"


def who(seat: int) -> Audit:
    return Audit(f"seat{seat}:guest:phone:0000000{seat}", "player", STAMP, "")


def _jing(seat: dict, indicator: str) -> tuple[int, int]:
    kinds = parse_kinds(seat["hand"]) + parse_kinds(seat.get("discards", ""))
    for m in seat["melds"]:
        kinds += parse_kinds(m["tiles"])
    z = parse_kinds(indicator)[0]
    return kinds.count(z), kinds.count(successor(z))


def _pass_undecided(log: list) -> None:
    """Each seat that could have won on the claim's discard too says 没胡."""
    for seat in undecided(fold(log)):
        log += done(fold(log), PassClaim(who(seat), seat))


def claims(ruleset: str) -> Iterator[tuple[dict[str, Any], list[Event], Claim]]:
    """Each hand of a short session with one winner (or none), on a table without readers,
    its flip entered where one is turned up: (its whole result, its log, the claim)."""
    for result in _played(ruleset):
        body = result_of(result.state)
        if len(body.get("winners", [])) > 1:
            continue
        state, log = _unseen(result)
        if body.get("indicator") and state.needs_flip:
            log += enter_flip(state, Audit("ann", "staff", STAMP), body["indicator"])
        winner = body["winners"][0] if body.get("winners") else None
        seat = winner["seat"] if winner else 0
        entry = None if winner is None else WinnerEntry.of(winner, "winner")
        yield body, log, Claim(who(seat), seat, entry)


@pytest.mark.parametrize("ruleset", ["xingguo", "nanchang", "guangdong", "yichun"])
def test_a_claim_confirmed_by_every_payer_settles_as_mjtable_settle(ruleset: str) -> None:
    tried = 0
    for body, log, claimed in claims(ruleset):
        made = done(fold(log), claimed)
        assert len(made) == 1 and isinstance(made[0], ClaimMade)
        claim = made[0]
        assert "request" not in claim.public_dict()
        log += made
        seats = {s["seat"]: s for s in body["seats"]}
        for payer in claim.payers:
            state = fold(log)
            counts = _jing(seats[payer], body["indicator"]) if claim.jing_counts else None
            log += done(state, AnswerClaim(who(payer), payer, True, counts))
        _pass_undecided(log)
        state = fold(log)
        assert state.phase is Phase.DONE and check(state) is None
        finished = next(e for e in log if isinstance(e, FinishedByStaff))
        assert finished.role == "player" and finished.by == claim.by
        settled = settlement_from_dict(next(e for e in log if isinstance(e, Settled)).settlement)
        assert settle_data(finished.request)["lines"] == [ln.as_dict() for ln in settled.lines]
        assert any("玩家录入" in n for n in settled.notes)
        tried += 1
    assert tried


def test_a_non_win_another_seats_claim_a_second_claim_and_a_non_payers_answer_are_refused() -> None:
    result = next(r for r in _played("guangdong") if len(r.state.wins) == 1)
    state, log = _unseen(result)
    winner = result_of(result.state)["winners"][0]
    seat = winner["seat"]
    bad = dict(winner, hand="19m19p19s1234567z"[:-1] + "1m")
    with pytest.raises(StaffInputError, match="胡牌不成立"):
        done(state, Claim(who(seat), seat, WinnerEntry.of(bad, "winner")))
    other = (seat + 1) % 4
    with pytest.raises(StaffInputError, match="只能为自己申报"):
        done(state, Claim(who(other), other, WinnerEntry.of(winner, "winner")))
    with pytest.raises(StaffInputError, match="没有待确认的申报"):
        done(state, AnswerClaim(who(other), other, True))
    made = done(state, Claim(who(seat), seat, WinnerEntry.of(winner, "winner")))
    state = fold([*log, *made])
    with pytest.raises(StaffInputError, match="还在等待确认"):
        done(state, Claim(who(other), other, None))
    with pytest.raises(StaffInputError, match="不需要确认"):
        done(state, AnswerClaim(who(seat), seat, True))
    claim = made[0]
    assert isinstance(claim, ClaimMade)
    payer = claim.payers[0]
    disputed = done(state, AnswerClaim(who(payer), payer, False))
    state = fold([*log, *made, *disputed])
    assert state.player_claim is not None and state.phase is not Phase.DONE
    with pytest.raises(StaffInputError, match="已经回答过"):
        done(state, AnswerClaim(who(payer), payer, True))


@pytest.mark.parametrize("ruleset", ["guangdong", "yichun"])
def test_several_winners_of_one_discard_claimed_together_settle_as_mjtable_settle(
    ruleset: str,
) -> None:
    """一炮多响 where the ruleset pays every winner: the first winner claims with the
    others' hands; the payers and each other winner confirm; the settlement pays all."""
    result = next(r for r in play_session(ruleset, 200, random.Random(3)) if len(r.state.wins) > 1)
    body = result_of(result.state)
    state, log = _unseen(result)
    first, *rest = (WinnerEntry.of(w, "winner") for w in body["winners"])
    seat = first.seat
    made = done(state, Claim(who(seat), seat, first, tuple(rest)))
    claim = made[0]
    assert isinstance(claim, ClaimMade)
    assert [w["seat"] for w in claim.winners] == [w["seat"] for w in body["winners"]]
    assert {w.seat for w in rest} <= set(claim.payers)
    log += made
    for payer in claim.payers:
        log += done(fold(log), AnswerClaim(who(payer), payer, True))
    _pass_undecided(log)
    state = fold(log)
    assert state.phase is Phase.DONE and check(state) is None
    finished = next(e for e in log if isinstance(e, FinishedByStaff))
    settled = settlement_from_dict(next(e for e in log if isinstance(e, Settled)).settlement)
    assert settle_data(finished.request)["lines"] == [ln.as_dict() for ln in settled.lines]
    paid = {ln.payee for ln in settled.lines if ln.code.startswith("win")}
    assert {w["seat"] for w in body["winners"]} <= paid


@pytest.mark.parametrize("ruleset", ["guangdong", "yichun"])
def test_another_winner_of_the_discard_joins_the_pending_claim_with_its_own_hand(
    ruleset: str,
) -> None:
    """一炮多响 from each winner's own phone: the first claims its hand, a payer confirms,
    the second claims its own on the same discard and joins (a ``claim_joined`` event,
    folded by replay); every payer but the joiner confirms anew; the settlement pays both
    as ``mjtable settle`` settles the same winners."""
    result = next(r for r in play_session(ruleset, 200, random.Random(3)) if len(r.state.wins) > 1)
    body = result_of(result.state)
    state, log = _unseen(result)
    first, second, *_ = (WinnerEntry.of(w, "winner") for w in body["winners"])
    log += done(state, Claim(who(first.seat), first.seat, first))
    claim = log[-1]
    assert isinstance(claim, ClaimMade)
    if len(claim.payers) > 1:  # (one payer's confirmation would settle it)
        early = claim.payers[0]
        log += done(fold(log), AnswerClaim(who(early), early, True))
    pending = claim_view(fold(log))
    assert pending is not None and pending["joinable"] is True
    log += done(fold(log), Claim(who(second.seat), second.seat, second))
    joined = log[-1]
    assert isinstance(joined, ClaimJoined) and joined.seat == second.seat
    assert "request" not in joined.public_dict()
    assert second.seat not in joined.payers and first.seat not in joined.payers
    state = fold(log)
    view = claim_view(state)
    assert view is not None and view["answers"] == []  # what was confirmed has changed
    assert [w["seat"] for w in view["winners"]] == [first.seat, second.seat]
    with pytest.raises(StaffInputError, match="不需要确认"):
        done(state, AnswerClaim(who(second.seat), second.seat, True))
    for payer in joined.payers:
        log += done(fold(log), AnswerClaim(who(payer), payer, True))
    _pass_undecided(log)
    state = fold(log)
    assert state.phase is Phase.DONE and check(state) is None
    finished = next(e for e in log if isinstance(e, FinishedByStaff))
    assert f"{second.seat + 1}号位也胡" in finished.reason
    settled = settlement_from_dict(next(e for e in log if isinstance(e, Settled)).settlement)
    assert [w["seat"] for w in finished.winners] == [first.seat, second.seat]
    assert settle_data(finished.request)["lines"] == [ln.as_dict() for ln in settled.lines]
    paid = {ln.payee for ln in settled.lines if ln.code.startswith("win")}
    assert {first.seat, second.seat} <= paid
    # the same as the first winner claiming both hands
    state, log = _unseen(result)
    log += done(state, Claim(who(first.seat), first.seat, first, (second,)))
    for payer in log[-1].payers:  # type: ignore[attr-defined]
        log += done(fold(log), AnswerClaim(who(payer), payer, True))
    _pass_undecided(log)
    together = next(e for e in log if isinstance(e, Settled)).settlement
    assert together["lines"] == [ln.as_dict() for ln in settled.lines]


def test_a_join_on_another_discard_from_the_discarder_twice_or_where_one_is_paid_is_refused() -> (
    None
):
    result = next(
        r for r in play_session("guangdong", 200, random.Random(3)) if len(r.state.wins) > 1
    )
    body = result_of(result.state)
    state, log = _unseen(result)
    first, second, *_ = body["winners"]
    log += done(state, Claim(who(first["seat"]), first["seat"], WinnerEntry.of(first, "winner")))
    state = fold(log)
    seat = second["seat"]
    discarder = first["from"]

    def join(seat: int, **changed: object) -> None:
        entry = WinnerEntry.of(dict(second, seat=seat) | changed, "winner")
        done(state, Claim(who(seat), seat, entry))

    other = next(s for s in range(4) if s not in (discarder, first["seat"], seat))
    with pytest.raises(StaffInputError, match="须胡同一张牌"):
        join(seat, **{"from": other})
    tile = next(t for t in ("1m", "5p", "9s", "7z") if parse_kinds(t) != parse_kinds(first["tile"]))
    with pytest.raises(StaffInputError, match="须胡同一张牌"):
        join(seat, tile=tile)
    with pytest.raises(StaffInputError, match="放炮，不能也胡"):
        join(discarder)
    with pytest.raises(StaffInputError, match="已经在胡牌的几家里"):
        join(first["seat"])
    log += done(state, Claim(who(seat), seat, WinnerEntry.of(second, "winner")))
    state = fold(log)
    with pytest.raises(StaffInputError, match="已经在胡牌的几家里"):
        join(seat)
    with pytest.raises(StaffInputError, match="还在等待确认"):
        done(state, Claim(who(discarder), discarder, None))
    # where the ruleset pays one winner of a discard, a second claim joins nothing
    state, won = _one_winner_claim_on_a_discard()
    pending = claim_view(state)
    assert pending is not None and pending["joinable"] is False
    seat = next(s for s in range(4) if s not in (won["seat"], won["from"]))
    with pytest.raises(StaffInputError, match="一炮只算一家胡"):
        done(state, Claim(who(seat), seat, WinnerEntry.of(dict(won, seat=seat), "winner")))


def test_several_winners_are_refused_where_the_ruleset_pays_one() -> None:
    result = next(r for r in _played("guangdong") if len(r.state.wins) == 1)
    state, _ = _unseen(result)
    winner = result_of(result.state)["winners"][0]
    seat = winner["seat"]
    other = dict(winner, seat=(seat + 1) % 4)
    entries = WinnerEntry.of(winner, "winner"), WinnerEntry.of(other, "winner")
    with pytest.raises(StaffInputError, match="同一家不能胡两次"):
        done(state, Claim(who(seat), seat, entries[0], (entries[0],)))
    result = next(r for r in _played("nanchang") if len(r.state.wins) == 1)
    state, _ = _unseen(result)
    with pytest.raises(StaffInputError, match="一炮只算一家胡"):
        done(state, Claim(who(seat), seat, entries[0], (entries[1],)))


@pytest.mark.parametrize("ruleset", ["xingguo", "nanchang", "lianhua", "yongfeng"])
def test_payers_entering_what_the_settlement_reads_of_them_settle_as_the_whole_result(
    ruleset: str,
) -> None:
    """Each paying seat answers with its partial seat (``Ruleset.needs``: its counted 精
    as tiles, its kongs, its melds that claimed one), not only its 精 counts: the claim
    settles as staff entering all four hands whole would."""
    tried = 0
    for result in _played(ruleset):
        body = result_of(result.state)
        if len(body.get("winners", [])) != 1:
            continue
        entered = _entered_with_needs(result, body)
        state, log = _unseen(result)
        whole_state, _ = _unseen(result)
        flips = {k: body.get(k) for k in ("xia_indicator", "indicator", "an_indicator")}
        _, whole = finish(
            whole_state, Audit("ann", "staff", STAMP), body["winners"], body["seats"], **flips
        )
        assert isinstance(whole, Settled)
        if body.get("indicator") and state.needs_flip:
            log += enter_flip(state, Audit("ann", "staff", STAMP), body["indicator"])
            state = fold(log)
        winner = WinnerEntry.of(entered["winners"][0], "winner")
        seat = winner.seat
        claim_flips = {k: body.get(k) for k in ("an_indicator", "xia_indicator")}
        log += done(state, Claim(who(seat), seat, winner, **claim_flips))
        claim = log[-1]
        assert isinstance(claim, ClaimMade)
        partial = {s["seat"]: SeatEntry.of(s, "seat") for s in entered["seats"]}
        for payer in claim.payers:
            log += done(fold(log), AnswerClaim(who(payer), payer, True, held=partial[payer]))
        answers = [e for e in log if isinstance(e, ClaimAnswered)]
        assert all(a.held is not None and "held" not in a.public_dict() for a in answers)
        state = fold(log)
        assert state.phase is Phase.DONE and check(state) is None
        settled = next(e for e in log if isinstance(e, Settled))
        assert settled.settlement["lines"] == whole.settlement["lines"]
        tried += 1
    assert tried


@pytest.mark.parametrize("ruleset", ["guangdong", "yichun"])
def test_a_discard_claim_waits_for_each_seat_that_could_win_too_to_join_or_say_it_did_not(
    ruleset: str,
) -> None:
    """Where only the discarder pays, its 确认 does not settle at once: each other seat
    that could have won on the discard (not the claimer, not the discarder) joins the claim
    or says 没胡 (a ``claim_passed`` event, folded by replay); a second winner may so join
    after the discarder confirmed, and the last 没胡 settles the hand."""
    result = next(r for r in play_session(ruleset, 200, random.Random(3)) if len(r.state.wins) > 1)
    body = result_of(result.state)
    state, log = _unseen(result)
    first, second, *_ = (WinnerEntry.of(w, "winner") for w in body["winners"])
    log += done(state, Claim(who(first.seat), first.seat, first))
    claim = log[-1]
    assert isinstance(claim, ClaimMade)
    discarder = first.source
    assert isinstance(discarder, int)
    waiting = undecided(fold(log))
    assert second.seat in waiting and discarder not in waiting and first.seat not in waiting
    for payer in claim.payers:
        log += done(fold(log), AnswerClaim(who(payer), payer, True))
    state = fold(log)
    assert state.phase is not Phase.DONE  # the payers' 确认 alone settles nothing now
    view = claim_view(state)
    assert view is not None and view["joinable"] and second.seat in view["undecided"]
    later = datetime.fromisoformat(STAMP) + timedelta(seconds=91)
    assert stalled(state, later, 90) is not None and "未答是否也胡" in stalled(state, later, 90)[0]
    # the seats that need not say, a second 没胡, a join after one: refused in words
    for seat in (first.seat, discarder):
        with pytest.raises(StaffInputError, match="不需要回答是否也胡"):
            done(state, PassClaim(who(seat), seat))
    log += done(state, Claim(who(second.seat), second.seat, second))
    assert isinstance(log[-1], ClaimJoined)
    for payer in log[-1].payers:
        log += done(fold(log), AnswerClaim(who(payer), payer, True))
    rest = undecided(fold(log))
    for seat in rest:
        with pytest.raises(StaffInputError, match="不需要回答是否也胡"):
            done(fold(log), PassClaim(who(second.seat), second.seat))
        log += done(fold(log), PassClaim(who(seat), seat))
        passed = [e for e in log if isinstance(e, ClaimPassed)][-1]
        assert passed.seat == seat and passed.by == who(seat).by and passed.at == STAMP
        if fold(log).phase is not Phase.DONE:
            with pytest.raises(StaffInputError, match="已经说过没胡"):
                done(fold(log), PassClaim(who(seat), seat))
    state = fold(log)
    assert state.phase is Phase.DONE and check(state) is None
    finished = next(e for e in log if isinstance(e, FinishedByStaff))
    assert all(f"{s + 1}号位没胡" in finished.reason for s in rest)
    settled = settlement_from_dict(next(e for e in log if isinstance(e, Settled)).settlement)
    assert settle_data(finished.request)["lines"] == [ln.as_dict() for ln in settled.lines]
    paid = {ln.payee for ln in settled.lines if ln.code.startswith("win")}
    assert {first.seat, second.seat} <= paid


def test_a_seat_that_said_it_did_not_win_cannot_join_and_one_winner_rulesets_ask_nothing() -> None:
    result = next(
        r for r in play_session("guangdong", 200, random.Random(3)) if len(r.state.wins) > 1
    )
    body = result_of(result.state)
    state, log = _unseen(result)
    first, second, *_ = (WinnerEntry.of(w, "winner") for w in body["winners"])
    log += done(state, Claim(who(first.seat), first.seat, first))
    log += done(fold(log), PassClaim(who(second.seat), second.seat))
    with pytest.raises(StaffInputError, match="已经说过没胡"):
        done(fold(log), Claim(who(second.seat), second.seat, second))
    # where the ruleset pays one winner of a discard, the payers' 确认 settles at once
    state, won = _one_winner_claim_on_a_discard()
    assert undecided(state) == ()
    seat = next(s for s in range(4) if s not in (won["seat"], won["from"]))
    with pytest.raises(StaffInputError, match="不需要回答是否也胡"):
        done(state, PassClaim(who(seat), seat))


@pytest.mark.parametrize("ruleset", ["xingguo", "guangdong"])
def test_a_win_that_robbed_a_kong_is_claimed_with_whose_pung_was_robbed(ruleset: str) -> None:
    """抢杠 from the winner's phone: ``from`` ``rob_kong:<seat>`` and whom the robbed pung
    was claimed from; the robbed seat stands in holding that pung (the settlement reads
    it), every payer confirms, and the hand settles as ``mjtable settle`` settles the
    request kept, the robbed seat paying as the ruleset's 抢杠 says. Without whom the pung
    came from, or with it on a win that robbed nothing: refused in words."""
    result = _played(ruleset)[0]
    state, log = _unseen(result)
    if state.needs_flip:
        log += enter_flip(state, Audit("ann", "staff", STAMP), "5s")
        state = fold(log)
    win = {"seat": 0, "hand": "123m456m789m234p99p", "tile": "4p", "from": "rob_kong:2"}
    entry = WinnerEntry.of(win, "winner")
    with pytest.raises(StaffInputError, match="被抢的碰是碰谁的牌"):
        done(state, Claim(who(0), 0, entry))
    with pytest.raises(StaffInputError, match="被抢的碰是碰谁的牌"):
        done(state, Claim(who(0), 0, entry, robbed_from=2))
    for bad in ("rob_kong:x", "rob_kong:7"):  # refused in words, never raised past them
        with pytest.raises(StaffInputError):
            done(state, Claim(who(0), 0, WinnerEntry.of(win | {"from": bad}, "w"), robbed_from=1))
    plain_win = WinnerEntry.of(win | {"from": 2}, "winner")
    with pytest.raises(StaffInputError, match="只有抢杠"):
        done(state, Claim(who(0), 0, plain_win, robbed_from=1))
    log += done(state, Claim(who(0), 0, entry, robbed_from=1))
    claim = log[-1]
    assert isinstance(claim, ClaimMade) and 2 in claim.payers
    assert claim.winners[0]["from"] == "rob_kong:2"
    robbed = claim.request["seats"][2]["melds"]
    assert robbed == [{"type": "pung", "tiles": "4p4p4p", "from": 1}]
    for payer in claim.payers:
        jing = (0, 0) if claim.jing_counts else None
        log += done(fold(log), AnswerClaim(who(payer), payer, True, jing))
    _pass_undecided(log)
    state = fold(log)
    assert state.phase is Phase.DONE and check(state) is None
    finished = next(e for e in log if isinstance(e, FinishedByStaff))
    assert finished.request["seats"][2]["melds"] == robbed
    settled = settlement_from_dict(next(e for e in log if isinstance(e, Settled)).settlement)
    assert settle_data(finished.request)["lines"] == [ln.as_dict() for ln in settled.lines]
    assert any(ln.code == "win.rob_kong" for ln in settled.lines), settled.lines


def _one_winner_claim_on_a_discard() -> tuple[Any, dict[str, Any]]:
    """A nanchang hand (one winner of a discard is paid) its winner has claimed: the hand
    with the claim pending, and the winner as entered."""
    one = next(
        r
        for r in _played("nanchang")
        if len(r.state.wins) == 1 and isinstance(result_of(r.state)["winners"][0]["from"], int)
    )
    body = result_of(one.state)
    won = body["winners"][0]
    state, log = _unseen(one)
    log += enter_flip(state, Audit("ann", "staff", STAMP), body["indicator"])
    log += done(fold(log), Claim(who(won["seat"]), won["seat"], WinnerEntry.of(won, "winner")))
    return fold(log), won
