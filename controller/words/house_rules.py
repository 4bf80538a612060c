"""The engine's refusals of a house ruleset as a whole (``controller.house.options``), in
words: its own section of the catalogue, read with ``MESSAGES``."""

from __future__ import annotations

# table.multiple_winners's values (engine/rulesets/winsettle.py), as an owner says them
CLAIM_ORDERS: dict[str, str] = {
    "all": "都算胡",
    "nearest": "点炮后最近的一家胡",
    "largest": "胡得最大的一家胡",
    "protected_first": "保护牌型先胡，再按远近",
}

# (pattern, zh), as ``MESSAGES``: ``family`` a family of rulesets, ``choice`` / ``choices``
# values of table.multiple_winners (said by CLAIM_ORDERS)
HOUSE_MESSAGES: list[tuple[str, str]] = [
    (
        r"(?:options: )?shapes\.\w+: the (?P<family>\w+) family has no price for this shape "
        r"\(it would pay as something else\); leave it false",
        "这一类规则没有这种胡法的算分（开了会按别的胡法算）：请设为「否」",
    ),
    (
        r"(?:options: )?table\.multiple_winners: the (?P<family>\w+) family cannot apply "
        r"'(?P<choice>\w+)'; one of (?P<choices>[\w, ]+)",
        "这一类规则不能「{choice}」：可选 {choices}",
    ),
]
