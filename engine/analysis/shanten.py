"""shanten: tiles away from ready (−1 complete, 0 ready), the minimum over allowed shapes.

Wildcards count as free tiles. Standard shape: per section, the most natural tiles that fit
into g sets and p pairs (a memoised table), combined over the four sections; the tiles
still missing are drawn or filled by wildcards. Those counts know no limit per kind: where
a wildcard may not stand for a fifth copy (``fifth_copy`` off), a hand they call complete
is asked of ``is_win``, and one that only a fifth copy completes is counted ready.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.analysis.special import (
    JIULIAN,
    ORPHANS,
    gangda_kongs,
    gangda_need,
    lan_suited,
    qixing_need,
    qixing_real_honor_need,
    shisanlan_need,
    xiaoqi_need,
)
from engine.analysis.standard import honor_section
from engine.analysis.suit_tables import Section, usable
from engine.analysis.win import DEFAULT_OPTIONS, is_win, split_wild
from engine.hand import Meld, MeldType, Shape, ShapeOptions
from engine.tiles import counts_of

_NEG = -100


def _combine(a: Sequence[int], b: Sequence[int], sets: int) -> list[int]:
    out = [_NEG] * 10
    for g1 in range(sets + 1):
        for p1 in range(2):
            x = a[g1 * 2 + p1]
            if x < 0:
                continue
            for g2 in range(sets + 1 - g1):
                for p2 in range(2 - p1):
                    v = x + b[g2 * 2 + p2]
                    i = (g1 + g2) * 2 + p1 + p2
                    if v > out[i]:
                        out[i] = v
    return out


def _conv(
    a0: Sequence[int], a1: Sequence[int], b0: Sequence[int], b1: Sequence[int], sets: int
) -> tuple[list[int], list[int]]:
    """Max-plus convolution over the number of sets; index 1 arrays hold the pair."""
    out0 = [_NEG] * (sets + 1)
    out1 = [_NEG] * (sets + 1)
    for g1 in range(sets + 1):
        x0 = a0[g1]
        x1 = a1[g1]
        for g2 in range(sets + 1 - g1):
            y0 = b0[g2]
            g = g1 + g2
            v = x0 + y0
            if v > out0[g]:
                out0[g] = v
            v = x1 + y0
            w = x0 + b1[g2]
            if w > v:
                v = w
            if v > out1[g]:
                out1[g] = v
    return out0, out1


def _standard_keep(nat: Sequence[int], options: ShapeOptions, sets: int) -> int:
    b = bytes(nat)
    um = usable(Section.SUIT, b[0:9])
    up = usable(Section.SUIT, b[9:18])
    us = usable(Section.SUIT, b[18:27])
    uh = usable(honor_section(options), b[27:34])
    a0, a1 = _conv(um[0::2], um[1::2], up[0::2], up[1::2], sets)
    a0, a1 = _conv(a0, a1, us[0::2], us[1::2], sets)
    h0 = uh[0::2]
    h1 = uh[1::2]
    best = _NEG
    for g in range(sets + 1):
        r = sets - g
        v = max(a1[g] + h0[r], a0[g] + h1[r])
        if v > best:
            best = v
    return best


def _pung_keep(nat: Sequence[int], sets: int) -> int:
    # per kind: (sets, pair) -> naturals used; pungs and a pair only
    acc = [_NEG] * 10
    acc[0] = 0
    for c in nat:
        if not c:
            continue
        u = [_NEG] * 10
        u[0] = 0
        u[1] = min(c, 2)
        u[2] = min(c, 3)
        u[3] = min(c, 5)
        for g in range(2, 5):
            u[g * 2] = min(c, 3 * g)
            u[g * 2 + 1] = min(c, 3 * g + 2)
        acc = _combine(acc, u, sets)
    return max(acc[sets * 2], acc[sets * 2 + 1])


def shanten(
    concealed: Sequence[int],
    melds: Sequence[Meld] = (),
    wild: frozenset[int] = frozenset(),
    options: ShapeOptions = DEFAULT_OPTIONS,
) -> int:
    """−1 complete, 0 ready, n: n tile exchanges from ready. Accepts 13- or 14-tile hands."""
    counts = counts_of(concealed)
    target = 14 - 3 * len(melds)
    nat, w = split_wild(counts, wild)
    shapes = options.shapes
    needs: list[int] = []
    sets = 4 - len(melds)
    if Shape.PINGHU in shapes:
        needs.append(target - w - _standard_keep(nat, options, sets))
    elif Shape.DAQI in shapes and all(m.type is not MeldType.CHOW for m in melds):
        needs.append(target - w - _pung_keep(nat, sets))
    if Shape.SICAISHEN in shapes and wild:
        needs.append(4 - max(counts[k] for k in wild))
    if Shape.QUANFENG in shapes and all(m.kinds[0] >= 27 for m in melds):
        needs.append(target - w - sum(nat[27:34]))
    kongs = Shape.GANGDA in shapes and gangda_kongs(melds)
    if kongs:
        needs.append(gangda_need(nat, w, kongs))
    if not melds:
        needs.extend(_concealed_needs(counts, nat, w, wild, options))
    if not needs:
        return 99
    floor = -1 if len(concealed) == target else 0
    best = max(floor, min(needs) - 1)
    if best == -1 and not options.fifth_copy and not is_win(counts, wild, options, melds):
        return 0
    return best


def _concealed_needs(
    counts: Sequence[int],
    nat: Sequence[int],
    w: int,
    wild: frozenset[int],
    options: ShapeOptions,
) -> list[int]:
    shapes = options.shapes
    out: list[int] = []
    if Shape.XIAOQI in shapes:
        out.append(xiaoqi_need(w, sum(c >> 1 for c in nat), sum(c & 1 for c in nat)))
    want_q = Shape.QIXING_SHISANLAN in shapes
    if want_q or Shape.SHISANLAN in shapes:
        base, free = (nat, w) if options.wild_in_shisanlan else (counts, 0)
        m0, m1, m2 = (sum(1 << i for i in range(9) if base[s * 9 + i]) for s in range(3))
        suited = lan_suited(m0, m1, m2)
        honors = sum(1 for k in range(27, 34) if base[k])
        if Shape.SHISANLAN in shapes:
            out.append(shisanlan_need(free, suited, honors))
        if want_q:
            if options.wild_for_qixing_honor:
                out.append(qixing_need(free, suited, honors))
            else:
                real = sum(1 for k in range(27, 34) if counts[k] and k not in wild)
                out.append(qixing_real_honor_need(free, suited, real))
    if Shape.SHISANYAO in shapes:
        kinds = sum(1 for k in ORPHANS if nat[k])
        pair = any(nat[k] >= 2 for k in ORPHANS)
        out.append(14 - w - kinds - pair)
    if Shape.JIULIAN in shapes:
        for s in range(3):
            part = nat[s * 9 : s * 9 + 9]
            keep = sum(min(c, p) for c, p in zip(part, JIULIAN, strict=True))
            keep += min(1, sum(max(0, c - p) for c, p in zip(part, JIULIAN, strict=True)))
            out.append(14 - w - keep)
    return out
