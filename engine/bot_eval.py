"""Fast shanten for the bots: every discard of a hand scored in one pass.

``engine.analysis.shanten`` answers one hand at a time; a bot asks the same question for
each of its ~12 possible discards on every turn. Removing one tile changes one section
(万, 筒, 条, honors) only, so the other three are combined once per turn and each
candidate costs one memoised table lookup and a small combine. Shapes: the standard
shape (its pung-only form included), seven pairs and 十三烂 when the ruleset has them;
the rarer special shapes are left to the engine's own check at the moment of winning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import add, itemgetter

from engine.analysis.special import SPACED_MASKS
from engine.analysis.standard import honor_section
from engine.analysis.suit_tables import Section, usable
from engine.hand import Shape, ShapeOptions

_NEG = -100
_CONCEALED_SHAPES = frozenset({Shape.XIAOQI, Shape.SHISANLAN})
_SECTIONS = ((0, 9), (9, 18), (18, 27), (27, 34))
# suit presence mask -> most of its kinds inside one 十三烂 pattern (1-4-7, 2-5-8, ...)
_LAN_KEEP = tuple(
    max(bin(t & m).count("1") for t in SPACED_MASKS if bin(t).count("1") == 3) for m in range(512)
)
Vec = Sequence[int]


_MEMO: dict[tuple[Vec, Vec, int], tuple[int, ...]] = {}
_MEMO_LIMIT = 200_000


def _combine(a: Vec, b: Vec, sets: int) -> tuple[int, ...]:
    """Two sections' usable vectors as one (memoised: a hand keeps most sections a turn)."""
    key = (a, b, sets)
    hit = _MEMO.get(key)
    if hit is not None:
        return hit
    out = [_NEG] * 10
    for g1 in range(sets + 1):
        for p1 in (0, 1):
            x = a[g1 * 2 + p1]
            if x < 0:
                continue
            for g2 in range(sets + 1 - g1):
                i = (g1 + g2) * 2 + p1
                v = x + b[g2 * 2]
                if v > out[i]:
                    out[i] = v
                if not p1:
                    v = x + b[g2 * 2 + 1]
                    if v > out[i + 1]:
                        out[i + 1] = v
    res = tuple(out)
    if len(_MEMO) >= _MEMO_LIMIT:
        _MEMO.clear()
    _MEMO[key] = res
    return res


def _pairing(sets: int) -> Callable[[Vec], tuple[int, ...]]:
    """Picks from b the entries that ``_best`` adds to a's (see ``_left``)."""
    idx: list[int] = []
    for g1 in range(sets + 1):
        g2 = (sets - g1) * 2
        idx += [g2, g2 + 1, g2]
    return itemgetter(*idx)


_PAIRINGS = {s: _pairing(s) for s in range(5)}


def _left(a: Vec, sets: int) -> tuple[int, ...]:
    out: list[int] = []
    for g1 in range(sets + 1):
        out += [a[g1 * 2], a[g1 * 2], a[g1 * 2 + 1]]
    return tuple(out)


def _best(a: Vec, b: Vec, sets: int) -> int:
    """Most naturals in exactly ``sets`` groups and at most one pair over a and b."""
    best = _NEG
    for g1 in range(sets + 1):
        g2 = (sets - g1) * 2
        i = g1 * 2
        v = max(a[i] + b[g2], a[i] + b[g2 + 1], a[i + 1] + b[g2])
        if v > best:
            best = v
    return best


def _mask(nat: Sequence[int], lo: int) -> int:
    m = 0
    for i in range(9):
        if nat[lo + i]:
            m |= 1 << i
    return m


_REMOVALS: dict[tuple[Section, bytes], tuple[Vec | None, ...]] = {}


def _removals(section: Section, key: bytes) -> tuple[Vec | None, ...]:
    """For each position, the usable vector of the section with one tile fewer there
    (memoised: a hand keeps three of its four sections from one turn to the next)."""
    hit = _REMOVALS.get((section, key))
    if hit is None:
        out: list[Vec | None] = []
        for i, c in enumerate(key):
            if c:
                less = bytearray(key)
                less[i] = c - 1
                out.append(usable(section, bytes(less)))
            else:
                out.append(None)
        hit = tuple(out)
        if len(_REMOVALS) >= _MEMO_LIMIT:
            _REMOVALS.clear()
        _REMOVALS[(section, key)] = hit
    return hit


class HandShape:
    """One hand's counts with its wildcards split off; scores the hand and its discards."""

    __slots__ = (
        "honors",
        "keys",
        "lan",
        "masks",
        "nat",
        "options",
        "pairs",
        "sections",
        "sets",
        "singles",
        "target",
        "vecs",
        "w",
        "wild",
    )

    def __init__(
        self, counts: Sequence[int], wild: frozenset[int], options: ShapeOptions, melds: int
    ) -> None:
        self.wild = wild
        self.options = options
        nat = list(counts)
        w = 0
        for k in wild:
            w += nat[k]
            nat[k] = 0
        self.nat = nat
        self.w = w
        self.sets = 4 - melds
        self.target = 14 - 3 * melds
        honors = honor_section(options)
        self.sections = (Section.SUIT, Section.SUIT, Section.SUIT, honors)
        b = bytes(nat)
        self.keys = tuple(b[lo:hi] for lo, hi in _SECTIONS)
        self.vecs = tuple(usable(self.sections[j], self.keys[j]) for j in range(4))
        # seven pairs and 十三烂 parts, so that one discard updates them in O(1)
        self.pairs = self.singles = self.lan = self.honors = 0
        self.masks = [0, 0, 0]
        if melds:
            return  # both shapes are concealed only
        shapes = options.shapes
        if Shape.XIAOQI in shapes:
            self.pairs = sum(c >> 1 for c in nat)
            self.singles = sum(c & 1 for c in nat)
        if Shape.SHISANLAN in shapes:
            self.masks = [_mask(nat, lo) for lo in (0, 9, 18)]
            self.lan = sum(_LAN_KEEP[m] for m in self.masks)
            self.honors = sum(1 for c in nat[27:34] if c)

    def shanten(self) -> int:
        """Shanten of the hand as it is (13 tiles: 0 = ready)."""
        v, s = self.vecs, self.sets
        keep = _best(_combine(_combine(v[0], v[1], s), v[2], s), v[3], s)
        need = self.target - self.w - keep
        return self._special(need, self.w, self.pairs, self.singles, self.lan, self.honors) - 1

    def discards(self, kinds: Iterable[int]) -> dict[int, int]:
        """Shanten after discarding one tile of each kind in ``kinds`` (held kinds)."""
        v, s = self.vecs, self.sets
        p01 = _combine(v[0], v[1], s)
        s23 = _combine(v[2], v[3], s)
        others = (
            _combine(v[1], s23, s),
            _combine(v[0], s23, s),
            _combine(p01, v[3], s),
            _combine(p01, v[2], s),
        )
        pick = _PAIRINGS[s]
        out: dict[int, int] = {}
        w, target = self.w, self.target
        special = self.sets == 4 and bool(self.options.shapes & _CONCEALED_SHAPES)
        removals: list[tuple[Vec | None, ...] | None] = [None] * 4
        lefts: list[tuple[int, ...] | None] = [None] * 4
        for k in kinds:
            if k in self.wild:
                # a wildcard leaves the naturals as they are: the whole hand's keep
                keep = _best(others[0], v[0], s)
                need = target - (w - 1) - keep
                if special:
                    need = self._special(
                        need, w - 1, self.pairs, self.singles, self.lan, self.honors
                    )
                out[k] = need - 1
                continue
            j = 3 if k >= 27 else k // 9
            lo = _SECTIONS[j][0]
            rem = removals[j]
            if rem is None:
                rem = removals[j] = _removals(self.sections[j], self.keys[j])
                lefts[j] = _left(others[j], s)
            less = rem[k - lo]
            left = lefts[j]
            assert less is not None and left is not None
            # _best(others[j], less) as one C-level max over precomputed pairs
            need = target - w - max(map(add, left, pick(less)))
            if special:
                need = self._special_less(need, k, j, lo)
            out[k] = need - 1
        return out

    def _special_less(self, need: int, k: int, j: int, lo: int) -> int:
        """``_special`` for the hand less one natural tile of kind ``k``."""
        c = self.nat[k]
        pairs, singles = (
            (self.pairs, self.singles - 1) if c & 1 else (self.pairs - 1, self.singles + 1)
        )
        lan, honors = self.lan, self.honors
        if c == 1:
            if j == 3:
                honors -= 1
            else:
                m = self.masks[j]
                lan = lan - _LAN_KEEP[m] + _LAN_KEEP[m & ~(1 << (k - lo))]
        return self._special(need, self.w, pairs, singles, lan, honors)

    def _special(self, need: int, w: int, pairs: int, singles: int, lan: int, honors: int) -> int:
        """The standard need against the concealed-only shapes (no melds)."""
        if self.sets != 4:
            return need
        shapes = self.options.shapes
        if Shape.XIAOQI in shapes:
            p = min(7, pairs)
            need = min(need, 14 - w - 2 * p - min(singles, 7 - p))
        if Shape.SHISANLAN in shapes:
            free = w if self.options.wild_in_shisanlan else 0
            need = min(need, 14 - free - min(lan, 9) - honors)
        return need
