"""The dealer card's instruction once a hand is over: the hand settled, the card says so
(never 对局中, the hand in play)."""

from __future__ import annotations

import random

from controller.table.dealer_guide import instruction
from controller.web.live import dealer_text
from engine.session import Session
from engine.simulation import play_hand


def test_the_dealer_card_says_the_hand_is_over_once_it_is_settled() -> None:
    state, _ = play_hand(Session("xingguo", {}).next_hand(), random.Random(7))
    assert state.finished
    said = instruction(state, "h1", None, None)
    assert said["step"] == "wait" and said["over"] is True
    words = dealer_text(said)
    assert words == {"zh": "本局已结束，等待下一局", "en": "Hand over: waiting for the next hand"}
