"""The house rules' options in words: every value of an option that takes one of several
(``CHOICES``, Chinese and English, a test keeps one for every value of every preset), and
the engine's refusals of a house ruleset as a whole (``controller.house.options``): its own
section of the catalogue, read with ``MESSAGES``."""

from __future__ import annotations

# Each option's values (engine/rulesets: preset.py, engine/wall.py, jing.py, chongji.py), as
# an owner says them: {option: {value: (zh, en)}}; None is "the procedure's own".
CHOICES: dict[str, dict[str | None, tuple[str, str]]] = {
    "table.dice": {
        "two_rolls_total_left": (
            "庄家掷骰定墙，墙主再掷，两次点数之和为留下的墩数",
            "the dealer's roll picks a wall, its owner rolls again: both sums, stacks left",
        ),
        "two_rolls_second_sum": (
            "庄家掷骰定墙，墙主再掷，第二次点数数到那一墩起摸",
            "the dealer's roll picks a wall, its owner rolls again: the second sum, at that stack",
        ),
        "high_die_seat_low_die_plus_one": (
            "大点定墙，小点加一数墩",
            "the larger die picks the wall, the smaller + 1 counts stacks",
        ),
        "sum_seat_low_die_plus_one": (
            "点数和定墙，小点加一为开牌墩",
            "the sum picks the wall, the smaller die + 1 is the stack it opens at",
        ),
        "sum_seat_sum_stacks": (
            "点数和定墙，也数墩，其后起摸",
            "the sum picks the wall and counts stacks, drawing after them",
        ),
    },
    "table.start": {
        None: ("按掷骰方法", "as the dice procedure says"),
        "at": ("从所数之墩起摸", "at the counted stack"),
        "after": ("从所数之墩之后起摸", "after the counted stack"),
    },
    "table.jump": {
        "tiles_1_3": ("拿其后第 1 张和第 3 张", "the 1st and the 3rd tile after"),
        "tops_of_stacks_1_3": (
            "隔一墩拿上层两张（第 1、3 墩的上层）",
            "the tops of the 1st and the 3rd stack",
        ),
    },
    "table.multiple_winners": {
        "all": ("都算胡", "all of them win"),
        "nearest": ("点炮后最近的一家胡", "the nearest after the discarder wins"),
        "largest": ("胡得最大的一家胡", "the largest hand wins"),
        "protected_first": ("保护牌型先胡，再按远近", "protected hands first, then the nearest"),
    },
    "extras.exhausted": {
        "void": ("不计分", "nothing settles"),
        "settle_jing": ("只算精分", "only the 精 settle"),
        "settle_all_but_win": ("除胡分外都算", "everything but the win settles"),
    },
    "score.system": {
        "long": ("龙数（1 龙 1 分）", "龙 (1 龙, 1 point)"),
        "points": ("点数制（底点加每龙点数）", "the points system (a base plus points a 龙)"),
    },
    "pay.exhausted_dealer": {
        "stays": ("连庄", "the dealer stays"),
        "next": ("下家坐庄", "the next seat deals"),
    },
}

# table.multiple_winners's values, as the refusals below say them
CLAIM_ORDERS: dict[str, str] = {
    str(value): zh for value, (zh, _en) in CHOICES["table.multiple_winners"].items()
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
