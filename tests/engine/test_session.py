"""Sessions: the deal passes on as each settlement says, totals add up, hands are numbered."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.session import Session
from engine.settlement import Settlement
from engine.settlement.ledger import Line
from engine.simulation import play_session
from engine.tiles import EAST, SOUTH


def test_record_moves_the_deal_and_adds_the_nets() -> None:
    s = Session("guangdong", first_dealer=2)
    assert s.next_hand().dealer == 2 and s.next_hand().hand_no == 1
    s.record(
        Settlement(
            lines=(Line("win", "鸡胡", 0, 3, 4),),
            next_dealer=3,
            dealer_streak=0,
            prevailing_wind=SOUTH,
        )
    )
    started = s.next_hand()
    assert (started.dealer, started.hand_no, started.prevailing_wind) == (3, 2, SOUTH)
    assert s.totals == [-4, 0, 0, 4]
    s.record(Settlement(lines=(), next_dealer=3, dealer_streak=1, void=True))
    assert s.next_hand().dealer_streak == 1 and s.prevailing_wind == SOUTH
    assert s.hand_no == 2


def test_a_session_keeps_nothing_of_its_hands() -> None:
    """A table's session runs for days: only what the next hand needs stays (the hands
    are in the store); a list of settlements grew the service ~0.1 MB per 100 hands."""
    s = Session("xingguo")
    settlement = Settlement(lines=(Line("win", "鸡胡", 0, 3, 4),), next_dealer=0, dealer_streak=1)

    def sizes() -> dict[str, int]:
        held = {n: getattr(s, n) for n in Session.__slots__}
        return {n: len(v) for n, v in held.items() if hasattr(v, "__len__")}

    s.record(settlement)
    first = sizes()
    for _ in range(30):
        s.record(settlement)
    assert sizes() == first


@pytest.mark.parametrize("ruleset", ["xingguo", "yichun", "chongji", "guangdong"])
def test_simulated_session_follows_its_settlements(ruleset: str) -> None:
    results = list(play_session(ruleset, 12, random.Random(f"session-{ruleset}")))
    totals = [0, 0, 0, 0]
    for before, after in itertools.pairwise(results):
        s = before.settlement
        started = after.state.started
        assert started.dealer == s.next_dealer
        assert started.dealer_streak == s.dealer_streak
        assert started.hand_no == before.state.started.hand_no + 1
        if s.prevailing_wind is not None:
            assert started.prevailing_wind == s.prevailing_wind
        else:
            assert started.prevailing_wind == EAST
    for r in results:
        totals = [a + b for a, b in zip(totals, r.settlement.net, strict=True)]
    assert sum(totals) == 0


def test_same_seed_same_session() -> None:
    a = [r.log for r in play_session("jian", 4, random.Random(99))]
    b = [r.log for r in play_session("jian", 4, random.Random(99))]
    assert a == b
