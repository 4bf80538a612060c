"""analyze: every distinct reading of a winning hand.

A reading is built in two steps. First its *structure*: the groups as the kinds they stand
for (standard groups each hold at least one natural tile; the leftover wildcards form
pungs/a pair of a wildcard kind). Then the *assignment*: which positions the wildcards
fill. Natural tiles fill their kind's positions; as many wildcards as possible stand for
their own kind (精还原, not counted as used); ``Group.wild`` marks the rest. So a reading is
identified by its shape and structure, and its flags follow from them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations_with_replacement
from operator import sub

from engine.analysis.special import (
    MAX_EXT,
    gangda_kongs,
    gangda_structure,
    jiulian_target,
    natural_lan,
    quanfeng_win,
    shisanlan_target,
    shisanyao_target,
    sicaishen_win,
    suit_masks,
    xiaoqi_layouts,
)
from engine.analysis.standard import enumerate_standard, meld_counts
from engine.analysis.win import DEFAULT_OPTIONS, split_wild
from engine.hand import Group, GroupType, Meld, MeldType, Reading, Shape, ShapeOptions
from engine.tiles import counts_of

Structure = list[tuple[GroupType, tuple[int, ...]]]
_JINGDIAO_SHAPES = frozenset({Shape.PINGHU, Shape.DAQI, Shape.XIAOQI})
_SINGLE_SHAPES = (Shape.SHISANLAN, Shape.QIXING_SHISANLAN)
_PAIRS_SHAPES = (Shape.XIAOQI, Shape.GANGDA)  # pairs, none of them "the" pair


def meld_group(m: Meld) -> Group:
    kinds = tuple(sorted(m.kinds))
    if m.type.is_kong:
        gtype = GroupType.KONG
    elif m.type is MeldType.CHOW:
        gtype = GroupType.CHOW
    else:
        gtype = GroupType.PUNG
    return Group(gtype, kinds, (False,) * len(kinds), melded=True)


class _Hand:
    """What every reading of one hand shares."""

    def __init__(
        self,
        concealed: Sequence[int],
        melds: Sequence[Meld],
        wild: frozenset[int],
        options: ShapeOptions,
        winning_kind: int | None,
    ) -> None:
        self.counts = counts_of(concealed)
        self.nat, self.w = split_wild(self.counts, wild)
        self.wild = wild
        self.tiles: dict[int, int] = {k: self.counts[k] for k in sorted(wild) if self.counts[k]}
        self.options = options
        self.melds = melds
        self.meld_groups = tuple(meld_group(m) for m in melds)
        mc = meld_counts(melds)
        self.limit: list[int] | None = None if options.fifth_copy else [4 - v for v in mc]
        self.winning_kind = winning_kind
        self.out: dict[tuple[Shape, tuple[Group, ...]], Reading] = {}

    # -- leftover wildcards --------------------------------------------------------------

    def all_wild(self, positions: Sequence[int], pungs: int, pairs: int) -> Structure | None:
        """Kinds for the groups made only of wildcards: wildcard kinds, as many standing for
        themselves as possible (then the smallest kinds); any kind with room as a fallback."""
        if not pungs and not pairs:
            return []
        best: tuple[int, tuple[int, ...], tuple[int, ...]] | None = None
        cands = list(self.tiles)
        for ps in combinations_with_replacement(cands, pungs):
            for qs in combinations_with_replacement(cands, pairs):
                add: dict[int, int] = {}
                for k in ps:
                    add[k] = add.get(k, 0) + 3
                for k in qs:
                    add[k] = add.get(k, 0) + 2
                if self.limit is not None and any(
                    positions[k] + v > self.limit[k] for k, v in add.items()
                ):
                    continue
                ss = sum(min(a, positions[w] + add.get(w, 0)) for w, a in self.tiles.items())
                if best is None or ss > best[0]:
                    best = (ss, ps, qs)
        if best is None:
            return self._all_wild_fallback(positions, pungs, pairs)
        return [(GroupType.PUNG, (k, k, k)) for k in best[1]] + [
            (GroupType.PAIR, (k, k)) for k in best[2]
        ]

    def _all_wild_fallback(self, positions: Sequence[int], pungs: int, pairs: int) -> Structure:
        used = list(positions)
        out: Structure = []
        for size, gtype, n in ((3, GroupType.PUNG, pungs), (2, GroupType.PAIR, pairs)):
            for _ in range(n):
                k = next(
                    k for k in range(34) if self.limit is None or used[k] + size <= self.limit[k]
                )
                used[k] += size
                out.append((gtype, (k,) * size))
        return out

    # -- assignment ----------------------------------------------------------------------

    def add(self, shape: Shape, structure: Structure) -> None:
        """Assign the tiles of one structure and record its reading(s)."""
        positions = [0] * 34
        for _, kinds in structure:
            for k in kinds:
                positions[k] += 1
        filled = list(map(sub, positions, self.nat))
        if min(filled) < 0 or sum(filled) != self.w:  # pragma: no cover - enumerator bug
            raise AssertionError(f"structure does not cover the hand: {structure}")
        marks, used = self._marks(filled, self.tiles)
        diao = self._jingdiao(shape, structure, filled)
        if diao is None:
            self._record(shape, structure, positions, marks, used, None, 0)
            return
        d_marks, d_used, pair_index, pair_marks = diao
        if d_used > used:
            # standing the winning jing in the pair costs one 精还原: both readings exist
            self._record(shape, structure, positions, marks, used, None, 0)
        self._record(shape, structure, positions, d_marks, d_used, pair_index, pair_marks)

    def _marks(self, filled: Sequence[int], tiles: Mapping[int, int]) -> tuple[list[int], int]:
        """Per kind, how many wild-filled positions stand for another kind; total used."""
        marks = list(filled)
        for w, a in tiles.items():
            marks[w] -= min(a, filled[w])
        return marks, sum(marks)

    def _jingdiao(
        self, shape: Shape, structure: Structure, filled: Sequence[int]
    ) -> tuple[list[int], int, int, int] | None:
        """(marks, used, pair index, marks the pair takes) of the cheapest 精吊 assignment."""
        win = self.winning_kind
        if win is None or not self.w or shape not in _JINGDIAO_SHAPES:
            return None
        best: tuple[list[int], int, int, int] | None = None
        for idx, (gtype, kinds) in enumerate(structure):
            if gtype is not GroupType.PAIR:
                continue
            p = kinds[0]
            if win not in self.wild:
                # the natural winning tile pairs with a wildcard standing for it
                if filled[p] < 1 or p != win:
                    continue
                marks, used = self._marks(filled, self.tiles)
                cand = (marks, used, idx, 1)
            else:
                # the winning jing and another wildcard make the pair
                if filled[p] < 2:
                    continue
                if p == win:
                    marks, used = self._marks(filled, self.tiles)
                else:
                    rest = dict(self.tiles)
                    rest[win] -= 1
                    f2 = list(filled)
                    f2[p] -= 1
                    marks, used = self._marks(f2, rest)
                    marks[p] += 1
                    used += 1
                cand = (marks, used, idx, 2)
            if best is None or cand[1] < best[1]:
                best = cand
        return best

    def _record(
        self,
        shape: Shape,
        structure: Structure,
        positions: Sequence[int],
        marks: Sequence[int],
        used: int,
        pair_index: int | None,
        pair_marks: int,
    ) -> None:
        if used == 0 and pair_index is None:
            # no wildcard stands for another kind (every hand without one, every 德国
            # reading): every position is natural, nothing to assign
            groups = [Group(gtype, kinds, (False,) * len(kinds)) for gtype, kinds in structure]
        else:
            groups = self._assign(structure, positions, marks, pair_index, pair_marks)
        pair = groups[pair_index] if pair_index is not None else None
        if pair is None and shape not in _PAIRS_SHAPES:
            pair = next((g for g in groups if g.type is GroupType.PAIR), None)
        ordered = sorted(groups, key=_group_order) + list(self.meld_groups)
        reading = Reading(
            shape=shape,
            groups=tuple(ordered),
            pair=pair,
            wildcards_used=used,
            deguo=bool(self.wild) and used == 0,
            jingdiao=pair_index is not None,
            winning_kind=self.winning_kind,
        )
        key = (shape, reading.groups)
        old = self.out.get(key)
        if old is None or (reading.jingdiao and not old.jingdiao):
            self.out[key] = reading

    def _assign(
        self,
        structure: Structure,
        positions: Sequence[int],
        marks: Sequence[int],
        pair_index: int | None,
        pair_marks: int,
    ) -> list[Group]:
        """The groups with the positions their wildcards fill (``marks`` per kind)."""
        # positions of each kind taken by natural tiles (or wildcards as themselves)
        natural = list(map(sub, positions, marks))
        flags: list[list[bool]] = [[False] * len(kinds) for _, kinds in structure]
        order = list(range(len(structure)))
        if pair_index is not None:
            # the 精吊 pair takes its wildcards first
            marks_left = list(marks)
            kinds = structure[pair_index][1]
            for j, k in enumerate(kinds):
                if pair_marks and marks_left[k]:
                    flags[pair_index][j] = True
                    marks_left[k] -= 1
                    pair_marks -= 1
                else:
                    natural[k] -= 1
            order.remove(pair_index)
        # every group first gets one natural where possible (a small matching), then the
        # rest; the matching takes at most one position a group
        taken = [-1] * len(structure)
        for i, j in _one_natural_each([structure[i][1] for i in order], natural):
            taken[order[i]] = j
        for i in order:
            t = taken[i]
            fl = flags[i]
            for j, k in enumerate(structure[i][1]):
                if j == t:
                    continue
                if natural[k]:
                    natural[k] -= 1
                else:
                    fl[j] = True
        return [
            Group(gtype, kinds, tuple(fl))
            for (gtype, kinds), fl in zip(structure, flags, strict=True)
        ]

    # -- shapes --------------------------------------------------------------------------

    def standard(self) -> None:
        shapes = self.options.shapes
        melds_pungs = all(m.type is not MeldType.CHOW for m in self.melds)
        for groups, leftover, has_pair in enumerate_standard(
            self.nat, self.w, self.options, self.melds
        ):
            all_pungs = melds_pungs and all(
                g in (GroupType.PUNG, GroupType.PAIR) for g, _ in groups
            )
            if all_pungs and Shape.DAQI in shapes:
                shape = Shape.DAQI
            elif Shape.PINGHU in shapes:
                shape = Shape.PINGHU
            else:
                continue
            positions = _positions(groups)
            pungs = leftover // 3 if has_pair else (leftover - 2) // 3
            extra = self.all_wild(positions, pungs, 0 if has_pair else 1)
            if extra is None:  # pragma: no cover - fallback always finds room
                continue
            self.add(shape, groups + extra)
            if not has_pair:
                self._winning_pair(shape, groups, positions, pungs)

    def _winning_pair(
        self, shape: Shape, groups: Structure, positions: list[int], pungs: int
    ) -> None:
        """The wildcard-only pair as the natural winning tile's kind, for 精吊.

        A structure's groups take the naturals wherever they can, so the winning tile sits in
        a set and the pair is left to two wildcards, which ``all_wild`` makes a wildcard
        kind (精还原). The same tiles also read as the winning tile paired with a wildcard
        while another wildcard takes its place in the set: a 精吊 reading of its own.
        """
        win = self.winning_kind
        if win is None or win in self.wild or shape not in _JINGDIAO_SHAPES:
            return
        if self.limit is not None and positions[win] + 2 > self.limit[win]:
            return
        with_pair = list(positions)
        with_pair[win] += 2
        extra = self.all_wild(with_pair, pungs, 0)
        if extra is not None:
            self.add(shape, [*groups, *extra, (GroupType.PAIR, (win, win))])

    def xiaoqi(self) -> None:
        for x in xiaoqi_layouts(self.nat, self.w, self.limit):
            groups: Structure = []
            for k in range(34):
                n = self.nat[k]
                if not n:
                    continue
                groups.extend([(GroupType.PAIR, (k, k))] * ((n - x[k]) // 2 + x[k]))
            left = self.w - sum(x)
            extra = self.all_wild(_positions(groups), 0, left // 2)
            if extra is not None:
                self.add(Shape.XIAOQI, groups + extra)

    def shisanlan(self) -> None:
        opts = self.options
        shapes = opts.shapes
        want_q = Shape.QIXING_SHISANLAN in shapes
        want_p = Shape.SHISANLAN in shapes
        honors_ok = opts.wild_for_qixing_honor or not any(k >= 27 for k in self.wild)
        if not self.w or not opts.wild_in_shisanlan:
            # every wildcard as itself
            if not natural_lan(self.counts):
                return
            kinds = [k for k in range(34) if self.counts[k]]
            if want_q and honors_ok and all(self.counts[27:34]):
                self._singles(Shape.QIXING_SHISANLAN, kinds)
            elif want_p:
                self._singles(Shape.SHISANLAN, kinds)
            return
        if max(self.nat) > 1 or not _lan_room(self.nat):
            return  # neither target exists: most hands, found without the search
        q = (
            shisanlan_target(self.nat, self.tiles, True, opts.wild_for_qixing_honor)
            if want_q
            else None
        )
        if q is not None:
            self._singles(Shape.QIXING_SHISANLAN, q)
        if want_p:
            p = shisanlan_target(self.nat, self.tiles, False, True)
            if p is not None and (q is None or _self_count(p, self) > _self_count(q, self)):
                self._singles(Shape.SHISANLAN, p)

    def _singles(self, shape: Shape, kinds: Sequence[int]) -> None:
        self.add(shape, [(GroupType.SINGLE, (k,)) for k in kinds])

    def shisanyao(self) -> None:
        target = shisanyao_target(self.nat, self.tiles)
        if target is None:
            return
        pair = next(k for k in target if target.count(k) == 2)
        groups: Structure = [(GroupType.SINGLE, (k,)) for k in sorted(set(target)) if k != pair]
        self.add(Shape.SHISANYAO, [*groups, (GroupType.PAIR, (pair, pair))])

    def jiulian(self) -> None:
        target = jiulian_target(self.nat, self.w, self.tiles, self.limit)
        if target is None:
            return
        groups = _decompose(counts_of(target))
        if groups is not None:
            self.add(Shape.JIULIAN, groups)

    def quanfeng(self) -> None:
        if not quanfeng_win(self.nat, all(m.kinds[0] >= 27 for m in self.melds)):
            return
        used = [0] * 34
        for g in self.meld_groups:
            for k in g.kinds:
                used[k] += 1
        kinds: list[int] = []
        for k in range(27, 34):
            kinds.extend([k] * self.counts[k])
            used[k] += self.counts[k]
        for k in range(27):
            for _ in range(self.counts[k]):  # a suited wildcard stands for an honor
                h = min(range(27, 34), key=lambda x: (used[x], x))
                used[h] += 1
                kinds.append(h)
        self._singles(Shape.QUANFENG, sorted(kinds))

    def gangda(self) -> None:
        kongs = gangda_kongs(self.melds)
        found = gangda_structure(self.nat, self.tiles, kongs) if kongs else None
        if found is not None:
            self.add(
                Shape.GANGDA,
                [(GroupType.PAIR if len(g) == 2 else GroupType.SINGLE, g) for g in found],
            )

    def sicaishen(self) -> None:
        if sicaishen_win(self.counts, self.wild):
            kinds = [k for k in range(34) for _ in range(self.counts[k])]
            self._singles(Shape.SICAISHEN, kinds)


def _one_natural_each(groups: list[tuple[int, ...]], natural: list[int]) -> list[tuple[int, int]]:
    """(group, position) picks giving as many groups as possible one natural tile each;
    ``natural`` is reduced by the picks."""
    # the search's first path: each group takes its first kind with a natural left. When
    # that gives every group one, the search below would stop on it, so it is the answer.
    greedy: list[tuple[int, int]] = []
    for g, kinds in enumerate(groups):
        for j, k in enumerate(kinds):
            if natural[k]:
                natural[k] -= 1
                greedy.append((g, j))
                break
        else:
            for g2, j2 in greedy:  # undo: the full search starts from the same counts
                natural[groups[g2][j2]] += 1
            break
    else:
        return greedy
    best: list[tuple[int, int]] = []
    picks: list[tuple[int, int]] = []

    def rec(g: int) -> bool:
        nonlocal best
        if len(picks) + (len(groups) - g) <= len(best):
            return False
        if g == len(groups):
            best = list(picks)
            return len(best) == len(groups)
        seen: set[int] = set()
        for j, k in enumerate(groups[g]):
            if natural[k] and k not in seen:
                seen.add(k)
                natural[k] -= 1
                picks.append((g, j))
                done = rec(g + 1)
                picks.pop()
                natural[k] += 1
                if done:
                    return True
        return rec(g + 1)

    rec(0)
    for g, j in best:
        natural[groups[g][j]] -= 1
    return best


def _lan_room(nat: Sequence[int]) -> bool:
    """Whether the naturals (none doubled) leave room for a 十三烂 target: each suit's
    spaced, and the suits' widest spaced sets plus the 7 honors reach 14 kinds."""
    masks = suit_masks(nat)
    if masks is None:  # pragma: no cover - no kind is doubled
        return False
    ext = [MAX_EXT[m] for m in masks]
    return min(ext) >= 0 and sum(ext) + 7 >= 14


def _self_count(target: Sequence[int], hand: _Hand) -> int:
    return sum(1 for k in target if not hand.nat[k] and hand.tiles.get(k, 0))


def _positions(groups: Structure) -> list[int]:
    positions = [0] * 34
    for _, kinds in groups:
        for k in kinds:
            positions[k] += 1
    return positions


def _group_order(g: Group) -> tuple[bool, tuple[int, ...], str, tuple[bool, ...]]:
    # GroupType is a StrEnum: the member orders as its value
    return (g.type is GroupType.PAIR, g.kinds, g.type, g.wild)


def _decompose(counts: list[int]) -> Structure | None:
    """One natural decomposition into sets + a pair (used for 九莲's groups)."""

    def rec(c: list[int], pair: bool) -> Structure | None:
        i = next((k for k in range(34) if c[k]), -1)
        if i < 0:
            return [] if pair else None
        if c[i] >= 3:
            c[i] -= 3
            r = rec(c, pair)
            c[i] += 3
            if r is not None:
                return [(GroupType.PUNG, (i, i, i)), *r]
        if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            for d in range(3):
                c[i + d] -= 1
            r = rec(c, pair)
            for d in range(3):
                c[i + d] += 1
            if r is not None:
                return [(GroupType.CHOW, (i, i + 1, i + 2)), *r]
        if not pair and c[i] >= 2:
            c[i] -= 2
            r = rec(c, True)
            c[i] += 2
            if r is not None:
                return [(GroupType.PAIR, (i, i)), *r]
        return None

    return rec(list(counts), False)


def analyze(
    concealed: Sequence[int],
    melds: Sequence[Meld] = (),
    wild: frozenset[int] = frozenset(),
    options: ShapeOptions = DEFAULT_OPTIONS,
    winning_kind: int | None = None,
) -> list[Reading]:
    """Every distinct reading of the hand (empty if it does not win).

    ``concealed`` holds the concealed kinds, the winning tile included; ``winning_kind``
    (one of them) enables the 精吊 test.
    """
    if len(concealed) + 3 * len(melds) != 14:
        return []
    if winning_kind is not None and winning_kind not in concealed:
        raise ValueError("the winning tile must be one of the concealed tiles")
    hand = _Hand(concealed, melds, wild, options, winning_kind)
    shapes = options.shapes
    if Shape.PINGHU in shapes or Shape.DAQI in shapes:
        hand.standard()
    if Shape.SICAISHEN in shapes:
        hand.sicaishen()
    if Shape.QUANFENG in shapes:
        hand.quanfeng()
    if Shape.GANGDA in shapes and melds:
        hand.gangda()
    if not melds:
        if Shape.XIAOQI in shapes:
            hand.xiaoqi()
        if any(s in shapes for s in _SINGLE_SHAPES):
            hand.shisanlan()
        if Shape.SHISANYAO in shapes:
            hand.shisanyao()
        if Shape.JIULIAN in shapes:
            hand.jiulian()
    return sorted(hand.out.values(), key=_reading_order)


def _reading_order(r: Reading) -> tuple[str, int, bool, tuple[tuple[int, ...], ...]]:
    return (r.shape.value, r.wildcards_used, not r.jingdiao, tuple(g.kinds for g in r.groups))
