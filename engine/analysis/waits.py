"""waits: the kinds that complete a 13-tile hand.

Only the section that receives the candidate changes, so the other sections' table values
are computed once and each candidate costs one table lookup.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.analysis.special import ODD, ORPHANS, gangda_kongs
from engine.analysis.standard import meld_counts, section_tables
from engine.analysis.win import DEFAULT_OPTIONS, is_win, special_win, split_wild
from engine.hand import Meld, Shape, ShapeOptions
from engine.tiles import counts_of

_STANDARD = frozenset({Shape.PINGHU, Shape.DAQI, Shape.XIAOQI})  # handled without a loop
_WITH_XIAOQI = _STANDARD
_OFFSETS = (0, 9, 18, 27)


def waits(
    concealed13: Sequence[int],
    melds: Sequence[Meld] = (),
    wild: frozenset[int] = frozenset(),
    options: ShapeOptions = DEFAULT_OPTIONS,
) -> list[int]:
    """Sorted kinds whose addition makes the hand win.

    A kind the hand already holds four of (concealed and melded) cannot be drawn, so it is
    never a wait, even for a hand that would win on anything (a lone 精).
    """
    if len(concealed13) + 3 * len(melds) != 13:
        return []
    counts = counts_of(concealed13)
    held = counts
    if melds:
        mc = meld_counts(melds)
        held = [a + b for a, b in zip(counts, mc, strict=True)]
    nat, w = split_wild(counts, wild)
    shapes = options.shapes
    won: set[int] = set()
    if Shape.PINGHU in shapes:
        _standard_waits(nat, w, wild, options, melds, won)
    elif Shape.DAQI in shapes:
        for k in range(34):
            counts[k] += 1
            if is_win(counts, wild, options, melds):
                won.add(k)
            counts[k] -= 1
    if Shape.XIAOQI in shapes and not melds:
        # a natural k pairs a single (or makes one); a wildcard is one more free tile
        singles = sum(bytes(nat).translate(ODD))
        if singles - 1 <= w:
            won.update(k for k in range(34) if nat[k] & 1 and k not in wild)
        if singles + 1 <= w:
            won.update(k for k in range(34) if not nat[k] & 1 and k not in wild)
        if singles <= w + 1:
            won.update(wild)
    if not shapes <= _STANDARD:
        for k in _special_candidates(counts, nat, w, wild, options, melds):
            if k in won:
                continue
            counts[k] += 1
            nat2, w2 = split_wild(counts, wild)
            if special_win(counts, nat2, w2, wild, options, melds):
                won.add(k)
            counts[k] -= 1
    return sorted(k for k in won if held[k] < 4)


def _standard_waits(
    nat: list[int],
    w: int,
    wild: frozenset[int],
    options: ShapeOptions,
    melds: Sequence[Meld],
    won: set[int],
) -> None:
    tables = section_tables(options, melds)
    b = bytes(nat)
    keys = [b[0:9], b[9:18], b[18:27], b[27:34]]
    vals = [tables[j].get(keys[j]) for j in range(4)]
    n0 = vals[0][0] + vals[1][0] + vals[2][0] + vals[3][0]
    deltas = [v[1] - v[0] for v in vals]
    # a wildcard drawn: the naturals stay, one more free tile
    if wild and n0 + min(2, *deltas) <= w + 1:
        won.update(wild)
    for j in range(4):
        others0 = n0 - vals[j][0]
        other_min = min([2] + [deltas[i] for i in range(4) if i != j])
        # the new section contributes min(n0', n1' - n0' + ...) >= min(other_min, 0)
        if others0 + min(other_min, 0) > w:
            continue
        off = _OFFSETS[j]
        room = w - others0
        for i, (n0p, n1p) in enumerate(tables[j].get_plus(keys[j])):
            d = n1p - n0p
            if n0p + (d if d < other_min else other_min) <= room:
                kind = off + i
                if kind not in wild:
                    won.add(kind)


def _special_candidates(
    counts: Sequence[int],
    nat: Sequence[int],
    w: int,
    wild: frozenset[int],
    options: ShapeOptions,
    melds: Sequence[Meld],
) -> set[int]:
    """Kinds worth a full special-shape test (cheap filters per shape)."""
    shapes = options.shapes
    cands: set[int] = set(wild) if shapes - _WITH_XIAOQI else set()
    if Shape.SICAISHEN in shapes and any(counts[k] >= 4 for k in wild):
        cands.update(range(34))  # four 财神 in hand: anything drawn wins
    if Shape.QUANFENG in shapes and not any(nat[0:27]):
        cands.update(range(27, 34))
    if melds:
        if Shape.GANGDA in shapes and gangda_kongs(melds):
            cands.update(range(34))  # any kind may be the last loose tile or pair one
        return cands
    lan = (Shape.SHISANLAN, Shape.QIXING_SHISANLAN)
    if any(s in shapes for s in lan) and max(nat) <= 1:
        cands.update(k for k in range(34) if not nat[k])
    if Shape.SHISANYAO in shapes and all(nat[k] == 0 for k in range(34) if k not in ORPHANS):
        cands.update(ORPHANS)
    if Shape.JIULIAN in shapes:
        suits = {k // 9 for k in range(34) if nat[k]}
        if len(suits) == 1 and 3 not in suits:
            s = suits.pop()
            cands.update(range(s * 9, s * 9 + 9))
    return cands
