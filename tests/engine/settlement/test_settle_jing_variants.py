"""Variants other tables play, each a preset option whose default is the seed's rule: the
option validates (as ``mjtable rules check`` validates an owner's copy) and settles as the
variant says. Seat 0 deals; the indicator is 5m (正精 5m, 副精 6m)."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from engine.rulesets import builtin_preset_text
from engine.rulesets.jing import JingRuleset
from engine.rulesets.registry import ruleset_from_data
from tests.engine.settle_helpers import paid, seats_with, settle

D = 0
DEGUO = "123p 456p 789s 123s 5s 5s"  # 德国 平胡 on 5s
SHISANYAO = "19m 19p 19s E S W N C F P 1m"  # 十三幺, no jing: 德国


def win_request(
    ruleset: str, winner: int, hand: str, frm: int | str, options: dict[str, Any], **win: Any
) -> dict[str, Any]:
    return {
        "ruleset": ruleset,
        "dealer": D,
        "indicator": "5m",
        "an_indicator": "9p",
        "xia_indicator": "9p",
        "seats": seats_with({winner: hand, **win.pop("hands", {})}, melds=win.pop("melds", None)),
        "win": {"seat": winner, "tile": hand.split()[-1], "from": frm, **win},
        "options": options,
    }


def owner_copy(ruleset: str, section: str, values: dict[str, Any]) -> JingRuleset:
    """The built-in preset with ``values`` set in ``[section]``, written out and read back
    as an owner's edited file is by ``mjtable rules check``."""
    data = tomllib.loads(builtin_preset_text(ruleset))
    data[section].update(values)
    lines = "".join(f"{k} = {str(v).lower()}\n" for k, v in data[section].items())
    text = builtin_preset_text(ruleset).split(f"[{section}]\n")
    rest = text[1].split("\n[", 1)
    edited = f"{text[0]}[{section}]\n{lines}" + ("\n[" + rest[1] if len(rest) > 1 else "")
    ruleset_obj = ruleset_from_data(tomllib.loads(edited))
    assert isinstance(ruleset_obj, JingRuleset)
    return ruleset_obj


def test_every_variant_validates_in_an_owner_copy() -> None:
    variants = {
        "deguo_bonus_every_payer": True,
        "tianhu_alone": True,
        "qianggang": 1,
        "discarder_pays_all": True,
        "shisanyao": 8,
    }
    r = owner_copy("lianhua", "win", variants)
    w = r.preset.win
    assert (w.deguo_bonus_every_payer, w.tianhu_alone, w.qianggang) == (True, True, 1)
    assert (w.discarder_pays_all, w.shisanyao) == (True, 8)
    assert owner_copy("lianhua", "shapes", {"shisanyao": True}).preset.shapes.shisanyao


@pytest.mark.parametrize("ruleset", ["xingguo", "nanchang", "jian", "yongfeng", "lianhua"])
def test_variants_are_off_in_every_preset(ruleset: str) -> None:
    r = owner_copy(ruleset, "win", {})
    w = r.preset.win
    assert not (w.deguo_bonus_every_payer or w.tianhu_alone or w.discarder_pays_all)
    assert not r.preset.shapes.shisanyao


def test_deguo_bonus_from_every_payer() -> None:
    """Seed: 闲家点闲家德国平胡 4+9+2 (the +5 from the discarder only); the variant adds it
    to the two 陪付 shares: 4+5, 2+5."""
    assert paid(settle(win_request("xingguo", 1, DEGUO, 2, {})), "win") == {2: 9, 0: 4, 3: 2}
    every = win_request("xingguo", 1, DEGUO, 2, {"win.deguo_bonus_every_payer": True})
    assert paid(settle(every), "win") == {2: 9, 0: 9, 3: 7}


@pytest.mark.parametrize(
    ("ruleset", "hand", "seed_rule", "alone"),
    [
        ("xingguo", DEGUO, 45, 20),  # 德国 地胡 20×2+5, or the 20 alone
        ("jian", DEGUO, 69, 32),  # 德国地胡 每人69个, or the 32 alone
        ("nanchang", "123p 456p 789s 123s 6m 9p", 45, 40),  # 精吊 地胡 40 + 精吊's +5
    ],
)
def test_dihu_over_deguo(ruleset: str, hand: str, seed_rule: int, alone: int) -> None:
    di = win_request(ruleset, 1, hand, "self", {}, di=True)
    assert paid(settle(di), "win") == {0: seed_rule, 2: seed_rule, 3: seed_rule}
    di["options"] = {"win.tianhu_alone": True}
    s = settle(di)
    assert paid(s, "win") == {0: alone, 2: alone, 3: alone}
    assert all("德国" not in line.reason for line in s.lines if line.code.startswith("win"))


def test_rob_kong_without_doubling() -> None:
    """抢杠 ×2 is ``win.qianggang``; 1 leaves the win undoubled, still paid by the robbed."""
    melds = {3: [{"type": "pung", "tiles": "555s", "from": 2}]}
    hand = "123p 456p 789s 99s 34s 5s"
    req = win_request("xingguo", 1, hand, "rob_kong:3", {}, melds=melds)
    assert paid(settle(req), "win") == {3: (4 * 4 + 5) + 2 * (2 * 4 + 5)}
    req["options"] = {"win.qianggang": 1}
    assert paid(settle(req), "win") == {3: (4 * 2 + 5) + 2 * (2 * 2 + 5)}


@pytest.mark.parametrize(
    ("hand", "seed_rule", "variant"),
    [
        # no jing, a pair of 1m: no shape of the seed; 德国 十三幺 8×2, +5
        (SHISANYAO, None, {0: 4 * 16 + 5, 2: 2 * 16 + 5, 3: 2 * 16 + 5}),
        # one 副精 6m stands for 3m: 七星十三烂 (4) in the seed; as 1m and the pair: 十三幺 (8)
        ("9m 19p 19s E S W N C F P 6m 6m", {0: 16, 2: 8, 3: 8}, {0: 32, 2: 16, 3: 16}),
    ],
)
def test_lianhua_shisanyao_at_8(
    hand: str, seed_rule: dict[int, int] | None, variant: dict[int, int]
) -> None:
    req = win_request("lianhua", 1, hand, "self", {})
    if seed_rule is None:
        assert paid(settle(req), "false_win") == {1: 60}
    else:
        assert paid(settle(req), "win") == seed_rule
    req["options"] = {"shapes.shisanyao": True}
    s = settle(req)
    assert paid(s, "win") == variant
    assert all("十三幺" in line.reason for line in s.lines if line.code.startswith("win"))


def test_discarder_pays_for_all() -> None:
    """The discarder pays every share in full (as the robbed seat of a 抢杠 does):
    庄 4×2+5 + 2×(2×2+5)."""
    req = win_request("xingguo", 1, DEGUO, 2, {"win.discarder_pays_all": True})
    s = settle(req)
    assert paid(s, "win") == {2: 13 + 9 + 9}
    assert {line.code for line in s.lines if line.code.startswith("win")} == {"win.discard"}


def test_discarder_pays_for_all_of_a_dihu() -> None:
    req = win_request("xingguo", 1, DEGUO, D, {"win.discarder_pays_all": True}, di=True)
    assert paid(settle(req), "win") == {D: 3 * 45}
