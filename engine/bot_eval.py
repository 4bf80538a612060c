"""Fast shanten for the bots: every discard of a hand scored in one pass.

``engine.analysis.shanten`` answers one hand at a time; a bot asks the same question for
each of its ~12 possible discards on every turn. Removing one tile changes one section
(万, 筒, 条, honors) only, so the other three are combined once per turn and each
candidate costs one C-level max over precomputed pairs. Everything a section's counts
decide (its usable vector, the vectors with one tile fewer, its pairs and singles, its
十三烂 keep) is memoised per section key, so a turn is a few dict lookups plus the combine.
Shapes: the standard shape (its pung-only form included), seven pairs and 十三烂 when the
ruleset has them; the rarer special shapes are left to the engine's own check at the
moment of winning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import compress, count, repeat
from operator import add, and_, eq, itemgetter, or_
from typing import NamedTuple

from engine.analysis.section_table import kept_by_fewer, stored
from engine.analysis.special import lan_suited, shisanlan_need, xiaoqi_need
from engine.analysis.suit_tables import Section, canonical, usable
from engine.hand import Shape, ShapeOptions
from engine.memo import BoundedMemo, MemoRegistry

_NEG = -100
# Enum members and section kinds the hot paths read, as module names: ``Shape.X`` and
# ``Section.X`` are attribute lookups on the enum class, slow on Python 3.11 (the bench
# pays for each on every turn)
_XIAOQI, _SHISANLAN = Shape.XIAOQI, Shape.SHISANLAN
_SUIT, _HONOR, _HONOR_SETS = Section.SUIT, Section.HONOR, Section.HONOR_SETS
_CONCEALED_SHAPES = frozenset({_XIAOQI, _SHISANLAN})
Vec = Sequence[int]

# every memo below: sized and cleared together (``memo_sizes``, ``clear_memos``)
_MEMOS = MemoRegistry()
_LIMIT = 200_000

# Vectors go by a number in the combine memo: hashing two 10-tuples on every lookup
# costs more than the lookup. Numbers are never reused (``_NEXT``), so one that outlives a
# cleared table still names its vector.
Numbered = tuple[int, tuple[int, ...]]
_NUMBERS: BoundedMemo[tuple[int, ...], int] = BoundedMemo(_MEMOS, "bots/vectors", _LIMIT)
_NEXT = count()
# (a, b) -> combined, both ways round: a combine is symmetric, and it serves every number
# of sets (the entries of fewer sets are the same; the picks read no further)
_COMBINED: BoundedMemo[tuple[int, int], Numbered] = BoundedMemo(_MEMOS, "bots/combine", _LIMIT)


def _numbered(v: tuple[int, ...]) -> Numbered:
    n = _NUMBERS.get(v)
    if n is None:
        n = _NUMBERS.put(v, next(_NEXT))
    return n, v


def _combine(a: Numbered, b: Numbered) -> Numbered:
    """Two sections' usable vectors as one (memoised: a hand keeps most sections a turn).
    Every entry up to 4 sets is filled: the picks for fewer sets never read past theirs."""
    hit = _COMBINED.get((a[0], b[0]))
    if hit is None:
        hit = _COMBINED.put((a[0], b[0]), _full(a[1], b[1]))
        _COMBINED[(b[0], a[0])] = hit
    return hit


def _full(av: tuple[int, ...], bv: tuple[int, ...]) -> Numbered:
    """Most naturals in g sets (up to 4) and at most one pair over two sections."""
    out = [_NEG] * 10
    for g1 in range(5):
        for p1 in (0, 1):
            x = av[g1 * 2 + p1]
            if x < 0:
                continue
            for g2 in range(5 - g1):
                i = (g1 + g2) * 2 + p1
                v = x + bv[g2 * 2]
                if v > out[i]:
                    out[i] = v
                if not p1:
                    v = x + bv[g2 * 2 + 1]
                    if v > out[i + 1]:
                        out[i + 1] = v
    return _numbered(tuple(out))


def _pair_index(sets: int) -> list[int]:
    """The entries of b that ``_best`` adds to a's (see ``_LEFTS``), in order."""
    idx: list[int] = []
    for g1 in range(sets + 1):
        g2 = (sets - g1) * 2
        idx += [g2, g2 + 1, g2]
    return idx


def _pairing(sets: int) -> Callable[[Vec], tuple[int, ...]]:
    """Picks from b the entries that ``_best`` adds to a's (see ``_LEFTS``)."""
    return itemgetter(*_pair_index(sets))


def _lefting(sets: int) -> Callable[[Vec], tuple[int, ...]]:
    """Picks from a the entries that ``_best`` adds to b's picks (see ``_PAIRINGS``)."""
    idx: list[int] = []
    for g1 in range(sets + 1):
        idx += [g1 * 2, g1 * 2, g1 * 2 + 1]
    return itemgetter(*idx)


_PAIRINGS = {s: _pairing(s) for s in range(5)}
_LEFTS = {s: _lefting(s) for s in range(5)}


def _best(a: Vec, b: Vec, sets: int) -> int:
    """Most naturals in exactly ``sets`` groups and at most one pair over a and b."""
    best: int = max(map(add, _LEFTS[sets](a), _PAIRINGS[sets](b)))
    return best


_POWERS = tuple(1 << x for x in range(16))


class _Base(NamedTuple):
    """What one canonical section key decides whatever the number of sets to make."""

    vec: Numbered
    same: tuple[int, ...]  # per position: the usable entries one tile fewer there keeps
    pairs: int
    singles: int
    honors: int


def _base(section: Section, key: bytes) -> _Base:
    found = stored(key) if section is _SUIT else None
    if found is not None:
        # a common suit key: solved ahead of time (see ``section_table``)
        vec, same = found
    else:
        vec = usable(section, key)
        same = kept_by_fewer(key, vec, lambda k: usable(section, k))
    return _Base(
        _numbered(tuple(vec)),
        tuple(same),
        sum(c >> 1 for c in key),
        sum(c & 1 for c in key),
        sum(1 for c in key if c),
    )


def _spread(sets: int) -> tuple[int, ...]:
    """Bits over the 10 usable entries -> bits over the entries ``_best`` picks."""
    idx = _pair_index(sets)
    return tuple(sum(1 << x for x, g in enumerate(idx) if m >> g & 1) for m in range(1024))


_SPREADS = tuple(_spread(sets) for sets in range(5))


class _Canon(NamedTuple):
    """What one canonical section key decides for one number of sets to make: keys that
    differ only by place (``canonical``) share it, and so share its splits (``_SPLITS``)."""

    number: int  # names it in ``_SPLITS`` (never reused, like vector numbers)
    picked: tuple[int, ...]  # the entries ``_best`` adds to the other sections'
    # per canonical position: the splits (bits over ``picked``) whose count one tile fewer
    # there leaves as it is. A discard loses one natural at most, so it keeps the whole
    # hand's best count exactly when one of the best splits is among these.
    free: tuple[int, ...]


class _Info:
    """What one section's natural counts decide, for one number of sets to make (a class
    with slots: the hot path reads its fields, and slots read fastest on Python 3.11)."""

    __slots__ = ("canon", "canon_number", "honors", "mask", "pairs", "place", "singles", "vec")

    def __init__(self, key: bytes, where: tuple[int, ...], base: _Base, canon: _Canon) -> None:
        self.canon_number = canon.number
        self.vec = base.vec
        self.mask = sum(compress(_POWERS, key))  # the positions held
        self.place = _placing(where)  # bits over canonical positions -> over this key's
        self.pairs = base.pairs
        self.singles = base.singles
        self.honors = base.honors
        self.canon = canon


# (section, sets) -> section key -> info; the sets-free part is shared by canonical key
_INFOS: dict[tuple[Section, int], BoundedMemo[bytes, _Info]] = {
    (section, sets): BoundedMemo(_MEMOS, "bots/sections", _LIMIT)
    for section in Section
    for sets in range(5)
}
# per section (keys without the enum member: a tuple holding one is never untracked by the
# garbage collector, and these tables live long)
_BASES: dict[Section, BoundedMemo[bytes, _Base]] = {
    section: BoundedMemo(_MEMOS, "bots/sections", _LIMIT) for section in Section
}
_CANONS: dict[Section, BoundedMemo[tuple[bytes, int], _Canon]] = {
    section: BoundedMemo(_MEMOS, "bots/sections", _LIMIT) for section in Section
}
# a canonical key's place in a key (``canonical``'s map) -> its bits-to-bits table
_PLACES_OF: BoundedMemo[tuple[int, ...], tuple[int, ...]] = BoundedMemo(
    _MEMOS, "bots/places", _LIMIT
)
# the hot path's lookups without building keys
_SUIT_INFOS = tuple(_INFOS[(Section.SUIT, sets)] for sets in range(5))
_HONOR_INFOS = tuple(_INFOS[(Section.HONOR, sets)] for sets in range(5))
_HONOR_SETS_INFOS = tuple(_INFOS[(Section.HONOR_SETS, sets)] for sets in range(5))


def _placing(where: tuple[int, ...]) -> tuple[int, ...]:
    """Bits over the canonical key's positions -> bits over the positions of a key that
    maps there by ``where`` (its position i went to ``where[i]``; -1: none held)."""
    table = _PLACES_OF.get(where)
    if table is None:
        back = [0] * len(where)
        for i, q in enumerate(where):
            if q >= 0:
                back[q] = 1 << i
        # doubling: the masks with canonical bit q set are those without it, or back[q]
        out = [0]
        for bit in back:
            out += list(map(or_, out, repeat(bit)))
        table = _PLACES_OF.put(where, tuple(out))
    return table


def _info(section: Section, key: bytes, sets: int) -> _Info:
    table = _INFOS[(section, sets)]
    hit = table.get(key)
    if hit is None:
        # keys that differ only by place share the costly part (see ``canonical``)
        ckey, where = canonical(section, key)
        canons = _CANONS[section]
        bases = _BASES[section]
        canon = canons.get((ckey, sets))
        base = bases.get(ckey)
        if base is None:
            base = bases.put(ckey, _base(section, ckey))
        if canon is None:
            spread = _SPREADS[sets]
            canon = canons.put(
                (ckey, sets),
                _Canon(
                    next(_NEXT),
                    _PAIRINGS[sets](base.vec[1]),
                    tuple(map(spread.__getitem__, base.same)),
                ),
            )
        hit = table.put(key, _Info(key, where, base, canon))
    return hit


# (the other three sections' vector number, a canonical section's number for a number of
# sets) -> (the whole hand's most naturals kept, bits of the canonical positions where
# one tile fewer still keeps them): keys that differ only by place share these, and
# their ``place`` maps the bits to their own positions
_SPLITS: BoundedMemo[tuple[int, int], tuple[int, int]] = BoundedMemo(_MEMOS, "bots/combine", _LIMIT)


def _split(others: Numbered, info: _Info, sets: int) -> tuple[int, int]:
    key = (others[0], info.canon_number)
    hit = _SPLITS.get(key)
    if hit is None:
        canon = info.canon
        sums = list(map(add, _LEFTS[sets](others[1]), canon.picked))
        keep = max(sums)
        best = sum(compress(_POWERS, map(eq, sums, repeat(keep))))
        # the positions where one of the best splits stays free
        bits = sum(compress(_POWERS, map(and_, canon.free, repeat(best))))
        hit = _SPLITS.put(key, (keep, bits))
    return hit


def _keeps(others: Numbered, info: _Info, sets: int) -> tuple[int, int]:
    """(the whole hand's most naturals kept, bits of the section's positions where one
    tile fewer still keeps them)."""
    keep, bits = _split(others, info, sets)
    return keep, info.place[bits]


# kind -> (section, position in it); section -> its first kind
_PLACES = tuple((3, k - 27) if k >= 27 else (k // 9, k % 9) for k in range(34))
_OFFSETS = (0, 9, 18, 27)
# bits over a section's positions -> the positions set; per section, the kinds there
_BIT_POSITIONS = tuple(tuple(i for i in range(9) if m >> i & 1) for m in range(512))
_KINDS_AT = tuple(tuple(tuple(off + i for i in at) for at in _BIT_POSITIONS) for off in _OFFSETS)


class HandShape:
    """One hand's counts with its wildcards split off; scores the hand and its discards."""

    __slots__ = (
        "honors",  # 十三烂: the honor kinds held
        "infos",  # per section (万, 筒, 条, honors): its ``_Info``
        "lan_kept",  # 十三烂: the suited kinds it keeps (``lan_suited``)
        "naturals",  # the counts with the wild kinds taken out
        "options",
        "pairs",  # seven pairs: the natural pairs
        "sets",  # sets still to make (4 − melds)
        "singles",  # seven pairs: the natural kinds held an odd number of times
        "special",  # whether seven pairs or 十三烂 count (no melds, and the ruleset has one)
        "target",  # tiles a complete hand holds concealed (14 − 3 · melds)
        "vecs",  # per section: its numbered usable vector
        "wild",  # the wild kinds
        "wild_count",  # wildcard tiles held
        "wild_held",  # the wild kinds held
    )

    def __init__(
        self, counts: Sequence[int], wild: frozenset[int], options: ShapeOptions, melds: int
    ) -> None:
        self.wild = wild
        self.options = options
        wild_count = 0
        naturals = counts
        wild_held: list[int] = []
        if wild:
            split: bytearray | None = None  # (the caller's counts stay as they are)
            for k in wild:  # (a loop, not a comprehension: that would be a call a shape)
                c = counts[k]
                if c:
                    if split is None:
                        split = naturals = bytearray(counts)
                    wild_held.append(k)
                    wild_count += c
                    split[k] = 0
        self.naturals = naturals
        self.wild_held = wild_held
        self.wild_count = wild_count
        sets = self.sets = 4 - melds
        self.target = 14 - 3 * melds
        b = bytes(naturals)
        suits = _SUIT_INFOS[sets]
        m = suits.get(b[0:9]) or _info(_SUIT, b[0:9], sets)
        p = suits.get(b[9:18]) or _info(_SUIT, b[9:18], sets)
        s = suits.get(b[18:27]) or _info(_SUIT, b[18:27], sets)
        if options.honor_sets:
            h = _HONOR_SETS_INFOS[sets].get(b[27:34]) or _info(_HONOR_SETS, b[27:34], sets)
        else:
            h = _HONOR_INFOS[sets].get(b[27:34]) or _info(_HONOR, b[27:34], sets)
        self.infos = (m, p, s, h)
        self.vecs = (m.vec, p.vec, s.vec, h.vec)
        # seven pairs and 十三烂 parts, so that one discard updates them in O(1)
        self.pairs = self.singles = self.lan_kept = self.honors = 0
        self.special = not melds and not options.shapes.isdisjoint(_CONCEALED_SHAPES)
        if not self.special:
            return  # both shapes are concealed only
        shapes = options.shapes
        if _XIAOQI in shapes:
            self.pairs = m.pairs + p.pairs + s.pairs + h.pairs
            self.singles = m.singles + p.singles + s.singles + h.singles
        if _SHISANLAN in shapes:
            self.lan_kept = lan_suited(m.mask, p.mask, s.mask)
            self.honors = h.honors

    def shanten(self) -> int:
        """Shanten of the hand as it is (13 tiles: 0 = ready)."""
        v, s = self.vecs, self.sets
        keep = _best(_combine(_combine(v[0], v[1]), v[2])[1], v[3][1], s)
        need = self.target - self.wild_count - keep
        if self.special:
            need = self._special(
                need, self.wild_count, self.pairs, self.singles, self.lan_kept, self.honors
            )
        return need - 1

    def discards(self, kinds: Iterable[int]) -> dict[int, int]:
        """Shanten after discarding one tile of each kind in ``kinds`` (held kinds)."""
        v, s = self.vecs, self.sets
        p01 = _combine(v[0], v[1])
        s23 = _combine(v[2], v[3])
        infos = self.infos
        # the whole hand's most naturals kept; per section (with the other three combined
        # when a discard is asked there), where a discard keeps them all
        keep, first = _keeps(_combine(v[1], s23), infos[0], s)
        keeps: list[int | None] = [first, None, None, None]
        out: dict[int, int] = {}
        base = self.target - self.wild_count
        special = self.special
        floor = xq_even = xq_odd = lan_same = 0
        if special:
            # one natural fewer: seven pairs as its kind was held an even or odd number of
            # times; 十三烂 as it was while the kind stays; no discard needs less than these
            wild_count, pairs, singles = self.wild_count, self.pairs, self.singles
            xq_even = self._xiaoqi_need(wild_count, pairs - 1, singles + 1)
            xq_odd = self._xiaoqi_need(wild_count, pairs, singles - 1)
            lan_same = self._lan_need(wild_count, self.lan_kept, self.honors)
            floor = min(xq_even, xq_odd, lan_same)
        wild = self.wild
        naturals = self.naturals
        wild_need: int | None = None
        for k in kinds:
            if k in wild:
                if wild_need is None:
                    # a wildcard leaves the naturals as they are: the whole hand's keep
                    wild_need = base + 1 - keep
                    if special:
                        wild_need = self._special(
                            wild_need,
                            self.wild_count - 1,
                            self.pairs,
                            self.singles,
                            self.lan_kept,
                            self.honors,
                        )
                out[k] = wild_need - 1
                continue
            j, i = _PLACES[k]
            bits = keeps[j]
            if bits is None:
                # 万 with 条 and honors for 筒; 万筒 with honors for 条, with 条 for honors
                others = _combine(v[0], s23) if j == 1 else _combine(p01, v[5 - j])
                bits = keeps[j] = _keeps(others, infos[j], s)[1]
            need = base - keep if bits >> i & 1 else base + 1 - keep
            if special and need > floor:
                c = naturals[k]
                lan_kept = lan_same if c > 1 else self._lan_without(j, i)
                need = min(need, xq_odd if c & 1 else xq_even, lan_kept)
            out[k] = need - 1
        return out

    def choice(self, barred: int | None = None) -> tuple[int, list[int]]:
        """The shanten the best discards leave, and the kinds to discard for it: any held
        kind but ``barred`` (the caller makes sure some other kind is held).

        The same scores as ``discards``, without scoring each kind: a discard keeps the
        whole hand's best count exactly where its section's keep bits say so, and every
        other discard (a wildcard too) leaves one fewer.
        """
        v0, v1, v2, v3 = self.vecs
        s = self.sets
        # the memos looked up here, not through _combine/_keeps: a turn makes ten lookups
        combined = _COMBINED.get
        splits = _SPLITS.get
        p01 = combined((v0[0], v1[0])) or _combine(v0, v1)
        s23 = combined((v2[0], v3[0])) or _combine(v2, v3)
        others = combined((v1[0], s23[0])) or _combine(v1, s23)
        m0, m1, m2, m3 = self.infos
        keep, bits = splits((others[0], m0.canon_number)) or _split(others, m0, s)
        bits = m0.place[bits]
        masks = [m0.mask, m1.mask, m2.mask, m3.mask]
        if barred is not None and barred not in self.wild:
            j, i = _PLACES[barred]
            masks[j] &= ~(1 << i)
        tied: list[int] = []
        if masks[0]:
            tied += _KINDS_AT[0][bits & masks[0]]
        # 万 with 条 and honors for 筒; 万筒 with honors for 条, with 条 for honors
        if masks[1]:
            others = combined((v0[0], s23[0])) or _combine(v0, s23)
            bits = m1.place[(splits((others[0], m1.canon_number)) or _split(others, m1, s))[1]]
            tied += _KINDS_AT[1][bits & masks[1]]
        if masks[2]:
            others = combined((p01[0], v3[0])) or _combine(p01, v3)
            bits = m2.place[(splits((others[0], m2.canon_number)) or _split(others, m2, s))[1]]
            tied += _KINDS_AT[2][bits & masks[2]]
        if masks[3]:
            others = combined((p01[0], v2[0])) or _combine(p01, v2)
            bits = m3.place[(splits((others[0], m3.canon_number)) or _split(others, m3, s))[1]]
            tied += _KINDS_AT[3][bits & masks[3]]
        # the tiles still needed after a discard that keeps the best count (shanten: one
        # fewer; 13 tiles: 0 = ready); any other discard (a wildcard too) needs one more
        need = self.target - self.wild_count - keep
        loose = [k for k in self.wild_held if k != barred] if self.wild_held else []
        if self.special:
            return self._special_choice(need, tied, masks, loose)
        if tied:
            return need - 1, tied
        for j in range(4):
            loose += _KINDS_AT[j][masks[j]]
        return need, loose

    def _special_choice(
        self, need: int, tied: list[int], masks: list[int], loose: list[int]
    ) -> tuple[int, list[int]]:
        """``choice`` when seven pairs or 十三烂 count (see ``discards``): they lower a
        natural discard's need to ``floor`` at best, so the standard answer stands when it
        is below that; a wildcard's need is worked out on its own."""
        wild_count, pairs, singles, lan_kept, honors = (
            self.wild_count,
            self.pairs,
            self.singles,
            self.lan_kept,
            self.honors,
        )
        # one natural fewer: seven pairs as its kind was held an even or odd number of
        # times; 十三烂 as it was while the kind stays
        xq_even = self._xiaoqi_need(wild_count, pairs - 1, singles + 1)
        xq_odd = self._xiaoqi_need(wild_count, pairs, singles - 1)
        lan_ok = _SHISANLAN in self.options.shapes
        lan_same = self._lan_need(wild_count, lan_kept, honors)
        floor = min(xq_even, xq_odd, lan_same)
        k0, k1, k2, k3 = _KINDS_AT
        naturals = [*k0[masks[0]], *k1[masks[1]], *k2[masks[2]], *k3[masks[3]]]
        if tied and need < floor:
            low = need
        elif not tied and naturals and need + 1 <= floor:
            low = need + 1
            tied = naturals
        else:
            # the special shapes may tie or beat the standard: each natural on its own
            kept = set(tied)
            counts = self.naturals
            low = 99
            for k in naturals:
                n = need if k in kept else need + 1
                if n > floor:
                    c = counts[k]
                    lan_k = lan_same if c > 1 or not lan_ok else self._lan_without(*_PLACES[k])
                    n = min(n, xq_odd if c & 1 else xq_even, lan_k)
                if n < low:
                    low = n
                    tied = [k]
                elif n == low:
                    tied.append(k)
        if loose:
            wild_need = self._special(need + 1, wild_count - 1, pairs, singles, lan_kept, honors)
            if wild_need < low:
                return wild_need - 1, loose
            if wild_need == low:
                tied += loose
        return low - 1, tied

    def _xiaoqi_need(self, wild_count: int, pairs: int, singles: int) -> int:
        if _XIAOQI not in self.options.shapes:
            return 99
        return xiaoqi_need(wild_count, pairs, singles)

    def _lan_need(self, wild_count: int, lan_kept: int, honors: int) -> int:
        if _SHISANLAN not in self.options.shapes:
            return 99
        return shisanlan_need(wild_count if self.options.wild_in_shisanlan else 0, lan_kept, honors)

    def _lan_without(self, j: int, i: int) -> int:
        """十三烂's need after the last tile at position ``i`` of section ``j`` goes."""
        lan_kept, honors = self.lan_kept, self.honors
        if j == 3:
            honors -= 1
        else:
            masks = [info.mask for info in self.infos[:3]]
            masks[j] &= ~(1 << i)
            lan_kept = lan_suited(*masks)
        return self._lan_need(self.wild_count, lan_kept, honors)

    def _special(
        self, need: int, wild_count: int, pairs: int, singles: int, lan_kept: int, honors: int
    ) -> int:
        """The standard need against the concealed-only shapes (no melds)."""
        return min(
            need,
            self._xiaoqi_need(wild_count, pairs, singles),
            self._lan_need(wild_count, lan_kept, honors),
        )


def clear_memos() -> None:
    """Forget every memoised section and combine (the benchmark measures cold start)."""
    _MEMOS.clear()


def memo_sizes() -> dict[str, int]:
    """How many keys the bots' memos hold, per kind (for the benchmark and diagnostics)."""
    return _MEMOS.sizes()
