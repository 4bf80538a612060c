"""Requests that cannot have happened are refused, the field named.

The checks live in the settlement-request model (``engine.settlement``) and in
``Ruleset.check``, so the CLI, the round and anything else that settles share them.
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from engine.hand import Shape
from engine.rulesets import PresetError, builtin_ids, builtin_preset_text, load_ruleset
from engine.rulesets.registry import FAMILIES, ruleset_from_data
from engine.settlement import SettleInputError, parse_finished_hand
from tests.engine.settle_helpers import D, seats_with, settle
from tests.engine.settle_helpers import request as settle_request

PINGHU_DEGUO = "123p 456p 789s 123s 5s 5s"
ROBBABLE = "123p 456p 789s 99s 34s 5s"  # holds one 5s: the fourth, taken off a kong
JING_RULESETS = ["xingguo", "nanchang", "jian", "yongfeng", "lianhua"]


def request(
    winner: int,
    frm: int | str,
    flags: dict[str, bool] | None = None,
    hand: str = PINGHU_DEGUO,
    melds: dict[int, list[dict[str, Any]]] | None = None,
    ruleset: str = "xingguo",
) -> dict[str, Any]:
    return settle_request(ruleset, winner, hand, "5s", frm, flags=flags, melds=melds)


def refused(req: dict[str, Any]) -> str:
    with pytest.raises(SettleInputError) as err:
        settle(req)
    return str(err.value)


@pytest.mark.parametrize(
    ("case", "req", "field"),
    [
        ("天胡 for a non-dealer", request(1, "self", {"tian": True}), "win.tian"),
        ("天胡 on a discard", request(D, 2, {"tian": True}), "win.tian"),
        ("地胡 for the dealer", request(D, "self", {"di": True}), "win.di"),
        ("天胡 and 地胡 together", request(1, "self", {"tian": True, "di": True}), "win.di"),
        ("地胡 on a non-dealer's discard", request(1, 2, {"di": True}), "win.di"),
        ("地胡 on a kong replacement", request(1, "rob_kong:2", {"di": True}), "win.di"),
        ("抢杠 of a seat with no pung", request(1, "rob_kong:3", hand=ROBBABLE), "win.from"),
        ("杠上花 without a kong", request(1, "kong_replacement"), "win.from"),
        (
            "a meld claimed from its own seat",
            request(1, "self", melds={2: [{"type": "pung", "tiles": "EEE", "from": 2}]}),
            "seats[2].melds[0].from",
        ),
        (
            "a chow not from the 上家",
            request(1, "self", melds={2: [{"type": "chow", "tiles": "789m", "from": 3}]}),
            "seats[2].melds[0].from",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and " " in v else "",
)
def test_impossible_requests_are_refused(case: str, req: dict[str, Any], field: str) -> None:
    assert refused(req).startswith(field + ":"), case


def test_the_same_requests_made_possible_settle() -> None:
    """The refusals are exact: the possible neighbours of each case still settle."""
    settle(request(D, "self", {"tian": True}))
    settle(request(1, "self", {"di": True}))
    settle(request(1, D, {"di": True}))
    robbed = {3: [{"type": "pung", "tiles": "555s", "from": 2}]}
    settle(request(1, "rob_kong:3", hand=ROBBABLE, melds=robbed))
    chow = {2: [{"type": "chow", "tiles": "789m", "from": 1}]}
    settle(request(1, "self", melds=chow))


def test_the_model_refuses_before_any_ruleset() -> None:
    """parse_finished_hand alone (what the CLI reads) already refuses them."""
    with pytest.raises(SettleInputError, match=r"^win\.tian:"):
        parse_finished_hand(request(1, "self", {"tian": True}))


def test_several_winners_name_the_one_at_fault() -> None:
    req = request(1, 2, {"di": True})
    req["win"] = [{"seat": 1, "tile": "5s", "from": D}, {**req["win"], "seat": 3, "from": D}]
    req["seats"] = seats_with({1: PINGHU_DEGUO, 3: "789p 789p 999s EEE 5s 5s"})
    req["win"][1]["di"] = True
    req["win"][1]["tian"] = True
    assert refused(req).startswith("win[1].di:")


@pytest.mark.parametrize("ruleset", [*JING_RULESETS, "chongji"])
def test_a_wildcard_ruleset_needs_the_indicator(ruleset: str) -> None:
    """Without it a jing hand settled as 诈胡 with no wildcards at all."""
    req = request(1, "self", ruleset=ruleset)
    del req["indicator"]
    assert refused(req).startswith("indicator:")


# --- presets: a shape the family has no price for --------------------------------------


def unpriced() -> list[tuple[str, str]]:
    out = []
    for family, (model, _) in FAMILIES.items():
        ruleset_id = next(r for r in builtin_ids() if load_ruleset(r).preset.family == family)
        out += [(ruleset_id, s.value) for s in Shape if s not in model.priced_shapes]
    return out


@pytest.mark.parametrize(("ruleset_id", "shape"), unpriced())
def test_a_preset_cannot_enable_a_shape_its_ruleset_cannot_price(
    ruleset_id: str, shape: str
) -> None:
    data = tomllib.loads(builtin_preset_text(ruleset_id))
    data["shapes"][shape] = True
    with pytest.raises(PresetError, match=rf"^shapes\.{shape}:"):
        ruleset_from_data(data)
    with pytest.raises(PresetError, match=rf"^options: shapes\.{shape}:"):
        load_ruleset(ruleset_id, {f"shapes.{shape}": True})


def test_every_family_prices_its_builtin_shapes() -> None:
    assert Shape.JIULIAN not in FAMILIES["jing"][0].priced_shapes
    for ruleset_id in builtin_ids():
        load_ruleset(ruleset_id)  # no built-in preset is refused
