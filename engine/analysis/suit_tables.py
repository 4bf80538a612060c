"""Per-section tables: how many wildcards a suit (or the honors) needs, memoised per key.

A hand splits into four independent sections: 万, 筒, 条 (9 kinds, chows allowed) and the
honors (7 kinds; with honor sets, any three different winds and 中发白 are sets). For a
section's natural counts (wild tiles removed) the tables give:

- ``need``: the fewest tiles that must be added (by wildcards) so that every natural tile
  sits in a set (``n0``), or in sets plus exactly one pair (``n1``);
- ``usable``: the most natural tiles that fit into ``g`` sets and ``p`` pairs (for shanten).

Keys are the section's counts as ``bytes``. Tables fill lazily: a cold key costs a small
memoised search, after which every lookup is one dict access. Building all ~400k suit keys
eagerly would take seconds of start-up on a Pi for keys most hands never touch.
"""

from __future__ import annotations

from enum import IntEnum

from engine.analysis.section_table import stored, stored_need
from engine.hand import GroupType
from engine.memo import BoundedMemo, MemoRegistry

INF = 99  # "impossible" in a need table; larger than any wildcard count


class Section(IntEnum):
    SUIT = 0  # 9 kinds, chows
    HONOR = 1  # 7 kinds, pungs and pairs only
    HONOR_SETS = 2  # 7 kinds, plus three different winds / 中发白 as sets


SECTION_SIZE = {Section.SUIT: 9, Section.HONOR: 7, Section.HONOR_SETS: 7}

# (group type, positions) for every group shape that contains position i.
GroupShape = tuple[GroupType, tuple[int, ...]]


def _build_shapes(section: Section) -> tuple[tuple[GroupShape, ...], ...]:
    size = SECTION_SIZE[section]
    out: list[tuple[GroupShape, ...]] = []
    for i in range(size):
        shapes: list[GroupShape] = [(GroupType.PUNG, (i, i, i)), (GroupType.PAIR, (i, i))]
        if section is Section.SUIT:
            for s in (i - 2, i - 1, i):
                if 0 <= s <= 6:
                    shapes.append((GroupType.CHOW, (s, s + 1, s + 2)))
        elif section is Section.HONOR_SETS:
            if i < 4:
                others = [w for w in range(4) if w != i]
                for a in range(3):
                    for b in range(a + 1, 3):
                        pos = tuple(sorted((i, others[a], others[b])))
                        shapes.append((GroupType.HONOR_SET, pos))
            else:
                shapes.append((GroupType.HONOR_SET, (4, 5, 6)))
        out.append(tuple(shapes))
    return tuple(out)


SHAPES: dict[Section, tuple[tuple[GroupShape, ...], ...]] = {s: _build_shapes(s) for s in Section}


def consume(
    c: bytes, positions: tuple[int, ...], room: bytes | None
) -> tuple[bytes, int, bytes | None] | None:
    """Place one group: use a natural tile wherever one is left, add a tile elsewhere.

    Using naturals first loses nothing (swap argument: the same kinds end up in the same
    groups). Returns the remaining counts, the number of tiles added and the remaining room
    (``None`` when a kind may be used any number of times), or None if over the room.
    """
    rest = bytearray(c)
    added = 0
    left = None if room is None else bytearray(room)
    for p in positions:
        if rest[p]:
            rest[p] -= 1
        else:
            added += 1
            if left is not None:
                if left[p] == 0:
                    return None
                left[p] -= 1
    return bytes(rest), added, None if left is None else bytes(left)


# --- need tables -----------------------------------------------------------------------

Need = tuple[int, int]  # (n0 sets only, n1 sets + one pair)


def solve_need(
    section: Section, c: bytes, room: bytes | None, memo: dict[tuple[bytes, bytes | None], Need]
) -> Need:
    key = (c, room)
    hit = memo.get(key)
    if hit is not None:
        return hit
    i = next((k for k, v in enumerate(c) if v), -1)
    if i < 0:
        # an empty section can still hold an added pair when some kind has room
        n1 = 2 if room is None or max(room) >= 2 else INF
        memo[key] = (0, n1)
        return memo[key]
    n0 = n1 = INF
    for gtype, pos in SHAPES[section][i]:
        step = consume(c, pos, room)
        if step is None:
            continue
        rest, added, left = step
        sub0, sub1 = solve_need(section, rest, left, memo)
        if gtype is GroupType.PAIR:
            n1 = min(n1, added + sub0)
        else:
            n0 = min(n0, added + sub0)
            n1 = min(n1, added + sub1)
    res = (min(n0, INF), min(n1, INF))
    memo[key] = res
    return res


def positional_need(c: bytes, limit: bytes) -> Need:
    """need for a suit under per-kind limits, by a left-to-right DP.

    State: chows started one and two positions back, and whether the pair is placed. At
    most two chows start at a position and one pung sits on it: three equal chows are three
    pungs with the same tiles, and two pungs of a kind exceed any limit of four.
    """
    n = len(c)
    chows = n == 9
    # (chows started at i-2, chows started at i-1, pair placed) -> fewest added tiles
    states: dict[tuple[int, int, int], int] = {(0, 0, 0): 0}
    for i in range(n):
        ci, li = c[i], limit[i]
        nxt: dict[tuple[int, int, int], int] = {}
        for (x, y, e0), cost in states.items():
            base = x + y
            for r in range(3 if chows and i <= 6 else 1):
                for u in (0, 3):
                    for e in (0, 2) if not e0 else (0,):
                        t = base + r + u + e
                        if t < ci or t > li:
                            continue
                        key = (y, r, 1 if e or e0 else 0)
                        v = cost + t - ci
                        old = nxt.get(key)
                        if old is None or v < old:
                            nxt[key] = v
        states = nxt
    n0 = states.get((0, 0, 0), INF)
    n1 = states.get((0, 0, 1), INF)
    return (min(n0, INF), min(n1, INF))


# The tables a long run fills key by key (a table service meets ~5-10 new keys a hand):
# sized here, as every engine memo is, so weeks of hands cannot grow them without bound.
# 10,000 keys are ~1.5 MB a table; a key forgotten is solved again (a suit key from the
# stored ``section_table``).
_MEMOS = MemoRegistry()
TABLE_LIMIT = 10_000


class NeedTable:
    """need(counts) for one section and one room rule, memoised per key.

    ``room`` rule: ``None`` = any kind may be added any number of times (fifth copy allowed);
    otherwise the per-kind limit on natural + added tiles (4 minus that kind in melds).
    """

    __slots__ = ("_search", "limit", "plus", "section", "table")

    def __init__(self, section: Section, limit: bytes | None) -> None:
        self.section = section
        self.limit = limit
        group = f"need/{section.name.lower()}"
        self.table: BoundedMemo[bytes, Need] = BoundedMemo(_MEMOS, group, TABLE_LIMIT)
        # key -> need of the key with one more tile at each position (for waits)
        self.plus: BoundedMemo[bytes, tuple[Need, ...]] = BoundedMemo(_MEMOS, group, TABLE_LIMIT)
        self._search: dict[tuple[bytes, bytes | None], Need] = {}

    def get_plus(self, c: bytes) -> tuple[Need, ...]:
        hit = self.plus.get(c)
        if hit is None:
            out: list[Need] = []
            key = bytearray(c)
            for i in range(len(key)):
                key[i] += 1
                out.append(self.get(bytes(key)))
                key[i] -= 1
            hit = self.plus.put(c, tuple(out))
        return hit

    def get(self, c: bytes) -> Need:
        hit = self.table.get(c)
        if hit is None:
            hit = self.fill(c)
        return hit

    def fill(self, c: bytes) -> Need:
        room: bytes | None = None
        if self.limit is not None:
            if any(v > lim for v, lim in zip(c, self.limit, strict=True)):
                return self.table.put(c, (INF, INF))
            if self.section is not Section.HONOR_SETS:
                return self.table.put(c, positional_need(c, self.limit))
            room = bytes(lim - v for v, lim in zip(c, self.limit, strict=True))
        elif self.section is Section.SUIT:
            # a common suit key: solved ahead of time (see ``section_table``)
            found = stored_need(canonical(Section.SUIT, c)[0])
            if found is not None:
                return self.table.put(c, found)
        res = self.table.put(c, solve_need(self.section, c, room, self._search))
        # the search memo holds sub-keys that are rarely asked again at the top
        if len(self._search) > 200_000:
            self._search.clear()
        return res

    def __len__(self) -> int:
        return len(self.table)


_NEED_TABLES: dict[tuple[Section, bytes | None], NeedTable] = {}


def need_table(section: Section, limit: bytes | None = None) -> NeedTable:
    key = (section, limit)
    t = _NEED_TABLES.get(key)
    if t is None:
        t = _NEED_TABLES[key] = NeedTable(section, limit)
    return t


# --- usable tables (shanten) -------------------------------------------------------------

# usable[g * 2 + p] = most natural tiles placed in g sets (0–4) and p pairs (0–1).
Usable = tuple[int, ...]
_NEG = -100


def solve_usable(
    section: Section, c: bytes, memo: dict[bytes, Usable], table: bool = True
) -> Usable:
    """usable(c) by search, on ``memo``; with ``table``, a stored suit key (see
    ``section_table``) ends the search there (building that table searches without it)."""
    hit = memo.get(c)
    if hit is not None:
        return hit
    key = canonical(section, c)[0]
    if key != c:
        # many keys share one canonical key (sub-keys too): solve that one once
        hit = memo[c] = memo.get(key) or solve_usable(section, key, memo, table)
        return hit
    if table and section is Section.SUIT:
        found = stored(key)
        if found is not None:
            hit = memo[key] = found[0]
            return hit
    i = next((k for k, v in enumerate(c) if v), -1)
    if i < 0:
        res: Usable = (0,) * 10
        memo[c] = res
        return res
    # drop one tile i (it is not used)
    dropped = bytearray(c)
    dropped[i] -= 1
    best = list(solve_usable(section, bytes(dropped), memo, table))
    for gtype, pos in SHAPES[section][i]:
        step = consume(c, pos, None)
        if step is None:  # pragma: no cover - no room rule here
            continue
        rest, added, _ = step
        used = len(pos) - added
        sub = solve_usable(section, rest, memo, table)
        if gtype is GroupType.PAIR:
            for g in range(5):
                v = sub[g * 2] + used
                if v > best[g * 2 + 1]:
                    best[g * 2 + 1] = v
        else:
            for g in range(1, 5):
                for p in range(2):
                    v = sub[(g - 1) * 2 + p] + used
                    if v > best[g * 2 + p]:
                        best[g * 2 + p] = v
    res = tuple(best)
    memo[c] = res
    return res


_USABLE_MEMO: dict[Section, BoundedMemo[bytes, Usable]] = {
    s: BoundedMemo(_MEMOS, f"usable/{s.name.lower()}", TABLE_LIMIT) for s in Section
}


# a suit's place maps: [lo][hi] -> (shifted to start at 0, mirrored) for tiles in lo..hi
_SHIFTS = tuple(
    tuple(
        (
            tuple(i - lo if lo <= i <= hi else -1 for i in range(9)),
            tuple(hi - i if lo <= i <= hi else -1 for i in range(9)),
        )
        for hi in range(9)
    )
    for lo in range(9)
)
_NOWHERE = (-1,) * 9
_PADS = tuple(bytes(n) for n in range(10))


def canonical(section: Section, c: bytes) -> tuple[bytes, tuple[int, ...]]:
    """A key with the same usable vector as ``c``, shared by many keys, and where each of
    c's positions went in it (-1: none held there; a suit maps the empty positions between
    its tiles too, to empty ones).

    A suit's groups only care how far apart its tiles are: a chow window fits anywhere
    inside 1–9 whatever the tiles' place, so a suit shifts to start at 1 and reads the
    way that sorts first (9–1 mirrors 1–9). Honors form pungs and pairs only, so their
    counts sort; with honor sets the winds sort among themselves and the dragons too.
    """
    size = len(c)
    if section is Section.SUIT:
        run = c.strip(b"\0")
        if not run:
            return c, _NOWHERE
        lo = size - len(c.lstrip(b"\0"))
        back = run[::-1]
        pad = _PADS[size - len(run)]
        if back < run:
            return back + pad, _SHIFTS[lo][lo + len(run) - 1][1]
        return run + pad, _SHIFTS[lo][lo + len(run) - 1][0]
    groups = ((0, 1, 2, 3), (4, 5, 6)) if section is Section.HONOR_SETS else (tuple(range(7)),)
    out = bytearray(size)
    where = [-1] * size
    for group in groups:
        # most tiles first, then by position: a fixed order, so the map is well defined
        ranked = sorted(group, key=lambda i: (-c[i], i))
        for slot, i in zip(group, ranked, strict=True):
            out[slot] = c[i]
            if c[i]:
                where[i] = slot
    return bytes(out), tuple(where)


def usable(section: Section, c: bytes) -> Usable:
    memo = _USABLE_MEMO[section]
    hit = memo.get(c)
    if hit is None:
        memo.make_room()
        hit = solve_usable(section, c, memo)
    return hit


def table_sizes() -> dict[str, int]:
    """How many keys each memoised table holds (for the benchmark and diagnostics)."""
    out = {
        f"need/{s.name.lower()}/{'cap' if lim else 'free'}": len(t)
        for (s, lim), t in _NEED_TABLES.items()
    }
    out.update({f"usable/{s.name.lower()}": len(m) for s, m in _USABLE_MEMO.items()})
    return out


def clear_tables() -> None:
    """Forget every memoised key (the benchmark measures cold start with it)."""
    for t in _NEED_TABLES.values():
        t.table.clear()
        t.plus.clear()
        t._search.clear()
    for m in _USABLE_MEMO.values():
        m.clear()
