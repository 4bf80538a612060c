"""is_win: does a hand win under any allowed shape? The hot path of the engine."""

from __future__ import annotations

from collections.abc import Sequence

from engine.analysis.special import (
    gangda_kongs,
    gangda_need,
    jiulian_target,
    quanfeng_win,
    shisanlan_win,
    shisanyao_win,
    sicaishen_win,
    xiaoqi_win,
)
from engine.analysis.standard import pung_only_need, section_tables, standard_need
from engine.hand import Meld, Shape, ShapeOptions

DEFAULT_OPTIONS = ShapeOptions()
_NO_WILD: frozenset[int] = frozenset()
_DEFAULT_TABLES = section_tables(DEFAULT_OPTIONS, ())
_STANDARD_ONLY = frozenset({Shape.PINGHU, Shape.DAQI})


def split_wild(counts: Sequence[int], wild: frozenset[int]) -> tuple[list[int], int]:
    """Natural counts (wild kinds zeroed) and the number of wild tiles."""
    nat = list(counts)
    w = 0
    for k in wild:
        w += nat[k]
        nat[k] = 0
    return nat, w


class _Plan:
    """What is_win does for one ShapeOptions, worked out once per options object."""

    __slots__ = ("daqi_only", "free", "honors", "pinghu", "special", "suits")

    def __init__(self, options: ShapeOptions) -> None:
        shapes = options.shapes
        self.pinghu = Shape.PINGHU in shapes
        self.daqi_only = not self.pinghu and Shape.DAQI in shapes
        self.special = not shapes <= _STANDARD_ONLY
        # tables usable whatever the melds (fifth copies allowed: no per-kind limit)
        self.free = options.fifth_copy
        tables = section_tables(options, ())
        self.suits = tables[0].table
        self.honors = tables[3].table


_PLANS: dict[int, tuple[ShapeOptions, _Plan]] = {}


def _plan(options: ShapeOptions) -> _Plan:
    hit = _PLANS.get(id(options))
    if hit is None or hit[0] is not options:
        if len(_PLANS) > 64:
            _PLANS.clear()
        hit = _PLANS[id(options)] = (options, _Plan(options))
    return hit[1]


def is_win(
    counts: Sequence[int],
    wild: frozenset[int] = _NO_WILD,
    options: ShapeOptions = DEFAULT_OPTIONS,
    melds: Sequence[Meld] = (),
) -> bool:
    """True if the concealed ``counts`` (14 − 3·melds tiles) plus ``melds`` form a win."""
    if sum(counts) + 3 * len(melds) != 14:
        return False
    plan = _plan(options)
    nat: Sequence[int]
    if wild:
        nat, w = split_wild(counts, wild)
        b = bytes(nat)
    else:
        nat, w = counts, 0
        b = bytes(counts)
    if plan.pinghu:
        if plan.free:
            # inlined standard_need on the shared tables: this is the hot path
            st = plan.suits
            ht = plan.honors
            k = b[0:9]
            x = st.get(k) or _fill_suit(k)
            k = b[9:18]
            y = st.get(k) or _fill_suit(k)
            k = b[18:27]
            z = st.get(k) or _fill_suit(k)
            k = b[27:34]
            h = ht.get(k) or _fill_honor(k, options)
            n0 = x[0] + y[0] + z[0] + h[0]
            if n0 + min(2, x[1] - x[0], y[1] - y[0], z[1] - z[0], h[1] - h[0]) <= w:
                return True
        elif standard_need(b, section_tables(options, melds)) <= w:
            return True
    elif plan.daqi_only and pung_only_need(nat, options, melds) <= w:
        return True
    if not plan.special:
        return False
    return special_win(counts, nat, w, wild, options, melds)


def _fill_suit(k: bytes) -> tuple[int, int]:
    return _DEFAULT_TABLES[0].fill(k)


def _fill_honor(k: bytes, options: ShapeOptions) -> tuple[int, int]:
    return section_tables(options, ())[3].fill(k)


# shapes as plain module names: ``Shape.X`` is an attribute lookup on the enum class,
# slow on Python 3.11, and special_win reads several on every call
_GANGDA, _JIULIAN, _QIXING_SHISANLAN, _QUANFENG, _SHISANLAN, _SHISANYAO, _SICAISHEN, _XIAOQI = (
    Shape.GANGDA,
    Shape.JIULIAN,
    Shape.QIXING_SHISANLAN,
    Shape.QUANFENG,
    Shape.SHISANLAN,
    Shape.SHISANYAO,
    Shape.SICAISHEN,
    Shape.XIAOQI,
)


def special_win(
    counts: Sequence[int],
    nat: Sequence[int],
    w: int,
    wild: frozenset[int],
    options: ShapeOptions,
    melds: Sequence[Meld],
) -> bool:
    shapes = options.shapes
    if _SICAISHEN in shapes and sicaishen_win(counts, wild):
        return True
    if _QUANFENG in shapes and quanfeng_win(nat, all(m.kinds[0] >= 27 for m in melds)):
        return True
    if melds:
        kongs = _GANGDA in shapes and gangda_kongs(melds)
        return bool(kongs) and gangda_need(nat, w, kongs) <= 0
    if _XIAOQI in shapes and xiaoqi_win(nat, w):
        return True
    # 十三烂 holds no two of a kind: not as naturals, nor (counts >= nat) with the jing as
    # themselves; most hands asked about have a pair
    if (_SHISANLAN in shapes or _QIXING_SHISANLAN in shapes) and max(nat) <= 1:
        if _SHISANLAN in shapes and shisanlan_win(counts, nat, w, wild, options, False):
            return True
        if _QIXING_SHISANLAN in shapes and shisanlan_win(counts, nat, w, wild, options, True):
            return True
    if _SHISANYAO in shapes and shisanyao_win(nat):
        return True
    return _JIULIAN in shapes and jiulian_target(nat, w, {}, None) is not None
