"""is_win: does a hand win under any allowed shape? The hot path of the engine."""

from __future__ import annotations

from collections.abc import Sequence

from engine.analysis.special import (
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


def is_win(
    counts: Sequence[int],
    wild: frozenset[int] = _NO_WILD,
    options: ShapeOptions = DEFAULT_OPTIONS,
    melds: Sequence[Meld] = (),
) -> bool:
    """True if the concealed ``counts`` (14 − 3·melds tiles) plus ``melds`` form a win."""
    if sum(counts) + 3 * len(melds) != 14:
        return False
    if wild:
        nat, w = split_wild(counts, wild)
        b = bytes(nat)
    else:
        nat, w = list(counts), 0
        b = bytes(counts)
    shapes = options.shapes
    if Shape.PINGHU in shapes:
        tables = (
            _DEFAULT_TABLES
            if options.fifth_copy and not options.honor_sets
            else section_tables(options, melds)
        )
        if standard_need(b, tables) <= w:
            return True
    elif Shape.DAQI in shapes and pung_only_need(nat, options, melds) <= w:
        return True
    if shapes is _STANDARD_ONLY or shapes <= _STANDARD_ONLY:
        return False
    return special_win(counts, nat, w, wild, options, melds)


def special_win(
    counts: Sequence[int],
    nat: Sequence[int],
    w: int,
    wild: frozenset[int],
    options: ShapeOptions,
    melds: Sequence[Meld],
) -> bool:
    shapes = options.shapes
    if Shape.SICAISHEN in shapes and sicaishen_win(counts, wild):
        return True
    if Shape.QUANFENG in shapes and quanfeng_win(nat, all(m.kinds[0] >= 27 for m in melds)):
        return True
    if melds:
        return False
    if Shape.XIAOQI in shapes and xiaoqi_win(nat, w):
        return True
    if Shape.SHISANLAN in shapes and shisanlan_win(counts, nat, w, wild, options, False):
        return True
    if Shape.QIXING_SHISANLAN in shapes and shisanlan_win(counts, nat, w, wild, options, True):
        return True
    if Shape.SHISANYAO in shapes and shisanyao_win(nat):
        return True
    return Shape.JIULIAN in shapes and jiulian_target(nat, w, {}, None) is not None
