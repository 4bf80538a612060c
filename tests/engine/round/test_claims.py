"""Which meld claim on a discard stands (one rule for the round and the virtual players)."""

from __future__ import annotations

from engine.round.claims import standing_meld_claim


def test_pung_or_kong_beats_a_nearer_chow() -> None:
    assert standing_meld_claim(0, {1: "chow", 3: "pung"}) == 3
    assert standing_meld_claim(0, {1: "chow", 2: "kong"}) == 2


def test_kong_beats_pung() -> None:
    assert standing_meld_claim(1, {2: "pung", 3: "kong"}) == 3


def test_equal_claims_go_to_the_nearest_after_the_discarder() -> None:
    assert standing_meld_claim(2, {1: "pung", 0: "pung"}) == 0
    assert standing_meld_claim(3, {2: "chow", 0: "chow"}) == 0


def test_no_meld_claim() -> None:
    assert standing_meld_claim(0, {}) is None
    assert standing_meld_claim(0, {1: "win"}) is None
