"""The vocabulary of a hand: melds, the groups of a winning reading, and shape options.

These types are shared by the analysis (``engine.analysis``), the rulesets and the
settlement. They hold kinds (0–33, see ``engine.tiles``), never physical tiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from engine.errors import EngineError
from engine.tiles import format_kinds


class MeldError(EngineError, ValueError):
    """Tiles that do not make the meld named (three tiles for a kong, a chow not in a run)."""


class MeldType(StrEnum):
    CHOW = "chow"
    PUNG = "pung"
    KONG_EXPOSED = "kong_exposed"  # 明杠 on another's discard
    KONG_CONCEALED = "kong_concealed"  # 暗杠
    KONG_ADDED = "kong_added"  # 补杠 / 碰杠: the fourth tile added to an exposed pung

    @property
    def is_kong(self) -> bool:
        return self in (MeldType.KONG_EXPOSED, MeldType.KONG_CONCEALED, MeldType.KONG_ADDED)

    @property
    def is_open(self) -> bool:
        """Breaks 门清: everything but a concealed kong."""
        return self is not MeldType.KONG_CONCEALED


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set. Its tiles are natural kinds: a jing is never a wildcard in a meld."""

    type: MeldType
    kinds: tuple[int, ...]
    from_seat: int | None = None  # who gave the claimed tile; None for concealed kongs
    claimed: int | None = None  # the kind taken from ``from_seat`` (matters for a chow)

    def __post_init__(self) -> None:
        expected = 4 if self.type.is_kong else 3
        if len(self.kinds) != expected:
            raise MeldError(f"a {self.type.value} holds {expected} tiles, got {len(self.kinds)}")
        ks = sorted(self.kinds)
        if self.type is MeldType.CHOW:
            if ks[0] >= 27 or ks[0] // 9 != ks[2] // 9 or ks != [ks[0], ks[0] + 1, ks[0] + 2]:
                raise MeldError(f"not a chow: {format_kinds(self.kinds)}")
        elif len(set(ks)) != 1:
            raise MeldError(f"not a {self.type.value}: {format_kinds(self.kinds)}")

    def __str__(self) -> str:
        return f"{self.type.value} {format_kinds(self.kinds)}"


class GroupType(StrEnum):
    CHOW = "chow"  # 顺子
    PUNG = "pung"  # 刻子
    KONG = "kong"  # a declared kong (always from a meld)
    HONOR_SET = "honor_set"  # three different winds, or 中发白 (rulesets with honor sets)
    PAIR = "pair"
    SINGLE = "single"  # one tile of 十三烂 / 十三幺-style shapes, or of a no-shape win


@dataclass(frozen=True, slots=True)
class Group:
    """One group of a reading, written as the kinds it stands for.

    ``wild[i]`` is true where that position is filled by a wildcard tile. A group made only
    of wildcards stands for a pung (or pair) of one of the wildcard kinds, so that the
    wildcards used as themselves are not counted as used.
    """

    type: GroupType
    kinds: tuple[int, ...]
    wild: tuple[bool, ...]
    melded: bool = False  # from a declared meld (exposed, or a concealed kong)

    @property
    def wildcards(self) -> int:
        return sum(self.wild)

    def notation(self) -> str:
        """``123m``; positions filled by a wildcard are marked with ``*`` after the tile."""
        parts: list[str] = []
        for k, w in zip(self.kinds, self.wild, strict=True):
            parts.append(format_kinds([k]) + ("*" if w else ""))
        # merge suit letters for compactness: 1m2m3m -> 123m (only when no wildcard marks)
        if not any(self.wild) and all(k < 27 for k in self.kinds):
            return format_kinds(self.kinds)
        return "".join(parts)


class Shape(StrEnum):
    PINGHU = "pinghu"  # four sets + a pair
    XIAOQI = "xiaoqi"  # seven pairs
    DAQI = "daqi"  # four pungs/kongs + a pair
    SHISANLAN = "shisanlan"  # 十三烂
    QIXING_SHISANLAN = "qixing_shisanlan"  # 七星十三烂
    SHISANYAO = "shisanyao"  # 十三幺
    JIULIAN = "jiulian"  # 九莲宝灯
    QUANFENG = "quanfeng"  # all honors, no shape needed (chongji 全风向, yichun 字一色)
    SICAISHEN = "sicaishen"  # four 财神, no shape needed
    GANGDA = "gangda"  # chongji 一杠一达 …: k kongs, 7 − 2k pairs and k loose tiles


@dataclass(frozen=True, slots=True)
class ShapeOptions:
    """What the analysis may count as a win; each ruleset builds one from its preset."""

    honor_sets: bool = False  # 东南西 / 中发白 as sets (concealed only)
    shapes: frozenset[Shape] = frozenset({Shape.PINGHU, Shape.XIAOQI, Shape.DAQI})
    fifth_copy: bool = True  # a wildcard may stand for a fifth copy of a kind
    wild_in_shisanlan: bool = True  # a wildcard may fill a missing tile of 十三烂
    wild_for_qixing_honor: bool = True  # ... and a missing honor of 七星十三烂


@dataclass(frozen=True, slots=True)
class Reading:
    """One way a hand wins.

    ``groups`` hold every group of the hand, concealed and melded, the pair included
    (``pair`` repeats it for convenience). ``wildcards_used`` counts wildcard tiles that
    stand for another kind — a jing standing for itself is not used (精还原), so a reading
    with 0 is 德国 when the hand has wildcard kinds at all.
    """

    shape: Shape
    groups: tuple[Group, ...]
    pair: Group | None
    wildcards_used: int
    deguo: bool
    jingdiao: bool
    winning_kind: int | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def sets(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.type not in (GroupType.PAIR,))
