"""A brute-force wildcard oracle: every wildcard tries every kind, the natural hands that
result are decomposed by plain recursion, and what the hand wins as is read off them.

Slow and obvious on purpose: it shares nothing with ``engine.analysis`` but the tile
numbering and the ``ShapeOptions`` it reads. What it answers for one hand:

- ``readings``: every (shape, wildcards standing for another kind) a winning reading of
  the hand can have (the fewest for each way of filling the hand, as 精还原 asks);
- ``jingdiao``: the shapes the hand wins as 精吊 (the tiles but the winning one and one
  lone wildcard are complete sets, or six pairs for 小七).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement, pairwise, product

from engine.hand import Meld, MeldType, Shape, ShapeOptions

ORPHANS = frozenset({0, 8, 9, 17, 18, 26, *range(27, 34)})
JIULIAN = (3, 1, 1, 1, 1, 1, 1, 1, 3)
_JINGDIAO = (Shape.PINGHU, Shape.DAQI, Shape.XIAOQI)


@cache
def _sets(c: tuple[int, ...], pair: bool, suited: bool, honor_sets: bool) -> frozenset[bool]:
    """For one section split into sets (plus one pair when ``pair``): whether it can be
    all pungs (True) and whether it can hold a chow or honor set (False), as a set."""
    i = next((k for k in range(len(c)) if c[k]), -1)
    if i < 0:
        return frozenset() if pair else frozenset({True})
    out: set[bool] = set()
    options: list[tuple[tuple[int, ...], bool]] = [((i, i, i), True)]
    if pair:
        options.append(((i, i), True))
    if suited and i <= 6:
        options.append(((i, i + 1, i + 2), False))
    if not suited and honor_sets:
        if i < 4:
            later = range(i + 1, 4)
            options += [((i, a, b), False) for a in later for b in later if a < b]
        elif i == 4:
            options.append(((4, 5, 6), False))
    for group, pungish in options:
        t = list(c)
        for k in group:
            t[k] -= 1
        if min(t) < 0:
            continue
        for rest in _sets(tuple(t), pair and len(group) == 3, suited, honor_sets):
            out.add(rest and pungish)
    return frozenset(out)


def standard_kinds(counts: Sequence[int], honor_sets: bool, pair: bool = True) -> set[bool]:
    """Ways the counts split into sets (and one pair): True all pungs, False not."""
    parts = [
        (tuple(counts[0:9]), True),
        (tuple(counts[9:18]), True),
        (tuple(counts[18:27]), True),
        (tuple(counts[27:34]), False),
    ]
    out: set[bool] = set()
    for j in range(4) if pair else (-1,):
        acc: set[bool] = {True}
        for i, (part, suited) in enumerate(parts):
            here = _sets(part, i == j, suited, honor_sets)
            acc = {a and b for a in acc for b in here}
            if not acc:
                break
        out |= acc
    return out


def _spaced(kinds: Sequence[int]) -> bool:
    for s in range(3):
        held = [k % 9 for k in kinds if k // 9 == s and k < 27]
        if any(b - a < 3 for a, b in pairwise(held)):
            return False
    return True


def shapes_of(counts: Sequence[int], melds: Sequence[Meld], options: ShapeOptions) -> set[Shape]:
    """Every shape the natural 14 (with ``melds``) win as; no wildcard rules here."""
    shapes = options.shapes
    out: set[Shape] = set()
    meld_pungs = all(m.type is not MeldType.CHOW for m in melds)
    for all_pungs in standard_kinds(counts, options.honor_sets):
        if all_pungs and meld_pungs and Shape.DAQI in shapes:
            out.add(Shape.DAQI)
        elif Shape.PINGHU in shapes:
            out.add(Shape.PINGHU)
    honors_only = not any(counts[:27]) and all(m.kinds[0] >= 27 for m in melds)
    if Shape.QUANFENG in shapes and honors_only:
        out.add(Shape.QUANFENG)
    kongs = len(melds) if all(m.type.is_kong for m in melds) else 0
    if Shape.GANGDA in shapes and 1 <= kongs <= 3 and sum(c // 2 for c in counts) >= 7 - 2 * kongs:
        out.add(Shape.GANGDA)
    if melds:
        return out
    if Shape.XIAOQI in shapes and all(c % 2 == 0 for c in counts):
        out.add(Shape.XIAOQI)
    kinds = [k for k in range(34) if counts[k]]
    if max(counts) == 1 and _spaced(kinds):
        if Shape.SHISANLAN in shapes:
            out.add(Shape.SHISANLAN)
        if Shape.QIXING_SHISANLAN in shapes and all(counts[27:34]):
            out.add(Shape.QIXING_SHISANLAN)
    if Shape.SHISANYAO in shapes and all(counts[k] for k in ORPHANS) and len(kinds) == 13:
        out.add(Shape.SHISANYAO)
    if Shape.JIULIAN in shapes:
        for s in range(3):
            part = counts[s * 9 : s * 9 + 9]
            if sum(part) == 14 and all(c >= p for c, p in zip(part, JIULIAN, strict=True)):
                out.add(Shape.JIULIAN)
    return out


@dataclass(frozen=True)
class Hand:
    concealed: tuple[int, ...]  # kinds, the winning tile included
    melds: tuple[Meld, ...]
    wild: frozenset[int]
    options: ShapeOptions
    winning_kind: int


def _fillings(wild_tiles: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Each way to give the wild tiles kinds (tiles of one wild kind are alike)."""
    groups = sorted({k: wild_tiles.count(k) for k in wild_tiles}.items())
    for parts in product(*(combinations_with_replacement(range(34), n) for _, n in groups)):
        yield tuple(k for part in parts for k in part)


def _room_ok(counts: Sequence[int], hand: Hand) -> bool:
    if hand.options.fifth_copy:
        return True
    held = list(counts)
    for m in hand.melds:
        for k in m.kinds:
            held[k] += 1
    return max(held) <= 4


def winning_fillings(hand: Hand) -> Iterator[tuple[tuple[int, ...], Shape, int]]:
    """Every way the wildcards' kinds make the hand win: (the natural counts, the shape,
    wildcards standing for another kind)."""
    nat = [0] * 34
    wild_tiles: list[int] = []
    for k in hand.concealed:
        if k in hand.wild:
            wild_tiles.append(k)
        else:
            nat[k] += 1
    held = {w: wild_tiles.count(w) for w in set(wild_tiles)}
    for fill in _fillings(sorted(wild_tiles)):
        counts = list(nat)
        for k in fill:
            counts[k] += 1
        if not _room_ok(counts, hand):
            continue
        shapes = shapes_of(counts, hand.melds, hand.options)
        if not shapes:
            continue
        # each wild kind stands for itself in as many positions it fills as it has tiles
        used = len(wild_tiles) - sum(min(a, counts[w] - nat[w]) for w, a in held.items())
        for shape in shapes:
            if _wild_rules_allow(shape, nat, used, hand):
                yield tuple(counts), shape, used


def readings(hand: Hand) -> dict[Shape, int]:
    """Per shape the hand wins as: the fewest wildcards standing for another kind."""
    held = {w: hand.concealed.count(w) for w in hand.wild}
    out: dict[Shape, int] = {}
    for _, shape, used in winning_fillings(hand):
        out[shape] = min(used, out.get(shape, 99))
    if Shape.SICAISHEN in hand.options.shapes and any(a >= 4 for a in held.values()):
        out[Shape.SICAISHEN] = 0  # four of a wild kind win as they are
    # a 七星十三烂 is a 十三烂 too; the analysis reads it as the plain one only when that
    # needs fewer wildcards (the 七星 pays more)
    q = out.get(Shape.QIXING_SHISANLAN)
    if q is not None and out.get(Shape.SHISANLAN, 99) >= q:
        out.pop(Shape.SHISANLAN, None)
    return out


def _wild_rules_allow(shape: Shape, nat: Sequence[int], used: int, hand: Hand) -> bool:
    opts = hand.options
    if shape in (Shape.SHISANLAN, Shape.QIXING_SHISANLAN) and used and not opts.wild_in_shisanlan:
        return False
    if shape is Shape.QIXING_SHISANLAN and not opts.wild_for_qixing_honor:
        # every honor a natural tile, and no wild kind an honor
        return all(nat[k] for k in range(27, 34)) and not any(w >= 27 for w in hand.wild)
    return True


def jingdiao(hand: Hand) -> set[tuple[Shape, bool]]:
    """(shape, 德国) of the hand's 精吊 readings: without the winning tile and one other
    wildcard (the lone jing), the rest, its wildcards filled every way, are complete sets
    or six pairs. 德国 too when the winning tile is a jing of the lone jing's kind and the
    rest are sets with every wildcard as itself."""
    if not hand.wild:
        return set()
    rest = list(hand.concealed)
    rest.remove(hand.winning_kind)
    out: set[tuple[Shape, bool]] = set()
    shapes = hand.options.shapes
    meld_pungs = all(m.type is not MeldType.CHOW for m in hand.melds)
    for lone in sorted({k for k in rest if k in hand.wild}):
        twelve = list(rest)
        twelve.remove(lone)
        nat = [0] * 34
        wild_tiles = []
        for k in twelve:
            if k in hand.wild:
                wild_tiles.append(k)
            else:
                nat[k] += 1
        for fill in _fillings(sorted(wild_tiles)):
            counts = list(nat)
            for k in fill:
                counts[k] += 1
            as_themselves = sorted(fill) == sorted(wild_tiles)
            deguo = as_themselves and lone == hand.winning_kind
            # the pair: the winning tile and the lone jing standing for it
            with_pair = list(counts)
            with_pair[hand.winning_kind] += 2
            if not _room_ok(with_pair, hand):
                continue
            found: set[Shape] = set()
            for all_pungs in standard_kinds(counts, hand.options.honor_sets, pair=False):
                if all_pungs and meld_pungs and Shape.DAQI in shapes:
                    found.add(Shape.DAQI)
                elif Shape.PINGHU in shapes:
                    found.add(Shape.PINGHU)
            if Shape.XIAOQI in shapes and not hand.melds and all(c % 2 == 0 for c in counts):
                found.add(Shape.XIAOQI)
            out |= {(shape, deguo) for shape in found}
            if found and hand.winning_kind in hand.wild and _other_pair_room(counts, hand):
                # two jing make the pair as another kind: a reading without 德国
                out |= {(shape, False) for shape in found}
    return out


def _other_pair_room(counts: Sequence[int], hand: Hand) -> bool:
    """Whether some kind but the winning one has room for a pair of wildcards."""
    for p in range(34):
        if p != hand.winning_kind:
            with_pair = list(counts)
            with_pair[p] += 2
            if _room_ok(with_pair, hand):
                return True
    return False
