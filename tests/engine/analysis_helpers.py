"""Reference implementations and generators for the analysis tests (slow and obvious)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

from engine.hand import Meld, Reading


@cache
def _ref_section(c: tuple[int, ...], pair: bool, suited: bool, honor_sets: bool) -> bool:
    """One suit (or the 7 honors) split into sets, plus one pair when ``pair``."""
    i = next((k for k in range(len(c)) if c[k]), -1)
    if i < 0:
        return not pair
    options: list[tuple[int, ...]] = [(i, i, i)]
    if pair:
        options.append((i, i))
    if suited and i <= 6:
        options.append((i, i + 1, i + 2))
    if not suited and honor_sets:
        if i < 4:
            others = [w for w in range(i + 1, 4)]
            options += [(i, a, b) for a in others for b in others if a < b]
        elif i == 4:
            options.append((4, 5, 6))
    for group in options:
        t = list(c)
        for k in group:
            t[k] -= 1
        if min(t) >= 0 and _ref_section(tuple(t), pair and len(group) == 3, suited, honor_sets):
            return True
    return False


def ref_standard(counts: Sequence[int], honor_sets: bool = False) -> bool:
    """Sets never cross suits: each section splits on its own, one of them holds the pair."""
    parts = [
        (tuple(counts[0:9]), True),
        (tuple(counts[9:18]), True),
        (tuple(counts[18:27]), True),
        (tuple(counts[27:34]), False),
    ]
    for j in range(4):
        if all(
            _ref_section(part, i == j, suited, honor_sets) for i, (part, suited) in enumerate(parts)
        ):
            return True
    return False


def ref_wild_standard(
    counts: Sequence[int],
    wild: frozenset[int],
    honor_sets: bool = False,
    fifth_copy: bool = True,
    melds: Sequence[Meld] = (),
) -> bool:
    """Brute force: every wildcard tries every kind (itself included)."""
    nat = list(counts)
    wild_tiles: list[int] = []
    for k in wild:
        wild_tiles += [k] * nat[k]
        nat[k] = 0
    mc = [0] * 34
    for m in melds:
        for k in m.kinds:
            mc[k] += 1

    def rec(j: int, start: int) -> bool:
        if j == len(wild_tiles):
            if not fifth_copy and any(nat[k] + mc[k] > 4 for k in range(34)):
                return False
            return ref_standard(nat, honor_sets)
        for k in range(start, 34):  # order does not matter: combinations with repetition
            nat[k] += 1
            ok = rec(j + 1, k)
            nat[k] -= 1
            if ok:
                return True
        return False

    return rec(0, 0)


def random_set(rng: random.Random) -> list[int]:
    """The kinds of a random chow or pung."""
    if rng.random() < 0.55:
        start = rng.randrange(3) * 9 + rng.randrange(7)
        return [start, start + 1, start + 2]
    return [rng.randrange(34)] * 3


def winning_hand(rng: random.Random, sets: int = 4) -> list[int]:
    """Counts of `sets` random sets + a pair, never more than four of a kind."""
    while True:
        c = [0] * 34
        ok = True
        for _ in range(sets):
            if rng.random() < 0.6:
                s = rng.randrange(3) * 9 + rng.randrange(7)
                for d in range(3):
                    c[s + d] += 1
            else:
                c[rng.randrange(34)] += 3
        c[rng.randrange(34)] += 2
        ok = max(c) <= 4
        if ok:
            return c


def random_hand(rng: random.Random, n: int = 14) -> list[int]:
    wall = [k for k in range(34) for _ in range(4)]
    c = [0] * 34
    for k in rng.sample(wall, n):
        c[k] += 1
    return c


def to_mahjong34(counts: Sequence[int]) -> list[int]:
    """Our order ends 中 发 白; the mahjong package's ends 白 发 中."""
    out = list(counts)
    out[31], out[33] = counts[33], counts[31]
    return out


def reading_tiles_ok(
    r: Reading, concealed_counts: Sequence[int], wild: frozenset[int], melds: Sequence[Meld]
) -> bool:
    """The reading's natural positions come from the hand and its wild positions from the
    hand's wild tiles (those not standing for themselves), exactly."""
    rest = list(concealed_counts)
    marks = 0
    melded = [g for g in r.groups if g.melded]
    if sorted(g.kinds for g in melded) != sorted(tuple(sorted(m.kinds)) for m in melds):
        return False
    for g in r.groups:
        if g.melded:
            continue
        for k, w in zip(g.kinds, g.wild, strict=True):
            if w:
                marks += 1
            else:
                rest[k] -= 1
    if min(rest) < 0:
        return False
    left = [k for k in range(34) for _ in range(rest[k])]
    return all(k in wild for k in left) and len(left) == marks == r.wildcards_used
