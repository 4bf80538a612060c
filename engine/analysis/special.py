"""Shapes outside four sets + a pair: 小七, 十三烂 / 七星十三烂, 十三幺, 九莲, 全风向, 四财神,
杠达.

Each shape has a cheap win test on (natural counts, wildcard count) and a builder that
returns the reading's target: which kinds the hand stands for, chosen so that as many
wildcards as possible stand for themselves (精还原).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from engine.hand import Meld, ShapeOptions

ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
_ORPHAN_SET = frozenset(ORPHANS)
JIULIAN = (3, 1, 1, 1, 1, 1, 1, 1, 3)


def _spaced(mask: int) -> bool:
    last = -10
    for i in range(9):
        if mask >> i & 1:
            if i - last < 3:
                return False
            last = i
    return True


SPACED_MASKS = tuple(m for m in range(512) if _spaced(m))
# natural mask of one suit -> largest spaced superset size, or -1 if the mask is not spaced
MAX_EXT = tuple(
    max((bin(t).count("1") for t in SPACED_MASKS if t & m == m), default=-1) for m in range(512)
)
# suit presence mask -> most of its kinds one 十三烂 can keep: any tiles at least 3 apart
LAN_KEEP = tuple(max(bin(t).count("1") for t in SPACED_MASKS if t & m == t) for m in range(512))
# ... and 1 where every such largest choice is two tiles with no room for a third (3 and 7,
# 2 and 7, 3 and 8): the three suits must hold 7 of the 14 kinds, so not all three can be
LAN_SHORT = tuple(
    int(
        LAN_KEEP[m] == 2
        and all(MAX_EXT[t] < 3 for t in SPACED_MASKS if t & m == t and bin(t).count("1") == 2)
    )
    for m in range(512)
)


def lan_suited(m0: int, m1: int, m2: int) -> int:
    """Most suited kinds a 十三烂 keeps from the three suits' presence masks."""
    return (
        LAN_KEEP[m0] + LAN_KEEP[m1] + LAN_KEEP[m2] - (LAN_SHORT[m0] & LAN_SHORT[m1] & LAN_SHORT[m2])
    )


def shisanlan_need(free: int, suited: int, honors: int) -> int:
    """Tiles a 十三烂 still lacks, keeping ``suited`` (``lan_suited``) and ``honors`` kinds,
    with ``free`` wildcards to fill any kind."""
    return 14 - free - suited - honors


def qixing_need(free: int, suited: int, honors: int) -> int:
    """Tiles a 七星十三烂 still lacks, a wildcard filling any kind (see ``shisanlan_need``)."""
    return 14 - free - min(suited, 7) - honors


def qixing_real_honor_need(free: int, suited: int, real_honors: int) -> int:
    """... when a wildcard may not stand for an honor: the honors must be drawn."""
    return (7 - real_honors) + max(0, 7 - min(suited, 7) - free)


def self_standing(positions: Mapping[int, int], wild_tiles: Mapping[int, int]) -> int:
    """Wildcards that can stand for their own kind, given how many wild-filled positions
    each kind has."""
    return sum(min(a, positions.get(w, 0)) for w, a in wild_tiles.items())


# --- 小七 ---------------------------------------------------------------------------------


# a byte -> its lowest bit: ``bytes(counts).translate(ODD)`` marks the odd counts
ODD = bytes(c & 1 for c in range(256))


def xiaoqi_win(nat: Sequence[int], w: int) -> bool:
    return sum(bytes(nat).translate(ODD)) <= w


def xiaoqi_need(free: int, pairs: int, singles: int) -> int:
    """Tiles seven pairs still lack, from the naturals' pairs and singles."""
    p = min(7, pairs)
    return 14 - free - 2 * p - min(singles, 7 - p)


def xiaoqi_layouts(nat: Sequence[int], w: int, limit: Sequence[int] | None) -> list[list[int]]:
    """Every way to split the naturals into pairs: per kind, how many of its naturals pair
    with a wildcard (the rest pair among themselves)."""
    kinds = [k for k in range(34) if nat[k]]
    options: list[list[int]] = []
    for k in kinds:
        n = nat[k]
        opts = []
        x = n & 1
        while x <= n:
            if limit is None or n + x <= limit[k]:
                opts.append(x)
            x += 2
        if not opts:
            return []
        options.append(opts)
    out: list[list[int]] = []

    def rec(j: int, acc: list[int], used: int) -> None:
        if used > w:
            return
        if j == len(kinds):
            x = [0] * 34
            for k, v in zip(kinds, acc, strict=True):
                x[k] = v
            out.append(x)
            return
        for v in options[j]:
            acc.append(v)
            rec(j + 1, acc, used + v)
            acc.pop()

    rec(0, [], 0)
    return out


# --- 十三烂 / 七星十三烂 -------------------------------------------------------------------


def suit_masks(counts: Sequence[int]) -> tuple[int, int, int] | None:
    masks = []
    for s in range(3):
        m = 0
        for i in range(9):
            c = counts[s * 9 + i]
            if c > 1:
                return None
            if c:
                m |= 1 << i
        masks.append(m)
    return masks[0], masks[1], masks[2]


def natural_lan(counts: Sequence[int]) -> bool:
    masks = suit_masks(counts)
    if masks is None or any(counts[k] > 1 for k in range(27, 34)):
        return False
    return all(MAX_EXT[m] >= 0 for m in masks)


def shisanlan_win(
    counts: Sequence[int],
    nat: Sequence[int],
    w: int,
    wild: frozenset[int],
    options: ShapeOptions,
    qixing: bool,
) -> bool:
    """十三烂 (``qixing`` False) or 七星十三烂 (True); 14 concealed tiles, no melds."""
    honors_ok = options.wild_for_qixing_honor or not any(k >= 27 for k in wild)
    # every wildcard as itself (德国)
    if natural_lan(counts) and (
        not qixing or (all(counts[k] for k in range(27, 34)) and honors_ok)
    ):
        return True
    if not w or not options.wild_in_shisanlan:
        return False
    masks = suit_masks(nat)
    if masks is None or any(nat[k] > 1 for k in range(27, 34)):
        return False
    ext = MAX_EXT[masks[0]] + MAX_EXT[masks[1]] + MAX_EXT[masks[2]]
    if min(MAX_EXT[m] for m in masks) < 0 or ext < 7:
        return False
    if not qixing:
        return True
    suited = sum(nat[0:27])
    if suited > 7:
        return False
    return options.wild_for_qixing_honor or all(nat[k] for k in range(27, 34))


def shisanlan_target(
    nat: Sequence[int],
    wild_tiles: Mapping[int, int],
    qixing: bool,
    honors_fillable: bool,
) -> list[int] | None:
    """The 14 kinds a filled 十三烂 stands for, with the most wildcards as themselves.

    ``honors_fillable`` False: every honor of the target must be a natural tile.
    """
    masks = suit_masks(nat)
    if masks is None or any(nat[k] > 1 for k in range(27, 34)):
        return None
    # per section: size -> (self-standing, kinds) with the best self-standing, then smallest
    sections: list[dict[int, tuple[int, tuple[int, ...]]]] = []
    for s in range(3):
        best: dict[int, tuple[int, tuple[int, ...]]] = {}
        for t in SPACED_MASKS:
            if t & masks[s] != masks[s]:
                continue
            kinds = tuple(s * 9 + i for i in range(9) if t >> i & 1)
            ss = sum(1 for k in kinds if not nat[k] and wild_tiles.get(k, 0))
            _keep(best, len(kinds), ss, kinds)
        sections.append(best)
    have = tuple(k for k in range(27, 34) if nat[k])
    missing = [k for k in range(27, 34) if not nat[k]]
    hbest: dict[int, tuple[int, tuple[int, ...]]] = {}
    sizes = [len(missing)] if qixing else list(range(len(missing) + 1))
    if not honors_fillable:
        sizes = [0] if not (qixing and missing) else []
    for r in sizes:
        for extra in combinations(missing, r):
            kinds = tuple(sorted(have + extra))
            ss = sum(1 for k in extra if wild_tiles.get(k, 0))
            _keep(hbest, len(kinds), ss, kinds)
    sections.append(hbest)
    # combine: total size 14, most self-standing, then the smallest kinds
    acc: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, ())}
    for sec in sections:
        nxt: dict[int, tuple[int, tuple[int, ...]]] = {}
        for n1, (s1, k1) in acc.items():
            for n2, (s2, k2) in sec.items():
                if n1 + n2 <= 14:
                    _keep(nxt, n1 + n2, s1 + s2, k1 + k2)
        acc = nxt
    hit = acc.get(14)
    return list(hit[1]) if hit else None


def _keep(
    best: dict[int, tuple[int, tuple[int, ...]]], size: int, ss: int, kinds: tuple[int, ...]
) -> None:
    old = best.get(size)
    if old is None or ss > old[0] or (ss == old[0] and kinds < old[1]):
        best[size] = (ss, kinds)


# --- 十三幺 -------------------------------------------------------------------------------


def shisanyao_win(nat: Sequence[int]) -> bool:
    extra = 0
    for k in range(34):
        c = nat[k]
        if c and (k not in _ORPHAN_SET or c > 2):
            return False
        if c == 2:
            extra += 1
    return extra <= 1


def shisanyao_target(nat: Sequence[int], wild_tiles: Mapping[int, int]) -> list[int] | None:
    if not shisanyao_win(nat):
        return None
    doubled = [k for k in ORPHANS if nat[k] == 2]
    pairs = doubled or list(ORPHANS)
    best: tuple[int, int] | None = None
    for p in pairs:
        fill: dict[int, int] = {}
        for k in ORPHANS:
            need = (2 if k == p else 1) - nat[k]
            if need > 0:
                fill[k] = need
        ss = self_standing(fill, wild_tiles)
        if best is None or ss > best[0]:
            best = (ss, p)
    assert best is not None
    return sorted([*ORPHANS, best[1]])


# --- 九莲宝灯 ------------------------------------------------------------------------------


def jiulian_target(
    nat: Sequence[int], w: int, wild_tiles: Mapping[int, int], limit: Sequence[int] | None
) -> list[int] | None:
    # the sections holding naturals, by slices (most hands asked about fail here)
    suits = [s for s in range(4) if any(nat[s * 9 : s * 9 + 9])]
    if len(suits) != 1 or suits[0] == 3:
        return None
    base = suits[0] * 9
    deficit = 0
    excess: list[int] = []
    for i in range(9):
        c = nat[base + i]
        deficit += max(0, JIULIAN[i] - c)
        excess.extend([base + i] * max(0, c - JIULIAN[i]))
    if len(excess) > 1 or deficit > w:
        return None
    extras = excess or [base + i for i in range(9)]
    best: tuple[int, int] | None = None
    for e in extras:
        target = [JIULIAN[i] + (base + i == e) for i in range(9)]
        if limit is not None and any(target[i] > limit[base + i] for i in range(9)):
            continue
        fill = {base + i: target[i] - nat[base + i] for i in range(9)}
        ss = self_standing(fill, wild_tiles)
        if best is None or ss > best[0]:
            best = (ss, e)
    if best is None:
        return None
    return sorted([base + i for i in range(9) for _ in range(JIULIAN[i])] + [best[1]])


# --- 全风向 / 字一色 without a shape -------------------------------------------------------


def quanfeng_win(nat: Sequence[int], melds_all_honors: bool) -> bool:
    return melds_all_honors and not any(nat[0:27])


def sicaishen_win(counts: Sequence[int], wild: frozenset[int]) -> bool:
    return any(counts[w] >= 4 for w in wild)


# --- 杠达 (chongji 一杠一达 … 三杠三达) ---------------------------------------------------


def gangda_kongs(melds: Sequence[Meld]) -> int:
    """How many kongs a 杠达 hand has declared (1–3, nothing else melded), or 0."""
    k = len(melds)
    return k if 1 <= k <= 3 and all(m.type.is_kong for m in melds) else 0


def gangda_need(nat: Sequence[int], w: int, kongs: int) -> int:
    """Tiles a 杠达 hand of ``kongs`` kongs still lacks: its 14 − 3k concealed tiles are
    7 − 2k pairs (a wildcard pairs anything) and k loose tiles. Natural pairs fill the pair
    places first, then singles, then loose places take any natural left."""
    places = 7 - 2 * kongs
    pairs = sum(c >> 1 for c in nat)
    singles = sum(c & 1 for c in nat)
    full = min(places, pairs)
    half = min(places - full, singles)
    rest = 2 * pairs + singles - 2 * full - half
    kept = 2 * full + half + min(kongs, rest)
    return 14 - 3 * kongs - w - kept


def gangda_structure(
    nat: Sequence[int], wild_tiles: Mapping[int, int], kongs: int
) -> list[tuple[int, ...]] | None:
    """A 杠达 hand's concealed groups as kinds (pairs, then loose tiles), or None if it does
    not win. Natural pairs first; the pairs still missing take, with the most wildcards
    standing for themselves, two wildcards of one kind, then a single and a wildcard, then
    two wildcards of different kinds; wildcards left over are loose tiles as themselves."""
    places = 7 - 2 * kongs
    pairs: list[tuple[int, ...]] = []
    singles: list[int] = []
    for kind, n in enumerate(nat):
        pairs += [(kind, kind)] * (n // 2)
        singles += [kind] * (n % 2)
    missing = max(0, places - len(pairs))
    w = sum(wild_tiles.values())
    # the most same-kind wildcard pairs that still leave enough wildcards for the rest
    same = min(missing, sum(a // 2 for a in wild_tiles.values()))
    while same >= 0:
        left = missing - same
        with_single = min(len(singles), left)
        if 2 * same + with_single + 2 * (left - with_single) <= w:
            break
        same -= 1
    if same < 0:
        return None
    wilds = dict(wild_tiles)
    for k in sorted(wilds):
        while same and wilds[k] >= 2:
            pairs.append((k, k))
            wilds[k] -= 2
            same -= 1
    loose = [k for k, a in sorted(wilds.items()) for _ in range(a)]
    while len(pairs) < places and singles:
        pairs.append((singles[0], singles[0]))
        del singles[0]
        loose.pop()
    while len(pairs) < places:
        pairs.append((loose[0], loose[0]))
        del loose[:2]
    for extra in pairs[places:]:
        singles += extra
    return pairs[:places] + [(k,) for k in sorted(singles + loose)]
