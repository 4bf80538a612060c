"""``Ruleset.win_stands`` (what the bots ask) agrees with ``win_refusal`` (what the table
says), also where a ruleset decides it without reading the hand (xingguo's 有精平胡)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.rulesets import load_ruleset
from engine.settlement import FinishedHand, SeatEnd, Win, parse_finished_hand
from engine.settlement.finished_hand import WinSource
from tests.engine.random_hands import random_request

JING = ["xingguo", "nanchang", "jian", "yongfeng", "lianhua"]


def variants(hand: FinishedHand, rng: random.Random) -> list[tuple[FinishedHand, Win]]:
    """Each win as dealt and off a discard, with its hand and with one tile changed."""
    out = []
    for win in hand.wins:
        seat = hand.seats[win.seat]
        changed = list(seat.concealed)
        i = rng.randrange(len(changed))
        if changed[i] != win.tile:
            changed[i] = rng.randrange(34)
        for concealed in (seat.concealed, tuple(changed)):
            seats = list(hand.seats)
            seats[win.seat] = SeatEnd(concealed, seat.melds, seat.discards)
            discard = replace(win, source=WinSource.DISCARD, discarder=(win.seat + 1) % 4)
            for w in (win, discard):
                out.append((replace(hand, seats=tuple(seats), wins=(w,)), w))
    return out


@pytest.mark.parametrize("ruleset_id", JING)
def test_win_stands_agrees_with_win_refusal(ruleset_id: str) -> None:
    ruleset = load_ruleset(ruleset_id)
    rng = random.Random(ruleset_id)
    checked = refused = 0
    for seed in range(300):
        hand = parse_finished_hand(random_request(seed, ruleset_id, wildcards=True))
        for h, w in variants(hand, rng):
            no = ruleset.win_refusal(h, w) is not None
            assert ruleset.win_stands(h, w) is not no, (h, w)
            checked += 1
            refused += no
    assert checked > 1000 and refused > 100
