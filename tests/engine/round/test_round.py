"""The played hand: unknown wall orders, refusals, 诈胡, 流局, claim rules, projections."""

from __future__ import annotations

import json
import random

import pytest

from engine.bots import Bot, _Held
from engine.round import (
    Action,
    Chow,
    Deal,
    DeclareWin,
    Discard,
    Draw,
    FlipCaishen,
    Kong,
    Pass,
    PassRest,
    Phase,
    Pung,
    Rejection,
    RollDice,
    RoundState,
    Shuffle,
    advance,
    apply,
    finished_hand,
)
from engine.round.claims import candidate_win, refusal
from engine.round.events import (
    ClaimDeclared,
    ClaimsResolved,
    Dealt,
    DiceRolled,
    Discarded,
    Drew,
    Event,
    HandStarted,
    JingFlipped,
    Konged,
    Passed,
    ReplacementDrawn,
    WinDeclared,
    WinRejected,
)
from engine.round.fold import evolve
from engine.round.projection import public_view
from engine.round.state import Source
from engine.simulation import play_session, table_action, waiting_seats
from engine.tiles import kind_name, kind_of, successor
from tests.engine.round_helpers import check_places, play, play_hands


class PassiveBot(Bot):
    """Never wins, claims or kongs: every hand it plays runs into 流局."""

    def _wins_own(self, state: RoundState, held: _Held, kind: int) -> bool:
        return False

    def _claim(self, state: RoundState, kind: int) -> Action | None:
        return None

    def _self_kong(self, state: RoundState, counts: list[int]) -> Action | None:
        return None


def passive() -> list[Bot]:
    return [PassiveBot(s) for s in range(4)]


def actions_seen(log: list[Event]) -> list[Action]:
    """What a table that cannot read the wall reports, rebuilt from a known-order log."""
    out: list[Action] = [Shuffle(None)]
    i = 1
    while i < len(log):
        e = log[i]
        nxt = log[i + 1] if i + 1 < len(log) else None
        match e:
            case DiceRolled():
                flip = nxt if isinstance(nxt, JingFlipped) else None
                tile = flip.tile if flip else None
                under = flip.under_tile if flip else None
                out.append(RollDice(e.purpose, e.seat, e.a, e.b, tile, under))
            case JingFlipped(purpose="caishen"):
                out.append(FlipCaishen(e.tile))
            case Dealt():
                out.append(Deal(e.tiles))
            case Drew() | ReplacementDrawn():
                out.append(Draw(e.seat, e.tile))
            case Discarded():
                out.append(Discard(e.seat, e.tile))
            case Passed():
                out.append(Pass(e.seat))
            case WinRejected():
                out.append(DeclareWin(e.seat))
            case ClaimDeclared(claim="win"):
                out.append(DeclareWin(e.seat))
            case ClaimDeclared(claim="pung"):
                out.append(Pung(e.seat, (e.tiles[0], e.tiles[1])))
            case ClaimDeclared(claim="chow"):
                out.append(Chow(e.seat, (e.tiles[0], e.tiles[1])))
            case ClaimDeclared(claim="kong"):
                out.append(Kong(e.seat))
            case Konged(kong="concealed" | "added"):
                out.append(Kong(e.seat, e.tiles[0]))
            case WinDeclared(source="self" | "kong_replacement"):
                out.append(DeclareWin(e.seat))
        i += 1
    return out


@pytest.mark.parametrize("ruleset", ["lianhua", "chongji", "guangdong", "yongfeng"])
def test_unknown_wall_order_gives_the_same_hand(ruleset: str) -> None:
    state, log = play(HandStarted(ruleset, 1), random.Random(f"unknown-{ruleset}"))
    blind = RoundState(log[0])  # type: ignore[arg-type]
    got: list[Event] = [log[0]]
    for action in actions_seen(log):
        result = apply(blind, action)
        assert not isinstance(result, Rejection), f"{action}: {result}"
        for e in result:
            evolve(blind, e)
            got.append(e)
    assert [e for e in got if e.type != "shuffled"] == [e for e in log if e.type != "shuffled"]
    assert blind.settlement == state.settlement


def test_known_order_refuses_a_report_that_differs() -> None:
    rng = random.Random(2)

    def each(state: RoundState, action: Action, events: list[Event]) -> None:
        if state.phase is Phase.DRAW and state.wall is not None:
            nxt = state.wall.peek_head()
            assert nxt is not None and nxt.tile is not None
            wrong = (nxt.tile + 1) % 136
            got = apply(state, Draw(state.turn, wrong))
            assert isinstance(got, Rejection) and got.code == "tile_mismatch"

    play(HandStarted("xingguo", 0), rng, each=each)


def test_unknown_order_refuses_a_tile_seen_twice() -> None:
    _, log = play(HandStarted("guangdong", 0), random.Random(3))
    blind = RoundState(log[0])  # type: ignore[arg-type]
    for action in actions_seen(log):
        if isinstance(action, Draw):
            dealt = blind.hands[0][0]
            got = apply(blind, Draw(action.seat, dealt))
            assert isinstance(got, Rejection) and got.code == "tile_seen"
            missing = apply(blind, Draw(action.seat))
            assert isinstance(missing, Rejection) and missing.code == "tile_unknown"
            return
        result = apply(blind, action)
        assert not isinstance(result, Rejection)
        blind = advance(blind, result)


def _first_turn(ruleset: str, seed: int) -> RoundState:
    rng = random.Random(seed)
    state = RoundState(HandStarted(ruleset, 0))
    while state.phase is not Phase.TURN:
        action = table_action(state, rng)
        assert action is not None
        result = apply(state, action)
        assert not isinstance(result, Rejection)
        state = advance(state, result)
    return state


def test_false_win_is_refused_play_goes_on_and_it_is_paid_for() -> None:
    for seed in range(50):
        state = _first_turn("nanchang", seed)
        events = apply(state, DeclareWin(0))
        assert not isinstance(events, Rejection)
        if isinstance(events[0], WinRejected):
            break
    else:  # pragma: no cover
        pytest.fail("every dealer won by 天胡")
    rejected = events[0]
    assert rejected.penalised and rejected.code == "not_a_win"
    assert "不是胡牌" in rejected.reason
    state = advance(state, events)
    assert state.phase is Phase.TURN and state.false_win == [0]
    bots = passive()
    while state.settlement is None:
        seat = waiting_seats(state)[0]
        result = apply(state, bots[seat].act(state))
        assert not isinstance(result, Rejection)
        state = advance(state, result)
    assert finished_hand(state).false_win == (0,)
    codes = [line.code for line in state.settlement.lines]
    assert codes.count("false_win") == 3  # nanchang 流局 still settles the 诈胡


def test_guangdong_refuses_without_penalty() -> None:
    for seed in range(50):
        state = _first_turn("guangdong", seed)
        events = apply(state, DeclareWin(0))
        assert not isinstance(events, Rejection)
        if isinstance(events[0], WinRejected):
            assert not events[0].penalised
            assert advance(state, events).false_win == []
            return
    pytest.fail("no refused win found")  # pragma: no cover


@pytest.mark.parametrize("ruleset", ["xingguo", "yongfeng", "yichun", "chongji"])
def test_exhausted_wall_is_liuju(ruleset: str) -> None:
    state, log = play(HandStarted(ruleset, 2), random.Random(9), bots=passive())
    assert state.exhausted and not state.wins
    assert any(e.type == "exhausted" for e in log)
    assert state.settlement is not None and sum(state.settlement.net) == 0
    if ruleset == "xingguo":
        assert state.settlement.void and state.settlement.next_dealer == 2
    if ruleset == "yongfeng":  # 下精 dice after the hand, then the settlement
        assert any(isinstance(e, JingFlipped) and e.purpose == "xia_jing" for e in log)
        assert state.wall is not None and state.wall.live_count == 0
    check_places(state)


def test_refusals_name_the_reason() -> None:
    state = _first_turn("xingguo", 4)
    assert state.turn == 0
    cases: list[tuple[Action, str]] = [
        (Discard(1, state.hands[1][0]), "not_your_turn"),
        (Discard(0, state.hands[1][0]), "not_in_hand"),
        (Draw(0), "wrong_phase"),
        (Pass(1), "wrong_phase"),
        (Kong(0, None), "not_in_hand"),
        (Shuffle(None), "wrong_phase"),
    ]
    for action, code in cases:
        got = apply(state, action)
        assert isinstance(got, Rejection), action
        assert got.code == code, (action, got)
        assert "(" in got.reason  # Chinese first, an English gloss in brackets
    tile = state.hands[0][0]
    state = advance(state, apply(state, Discard(0, tile)))  # type: ignore[arg-type]
    assert state.phase is Phase.CLAIM
    chow = apply(state, Chow(2, (state.hands[2][0], state.hands[2][1])))
    assert isinstance(chow, Rejection) and chow.code == "chow_from_left"
    own = apply(state, Pass(0))
    assert isinstance(own, Rejection) and own.code == "own_tile"
    state = advance(state, apply(state, Pass(1)))  # type: ignore[arg-type]
    twice = apply(state, Pass(1))
    assert isinstance(twice, Rejection) and twice.code == "answered"


def test_lianhua_an_jing_is_recorded_but_never_public() -> None:
    state, log = play(HandStarted("lianhua", 0), random.Random(5))
    flip = next(e for e in log if isinstance(e, JingFlipped))
    assert flip.under_tile is not None
    assert "under_tile" in flip.to_dict() and "under_tile" not in flip.public_dict()
    assert finished_hand(state).an_indicator == kind_of(flip.under_tile)
    for e in log:
        public = e.public_dict()
        assert "order" not in public and "under_tile" not in public
        if e.type in ("drew", "replacement_drawn", "dealt"):
            assert "tile" not in public and "tiles" not in public


def test_genzhuang_counts_go_rounds_that_follow_the_dealer() -> None:
    from engine.round.fold import _genzhuang

    state = RoundState(HandStarted("xingguo", 1))
    for seat in (1, 2, 3, 0, 1, 2, 3, 0):
        _genzhuang(state, seat, 27)
    assert state.gz_rounds == 2
    for seat, kind in ((1, 27), (2, 28), (3, 27), (0, 27), (1, 27), (2, 27), (3, 27), (0, 27)):
        _genzhuang(state, seat, kind)
    assert state.gz_rounds == 2 and not state.gz_active  # a break ends the count


def _scan(ruleset: str, hands: int, look: object) -> int:
    """Play hands; ``look(state)`` is called on every state; returns how many it matched."""
    found = 0
    rng = random.Random(f"scan-{ruleset}")

    def each(state: RoundState, action: Action, events: list[Event]) -> None:
        nonlocal found
        found += bool(look(state))  # type: ignore[operator]

    for n in range(hands):
        play(HandStarted(ruleset, n % 4), rng, each=each)
    return found


def test_chongji_may_not_discard_what_it_just_claimed() -> None:
    def look(state: RoundState) -> bool:
        if state.phase is not Phase.TURN or state.source is not Source.CLAIM:
            return False
        keep = state.keep[state.turn]
        hand = state.hands[state.turn]
        same = [t for t in hand if kind_of(t) == keep]
        if not same or all(kind_of(t) == keep for t in hand):
            return False
        got = apply(state, Discard(state.turn, same[0]))
        assert isinstance(got, Rejection) and got.code == "keep_claimed"
        return True

    assert _scan("chongji", 40, look) > 0


def test_claim_limit_and_rob_window() -> None:
    def limit(state: RoundState) -> bool:
        if state.phase is not Phase.CLAIM:
            return False
        for seat in range(4):
            if seat != state.turn and seat not in state.responses and state.claims_count[seat] >= 2:
                got = apply(state, Pung(seat))
                assert isinstance(got, Rejection) and got.code in ("claim_limit", "not_enough")
                return got.code == "claim_limit"
        return False

    assert _scan("chongji", 40, limit) > 0

    def rob(state: RoundState) -> bool:
        if state.phase is not Phase.ROB:
            return False
        seat = next(s for s in range(4) if s != state.turn and s not in state.responses)
        got = apply(state, Pung(seat))
        assert isinstance(got, Rejection) and got.code == "rob_only_win"
        return True

    assert _scan("guangdong", 60, rob) > 0


def test_two_seats_rob_one_kong_and_both_are_paid() -> None:
    """一炮多响 on a robbed kong (guangdong): seat 0 adds to a pung and seats 2 and 3 both win
    on that tile. The hand once crashed in its settlement, which took several winners for a
    discard only. Hand 95 of this session is such a hand (found by simulation)."""
    results = list(play_session("guangdong", 96, random.Random(508)))
    log = results[95].log
    wins = [e for e in log if isinstance(e, WinDeclared)]
    assert [(w.seat, w.source, w.discarder) for w in wins] == [
        (2, "rob_kong", 0),
        (3, "rob_kong", 0),
    ]
    lines = results[95].settlement.lines
    assert {(line.payer, line.payee) for line in lines if line.code == "win.rob_kong"} == {
        (0, 2),
        (0, 3),
    }
    assert sum(results[95].settlement.net) == 0


def test_passed_wins_bar_later_discard_wins() -> None:
    def louhu(state: RoundState) -> bool:
        if state.phase is not Phase.CLAIM:
            return False
        for seat in range(4):
            if seat == state.turn or seat in state.responses:
                continue
            win = candidate_win(state, seat)
            if refusal(state, win) is not None:
                continue
            barred = state.copy()
            barred.passed_kinds[seat].add(win.tile)  # as if it had passed this tile before
            why = refusal(barred, win)
            assert why is not None and why.code == "louhu"
            barred.passed_kinds[seat].clear()
            barred.blocked[seat] = True  # as if it had passed a self-drawn win
            why = refusal(barred, win)
            assert why is not None and why.code == "zimo_buhu"
            return True
        return False

    assert _scan("guangdong", 30, louhu) > 0


@pytest.mark.parametrize("ruleset", ["guangdong", "xingguo", "chongji"])
def test_pass_rest_is_every_silent_seat_passing_in_turn(ruleset: str) -> None:
    """In every claim window of a few hands (robbed kongs too), before any answer and
    after each: PassRest gives the events of the Passes one by one, in one step."""
    windows = 0

    def each(state: RoundState, action: Action, events: list[Event]) -> None:
        nonlocal windows
        if state.phase not in (Phase.CLAIM, Phase.ROB):
            return
        windows += 1
        one_by_one: list[Event] = []
        scratch = state
        for seat in waiting_seats(state):
            step = apply(scratch, Pass(seat))
            assert not isinstance(step, Rejection)
            one_by_one += step
            scratch = advance(scratch, step)
        assert apply(state, PassRest()) == one_by_one

    play_hands(ruleset, f"pass-rest-{ruleset}", each)
    assert windows > 100


def test_pass_rest_only_in_a_claim_window() -> None:
    state, _ = play(HandStarted("guangdong", 0), random.Random(2))
    assert state.phase is Phase.DONE
    assert isinstance(apply(state, PassRest()), Rejection)
    rng = random.Random(2)
    state = RoundState(HandStarted("guangdong", 0))
    while state.phase is not Phase.TURN:
        action = table_action(state, rng)
        assert action is not None
        for e in apply(state, action):  # type: ignore[union-attr]
            evolve(state, e)
    refused = apply(state, PassRest())
    assert isinstance(refused, Rejection) and refused.code == "wrong_phase"


def test_passing_a_tile_records_it_until_the_next_draw() -> None:
    def each(state: RoundState, action: Action, events: list[Event]) -> None:
        for e in events:
            if isinstance(e, ClaimsResolved) and state.phase is Phase.DRAW:
                for seat in e.passed:
                    if seat != state.turn:
                        assert kind_of(e.tile) in state.passed_kinds[seat]
            if isinstance(e, Drew):
                assert not state.passed_kinds[e.seat]

    rng = random.Random(12)
    for n in range(10):
        play(HandStarted("guangdong", n % 4), rng, each=each)


def test_public_view_shows_the_table_not_the_hands() -> None:
    seen: list[dict[str, object]] = []

    def each(state: RoundState, action: Action, events: list[Event]) -> None:
        seen.append(public_view(state))

    _, log = play(HandStarted("lianhua", 0), random.Random(21), each=each)
    flip = next(e for e in log if isinstance(e, JingFlipped))
    assert flip.under_tile is not None
    during = [v for v in seen if "settlement" not in v]
    assert during and "settlement" in seen[-1]
    text = json.dumps(during, ensure_ascii=False)
    assert '"hands"' not in text and "under" not in text and "order" not in text
    view = during[-1]
    assert view["jing"] == {
        "zheng": kind_name(kind_of(flip.tile)),
        "fu": kind_name(successor(kind_of(flip.tile))),
    }
    seats = view["seats"]
    assert isinstance(seats, list)
    assert sum(s["tiles"] for s in seats) in range(40, 56)  # counts, never the tiles
