"""The standard shape (four sets + a pair): the fast win check and the reading enumerator.

Win check: with the natural counts (wild tiles removed) and W wild tiles, the hand wins iff
the wildcards needed by the four sections add up to at most W, the pair sitting in one
section or made of two wildcards. The tile total (14 − 3·melds) makes the leftover
wildcards a multiple of three (or two more than one), so they always form pungs/a pair.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.analysis.suit_tables import INF, SHAPES, NeedTable, Section, consume, need_table
from engine.hand import GroupType, Meld, MeldType, ShapeOptions
from engine.memo import BoundedMemo, MemoRegistry

SUIT_SLICES = ((0, 9), (9, 18), (18, 27))

_SUIT_FREE = need_table(Section.SUIT)
_HONOR_FREE = need_table(Section.HONOR)
_HONOR_SETS_FREE = need_table(Section.HONOR_SETS)


def honor_section(options: ShapeOptions) -> Section:
    return Section.HONOR_SETS if options.honor_sets else Section.HONOR


def meld_counts(melds: Sequence[Meld]) -> list[int]:
    mc = [0] * 34
    for m in melds:
        for k in m.kinds:
            mc[k] += 1
    return mc


def section_tables(
    options: ShapeOptions, melds: Sequence[Meld]
) -> tuple[NeedTable, NeedTable, NeedTable, NeedTable]:
    """The need tables for m, p, s and honors under this hand's room rule."""
    hsec = honor_section(options)
    if options.fifth_copy:
        ht = _HONOR_SETS_FREE if options.honor_sets else _HONOR_FREE
        return _SUIT_FREE, _SUIT_FREE, _SUIT_FREE, ht
    mc = meld_counts(melds)
    lims = [bytes(4 - v for v in mc[a:b]) for a, b in SUIT_SLICES]
    hl = bytes(4 - v for v in mc[27:34])
    return (
        need_table(Section.SUIT, lims[0]),
        need_table(Section.SUIT, lims[1]),
        need_table(Section.SUIT, lims[2]),
        need_table(hsec, hl),
    )


def standard_need(b: bytes, tables: tuple[NeedTable, NeedTable, NeedTable, NeedTable]) -> int:
    """Fewest wildcards that complete the natural counts ``b`` into sets + one pair."""
    tm, tp, ts, th = tables
    k = b[0:9]
    x = tm.table.get(k) or tm.fill(k)
    k = b[9:18]
    y = tp.table.get(k) or tp.fill(k)
    k = b[18:27]
    z = ts.table.get(k) or ts.fill(k)
    k = b[27:34]
    h = th.table.get(k) or th.fill(k)
    n0 = x[0] + y[0] + z[0] + h[0]
    return n0 + min(2, x[1] - x[0], y[1] - y[0], z[1] - z[0], h[1] - h[0])


# --- all pungs (大七) when 平胡 itself is not allowed --------------------------------------


def _pung_need(c: int, limit: int | None, pair: bool) -> int:
    target = 2 if pair else 0
    for add in range(3):
        if (c + add) % 3 == target and (limit is None or c + add <= limit) and c + add > 0:
            return add
    return 0 if c == 0 and not pair else INF


# _pung_need of a kind without a limit (fifth copies allowed), by its count: (a set, the pair)
_PUNG_FREE = tuple((_pung_need(c, None, False), _pung_need(c, None, True)) for c in range(15))


def pung_only_need(nat: Sequence[int], options: ShapeOptions, melds: Sequence[Meld]) -> int:
    if any(m.type is MeldType.CHOW for m in melds):
        return INF
    n0 = 0
    best_delta = 2
    if options.fifth_copy:
        for c in nat:
            if c:
                a, p = _PUNG_FREE[c]
                n0 += a
                if p - a < best_delta:
                    best_delta = p - a
        return n0 + best_delta
    mc = meld_counts(melds)
    for k in range(34):
        c = nat[k]
        if not c:
            continue
        lim = 4 - mc[k]
        a = _pung_need(c, lim, False)
        p = _pung_need(c, lim, True)
        n0 += a
        best_delta = min(best_delta, p - a)
    return n0 + best_delta


# --- reading enumeration -----------------------------------------------------------------

SectionGroup = tuple[GroupType, tuple[int, ...]]
SectionResult = tuple[tuple[SectionGroup, ...], int, int]  # groups, tiles added, pairs


class SectionEnumerator:
    """All decompositions of one section's naturals into groups that each hold a natural.

    Groups take natural tiles wherever they can (as in the need search): a structure that
    only exists by lending a group's natural to another, leaving it all wildcards, is the
    same hand as a wildcard-only pung of a wildcard kind, which is how it is reported.
    """

    def __init__(self, section: Section, room: bytes | None, free: NeedTable) -> None:
        self.section = section
        self.room = room
        self.free = free
        self.memo: dict[tuple[bytes, int, bool, bytes | None], list[SectionResult]] = {}

    def run(self, c: bytes, budget: int) -> list[SectionResult]:
        return self._rec(c, budget, True, self.room)

    def _feasible(self, c: bytes, budget: int, pair_ok: bool) -> bool:
        n0, n1 = self.free.get(c)
        return n0 <= budget or (pair_ok and n1 <= budget)

    def _rec(self, c: bytes, budget: int, pair_ok: bool, room: bytes | None) -> list[SectionResult]:
        key = (c, budget, pair_ok, room)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        i = next((k for k, v in enumerate(c) if v), -1)
        if i < 0:
            res: list[SectionResult] = [((), 0, 0)]
            self.memo[key] = res
            return res
        found: set[SectionResult] = set()
        for gtype, pos in SHAPES[self.section][i]:
            is_pair = gtype is GroupType.PAIR
            if is_pair and not pair_ok:
                continue
            step = consume(c, pos, room)
            if step is None or step[1] > budget:
                continue
            rest, added, left = step
            sub_ok = pair_ok and not is_pair
            if self._feasible(rest, budget - added, sub_ok):
                for groups, a2, p2 in self._rec(rest, budget - added, sub_ok, left):
                    merged = tuple(sorted((*groups, (gtype, pos))))
                    found.add((merged, a2 + added, p2 + is_pair))
        out = sorted(found)
        self.memo[key] = out
        return out


def section_rooms(
    options: ShapeOptions, melds: Sequence[Meld], nat: Sequence[int]
) -> list[bytes | None]:
    """Room left per kind for added tiles, per section (None when fifth copies are allowed)."""
    if options.fifth_copy:
        return [None, None, None, None]
    mc = meld_counts(melds)
    room = [max(0, 4 - mc[k] - nat[k]) for k in range(34)]
    out: list[bytes | None] = [bytes(room[a:b]) for a, b in SUIT_SLICES]
    out.append(bytes(room[27:34]))
    return out


SectionRun = list[tuple[tuple[SectionGroup, ...], int, int]]
_MEMOS = MemoRegistry()
# An entry holds a section's whole enumeration (~740 bytes): 50,000 of them were ~37 MB, which
# a table service reached after weeks of hands (it adds ~2 a hand, and half of its lookups
# hit). 2,000 (~1.5 MB) still keeps hundreds of hands' worth.
_SECTION_RUNS: BoundedMemo[tuple[Section, bytes | None, bytes, int, int], SectionRun] = BoundedMemo(
    _MEMOS, "analysis/section_runs", 2_000
)


def _section_run(
    section: Section, room: bytes | None, free: NeedTable, key: bytes, budget: int, off: int
) -> SectionRun:
    """``SectionEnumerator(...).run`` with the groups' kinds moved to the section's offset,
    memoised: the result depends on these inputs only (``free`` is the section's own
    table) and is never changed by its readers."""
    memo_key = (section, room, key, budget, off)
    hit = _SECTION_RUNS.get(memo_key)
    if hit is None:
        hit = _SECTION_RUNS.put(
            memo_key,
            [
                (tuple((g, tuple(off + x for x in pos)) for g, pos in groups), added, p)
                for groups, added, p in SectionEnumerator(section, room, free).run(key, budget)
            ],
        )
    return hit


def enumerate_standard(
    nat: Sequence[int], w: int, options: ShapeOptions, melds: Sequence[Meld]
) -> list[tuple[list[tuple[GroupType, tuple[int, ...]]], int, bool]]:
    """Every standard decomposition: (concealed groups as kinds, leftover wildcards, pair?).

    Groups listed hold at least one natural tile; the leftover wildcards form groups of
    their own (pungs, plus the pair when ``pair?`` is False).
    """
    b = bytes(nat)
    hsec = honor_section(options)
    secs = [(Section.SUIT, 0), (Section.SUIT, 9), (Section.SUIT, 18), (hsec, 27)]
    frees = [_SUIT_FREE, _SUIT_FREE, _SUIT_FREE, need_table(hsec)]
    rooms = section_rooms(options, melds, nat)
    keys = [b[0:9], b[9:18], b[18:27], b[27:34]]
    mins = [min(frees[j].get(keys[j])) for j in range(4)]
    per: list[SectionRun] = []
    for j, (sec, off) in enumerate(secs):
        budget = w - (sum(mins) - mins[j])
        if budget < 0:
            return []
        per.append(_section_run(sec, rooms[j], frees[j], keys[j], budget, off))
    out: list[tuple[list[tuple[GroupType, tuple[int, ...]]], int, bool]] = []

    def rec(j: int, acc: list[tuple[GroupType, tuple[int, ...]]], used: int, pairs: int) -> None:
        if j == 4:
            out.append((list(acc), w - used, pairs == 1))
            return
        for groups, added, p in per[j]:
            if used + added > w or pairs + p > 1:
                continue
            n = len(acc)
            acc.extend(groups)
            rec(j + 1, acc, used + added, pairs + p)
            del acc[n:]

    rec(0, [], 0, 0)
    return out


def clear_section_runs() -> None:
    """Forget the memoised section enumerations (the benchmark measures cold start)."""
    _MEMOS.clear()
