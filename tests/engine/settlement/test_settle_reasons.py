"""A settlement line's reason names each label once.

A reason must not say a thing twice where two parts of a ruleset both name it, e.g. "平胡 杠上花
杠上花 2×2" (the multiplier and the payment word), "杠爆 杠爆 自摸", "三元 三元", "自摸 … 自摸",
"庄 4×2 + 庄 4×2 + 庄 4×2". The labels of a reason are its words with the arithmetic
(digits, ×, +, ÷, brackets) taken out; none may repeat, over many random settlements of
every ruleset, 天胡/地胡 included.
"""

from __future__ import annotations

import random
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.settlement import SettleInputError
from tests.engine.random_hands import random_request
from tests.engine.settle_helpers import settle

ARITHMETIC = re.compile(r"[0-9×+÷()=.\-/]+")
WILD = {"xingguo", "nanchang", "jian", "yongfeng", "lianhua", "chongji"}


def labels(reason: str) -> list[str]:
    return [w for w in (ARITHMETIC.sub("", t) for t in reason.split()) if w]


def with_fixed_flags(req: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Mark some wins 天胡/地胡 where they could have happened."""
    win = req["win"]
    if isinstance(win, list) or rng.random() < 0.5:
        return req
    if win["seat"] == req["dealer"] and win["from"] == "self":
        win["tian"] = True
    elif win["seat"] != req["dealer"] and win["from"] in ("self", req["dealer"]):
        win["di"] = True
    return req


def test_labels_leave_out_the_arithmetic() -> None:
    assert labels("德国 平胡 自摸 庄 4×2+5") == ["德国", "平胡", "自摸", "庄"]
    assert labels("平胡 抢杠 包三家 3×(庄 4×2)") == ["平胡", "抢杠", "包三家", "庄"]


@settings(max_examples=400, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    ruleset=st.sampled_from(
        ["xingguo", "nanchang", "jian", "yongfeng", "lianhua", "yichun", "chongji", "guangdong"]
    ),
)
def test_no_reason_repeats_a_label(seed: int, ruleset: str) -> None:
    req = random_request(
        seed,
        ruleset,
        wildcards=ruleset in WILD,
        max_claims=2 if ruleset == "chongji" else 4,
        seven_pairs=ruleset != "guangdong",
    )
    req = with_fixed_flags(req, random.Random(seed))
    try:
        settlement = settle(req)
    except SettleInputError:
        return  # a ruleset's own refusal (e.g. chongji's claim limit): no reasons to read
    for line in settlement.lines:
        words = labels(line.reason)
        assert len(words) == len(set(words)), line.reason
