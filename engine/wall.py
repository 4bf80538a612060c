"""The wall: 68 墩 in a ring, the break from the dice, dealing with 跳庄, draws from the head,
kong replacements from the tail, 翻精 / 财神 / 下精, and exhaustion (流局).

Pure: the dice values are inputs, nothing here rolls, reads a clock or does I/O.

Geometry
========
Seats 0–3 are absolute (the table's four places), numbered in play order: play passes
counterclockwise seen from above, and seat ``s``'s 下家 is ``(s + 1) % 4``. The dealer of a
hand is a parameter, not seat 0.

Each seat builds 17 墩 in front of it. The 68 墩 form a ring in **clockwise** order seen from
above. Along one seat's wall, clockwise runs from that seat's right end to its left end (the
seeds' "从右向左数"; the seeds, the rule sources, are described in
``docs/rules/README.md#sources``), and past a wall's left end the ring continues onto the
right end of the wall of that seat's 上家. So the ring holds::

    ring stacks  0–16  seat 0's wall   (stack 0 = seat 0's right end, 16 = its left end)
    ring stacks 17–33  seat 3's wall
    ring stacks 34–50  seat 2's wall
    ring stacks 51–67  seat 1's wall   (stack 67 is followed by stack 0)

Counting "the n-th 墩 from the right end" of a wall is 1-based (the seeds count that way); a
count beyond 17 continues clockwise onto the next wall (:func:`ring_stack`).

Positions: ring stack ``i``'s top tile is **position** ``2 * i``, its bottom tile is
``2 * i + 1``. A wall order (what a reader in the lift reports) is a list of 136 distinct
tile ids indexed by position; it does not depend on the dice.

Draws start at the break and move clockwise, each 墩 giving its top tile then its bottom
tile. The tail is the other side of the break: kong replacements (补牌) start at the 墩 just
counterclockwise of the break and move counterclockwise, top tile first.

Decisions (each also noted where it is implemented)
===================================================
- Where drawing starts (AT the counted 墩 or AFTER it) is :class:`StartAt`, a parameter with a
  per-procedure default that follows the seed's words.
- 跳庄: the dealer takes the 1st and 3rd tile of what follows the three rounds (the tops of the
  next two 墩), per ``docs/rules/common.md#the-wall-and-the-deal`` and seed 002
  ("由庄家拿第1张和第3张牌"); the reading "the tops of
  the 1st and 3rd 墩" (001's "隔一墩") is available as :attr:`JumpStyle.TOPS_OF_STACKS_1_3`.
- A flipped tile that is not in play blocks the head (draws stop when they reach it) and is
  skipped by replacements, which take the tile under it and then go on counterclockwise to
  the next 墩 (and, if there are that many kongs, on past it into the live wall).
- Exhaustion is one rule for every ruleset: the head cannot draw a taken tile, a flipped
  tile that is not in play, or a tile in the reserve, which is a fixed set of
  ``reserve_stacks`` 墩 counted from the original tail (yongfeng 17, others 0).
- Counting 墩 "from the tail" counts only 墩 that still hold a face-down tile in the wall,
  starting from the current tail; the tile turned up is the uppermost face-down one.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

from engine.errors import EngineError
from engine.tiles import NUM_TILES, kind_of, successor

NUM_SEATS = 4
WALL_STACKS = 17
RING_STACKS = NUM_SEATS * WALL_STACKS  # 68
DEAL_ROUNDS = 3
STACKS_PER_TAKE = 2
CAISHEN_COUNT = 7  # chongji: the 7th 墩 from the left end of the next player's wall


class WallError(EngineError, ValueError):
    """A wall, a roll or a move on the wall that cannot be: a die that is not 1–6, a flip
    the rules do not have or that was made already, a draw from an exhausted wall."""


__all__ = [
    "CAISHEN_COUNT",
    "NUM_SEATS",
    "RING_STACKS",
    "WALL_STACKS",
    "Break",
    "BreakProcedure",
    "Deal",
    "Dice",
    "Draw",
    "End",
    "Flip",
    "FlipKind",
    "FlipPurpose",
    "JumpStyle",
    "StartAt",
    "Wall",
    "WallError",
    "WallRules",
    "bottom_position",
    "break_position",
    "count_seat",
    "default_start",
    "order_from_draw_sequence",
    "ring_stack",
    "ring_stack_from_left",
    "second_roller",
    "top_position",
    "wall_place",
]


# ---------------------------------------------------------------------------
# Geometry


def _check_seat(seat: int, what: str = "seat") -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < NUM_SEATS:
        raise WallError(f"{what} {seat!r} is not a seat 0–3")


def ring_stack(owner: int, n: int) -> int:
    """Ring index of the ``n``-th 墩 (1-based) counted from the right end of ``owner``'s wall.

    ``n`` above 17 continues clockwise onto the next wall (that of ``owner``'s 上家).
    """
    _check_seat(owner, "wall owner")
    if n < 1:
        raise WallError(f"墩 count {n} must be at least 1")
    base = ((NUM_SEATS - owner) % NUM_SEATS) * WALL_STACKS
    return (base + n - 1) % RING_STACKS


def ring_stack_from_left(owner: int, n: int) -> int:
    """Ring index of the ``n``-th 墩 (1-based, 1–17) counted from the left end of a wall."""
    if not 1 <= n <= WALL_STACKS:
        raise WallError(f"墩 count from the left end must be 1–17, got {n}")
    return ring_stack(owner, WALL_STACKS + 1 - n)


def wall_place(stack: int) -> tuple[int, int]:
    """Inverse of :func:`ring_stack`: ``(owner, n)`` with ``n`` 1–17 from the right end."""
    if not 0 <= stack < RING_STACKS:
        raise WallError(f"ring stack {stack} is outside 0–67")
    block, offset = divmod(stack, WALL_STACKS)
    return (NUM_SEATS - block) % NUM_SEATS, offset + 1


def top_position(stack: int) -> int:
    return 2 * (stack % RING_STACKS)


def bottom_position(stack: int) -> int:
    return 2 * (stack % RING_STACKS) + 1


def count_seat(start: int, n: int) -> int:
    """Count ``n`` seats counterclockwise (in play order) with ``start`` itself as 1."""
    _check_seat(start)
    if n < 1:
        raise WallError(f"seat count {n} must be at least 1")
    return (start + n - 1) % NUM_SEATS


# ---------------------------------------------------------------------------
# Dice and the break


@dataclass(frozen=True, slots=True)
class Dice:
    """One roll of two dice, each 1–6."""

    a: int
    b: int

    def __post_init__(self) -> None:
        for v in (self.a, self.b):
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 6:
                raise WallError(f"a die shows 1–6, got {v!r}")

    @property
    def total(self) -> int:
        return self.a + self.b

    @property
    def high(self) -> int:
        return max(self.a, self.b)

    @property
    def low(self) -> int:
        return min(self.a, self.b)


class StartAt(enum.Enum):
    """Whether drawing starts AT the counted 墩, or AFTER it (the count is 墩 left behind)."""

    AT = "at"
    AFTER = "after"


class BreakProcedure(enum.Enum):
    """How the dice choose the break. Named by what they do, not by ruleset.

    - ``HIGH_DIE_SEAT_LOW_DIE_PLUS_ONE`` (jian): the dealer rolls; the larger die counts
      seats from the dealer (dealer = 1) to choose the wall; the smaller die + 1 counts 墩
      from that wall's right end; drawing starts AT that 墩 ("与点数一致的那一蹲牌由庄家开始抓牌").
    - ``TWO_ROLLS_TOTAL_LEFT`` (yongfeng; the default for xingguo and nanchang, whose seeds
      give no procedure): the dealer's sum counted from the dealer picks a wall; its owner
      rolls again; the sum of both rolls is the number of 墩 left at the right end of that
      wall ("决定抓牌处留几码牌"), drawing starts AFTER them. Past 17 the count continues onto
      the next wall clockwise.
    - ``TWO_ROLLS_SECOND_SUM`` (lianhua): as above, but the second roll's sum alone counts
      墩 right to left on the second roller's wall, and drawing starts AT that 墩
      ("从第二个掷骰子的玩家门前牌墙从右向左数数到与点数相同的那一墩";
      ``docs/rules/jing-family.md#lianhua``: "drawing starts at that 墩").
    - ``SUM_SEAT_LOW_DIE_PLUS_ONE`` (chongji): one roll; the sum counted from the roller
      picks the wall; the smaller die + 1 gives the 墩 where the wall opens, and drawing
      starts AT it ("开牌位置以数字小的骰子为准，3+1，即第4墩").
    - ``SUM_SEAT_SUM_STACKS`` (yichun, guangdong): one roll; the sum counted from the dealer
      picks the wall and counts 墩 from its right end; drawing starts AFTER that 墩 (seed
      002: "点数为几则从第几墩后开始拿牌"; guangdong's seed gives no procedure and follows it).
    """

    HIGH_DIE_SEAT_LOW_DIE_PLUS_ONE = "high_die_seat_low_die_plus_one"
    TWO_ROLLS_TOTAL_LEFT = "two_rolls_total_left"
    TWO_ROLLS_SECOND_SUM = "two_rolls_second_sum"
    SUM_SEAT_LOW_DIE_PLUS_ONE = "sum_seat_low_die_plus_one"
    SUM_SEAT_SUM_STACKS = "sum_seat_sum_stacks"

    @property
    def rolls(self) -> int:
        """How many rolls the procedure needs (1 or 2)."""
        if self in (BreakProcedure.TWO_ROLLS_TOTAL_LEFT, BreakProcedure.TWO_ROLLS_SECOND_SUM):
            return 2
        return 1


_DEFAULT_START: Mapping[BreakProcedure, StartAt] = MappingProxyType(
    {
        BreakProcedure.HIGH_DIE_SEAT_LOW_DIE_PLUS_ONE: StartAt.AT,
        BreakProcedure.TWO_ROLLS_TOTAL_LEFT: StartAt.AFTER,
        BreakProcedure.TWO_ROLLS_SECOND_SUM: StartAt.AT,
        BreakProcedure.SUM_SEAT_LOW_DIE_PLUS_ONE: StartAt.AT,
        BreakProcedure.SUM_SEAT_SUM_STACKS: StartAt.AFTER,
    }
)


def default_start(procedure: BreakProcedure) -> StartAt:
    """Where drawing starts relative to the counted 墩, as the procedure's seed words it."""
    return _DEFAULT_START[procedure]


def _wall_owner(procedure: BreakProcedure, dealer: int, first: Dice) -> int:
    if procedure is BreakProcedure.HIGH_DIE_SEAT_LOW_DIE_PLUS_ONE:
        return count_seat(dealer, first.high)
    return count_seat(dealer, first.total)


def second_roller(procedure: BreakProcedure, dealer: int, first: Dice) -> int | None:
    """The seat that rolls second (two-roll procedures), or None: who to ask for the roll."""
    _check_seat(dealer, "dealer")
    if procedure.rolls == 1:
        return None
    return _wall_owner(procedure, dealer, first)


@dataclass(frozen=True, slots=True)
class Break:
    """Where the wall opens.

    ``wall_owner`` is the seat whose wall was counted; ``count`` the 墩 counted from its right
    end; ``stack`` the ring stack where drawing starts (the head's first 墩). The tail's
    first 墩 is ``(stack - 1) % 68``.
    """

    procedure: BreakProcedure
    dealer: int
    first: Dice
    second: Dice | None
    wall_owner: int
    count: int
    start: StartAt
    stack: int

    @property
    def second_roller(self) -> int | None:
        return self.wall_owner if self.second is not None else None


def break_position(
    procedure: BreakProcedure,
    dealer: int,
    first: Dice,
    second: Dice | None = None,
    start: StartAt | None = None,
) -> Break:
    """Apply a break procedure to the dice. ``start`` overrides the procedure's default."""
    _check_seat(dealer, "dealer")
    if procedure.rolls == 2 and second is None:
        raise WallError(f"{procedure.value} needs a second roll")
    if procedure.rolls == 1 and second is not None:
        raise WallError(f"{procedure.value} uses one roll, got a second")
    owner = _wall_owner(procedure, dealer, first)
    if procedure is BreakProcedure.TWO_ROLLS_TOTAL_LEFT:
        assert second is not None
        count = first.total + second.total
    elif procedure is BreakProcedure.TWO_ROLLS_SECOND_SUM:
        assert second is not None
        count = second.total
    elif procedure is BreakProcedure.SUM_SEAT_SUM_STACKS:
        count = first.total
    else:
        count = first.low + 1
    start = default_start(procedure) if start is None else start
    n = count if start is StartAt.AT else count + 1
    return Break(
        procedure=procedure,
        dealer=dealer,
        first=first,
        second=second,
        wall_owner=owner,
        count=count,
        start=start,
        stack=ring_stack(owner, n),
    )


# ---------------------------------------------------------------------------
# Per-ruleset wall rules


class FlipKind(enum.Enum):
    """What is turned up after the break: nothing, the 精 (by a dice count from the tail),
    or chongji's 财神 indicator (a fixed count on the next player's wall)."""

    NONE = "none"
    JING = "jing"
    CAISHEN = "caishen"


_NO_FLIP = FlipKind.NONE  # for every draw's check (``FlipKind.NONE`` is slow on Python 3.11)


class JumpStyle(enum.Enum):
    """Which two tiles the dealer takes in the 跳庄 step, of the five that follow the rounds.

    ``TILES_1_3`` (default; ``docs/rules/decisions.md#every-ruleset``, seed 002
    "拿第1张和第3张牌"): the 1st and 3rd tile, i.e.
    the tops of the next two 墩; the others take the 2nd, 4th and 5th.
    ``TOPS_OF_STACKS_1_3`` (a reading of 001's "跳牌(隔一墩)抓上层两牌"): the tops of the 1st
    and 3rd 墩; the others take the 2nd, 3rd and 4th tiles.
    """

    TILES_1_3 = "tiles_1_3"
    TOPS_OF_STACKS_1_3 = "tops_of_stacks_1_3"


@dataclass(frozen=True, slots=True)
class WallRules:
    """The wall-related parameters of a ruleset.

    A ruleset's come from its preset (the ``[table]`` section, plus the flip the family
    turns up): ``engine.rulesets.Ruleset.wall_rules``. Nothing here knows a ruleset by name.

    - ``procedure`` / ``start``: the break (``start`` None = the procedure's default).
    - ``flip`` / ``flip_in_play``: what is turned up, and whether that tile can still be
      drawn and taken by replacements.
    - ``reserve_stacks``: 墩 kept back at the original tail; the head never draws from them.
      The boundary is fixed at the break (replacements eating into the reserve do not move
      it). 0 = play to the last tile (or to a flipped tile that is not in play).
    - ``an_jing``: report the tile under the flipped 精 (lianhua 暗精).
    - ``xia_jing``: a second flip at hand end (yongfeng 下精).
    - ``jump``: the 跳庄 style.
    """

    procedure: BreakProcedure
    flip: FlipKind = FlipKind.NONE
    flip_in_play: bool = True
    reserve_stacks: int = 0
    an_jing: bool = False
    xia_jing: bool = False
    start: StartAt | None = None
    jump: JumpStyle = JumpStyle.TILES_1_3

    def __post_init__(self) -> None:
        if not 0 <= self.reserve_stacks <= 30:
            raise WallError(f"reserve_stacks {self.reserve_stacks} is outside 0–30")
        if self.flip is not FlipKind.JING and (self.an_jing or self.xia_jing):
            raise WallError("an_jing and xia_jing need flip = JING")


# ---------------------------------------------------------------------------
# Results


class End(enum.Enum):
    """Which end of the wall a tile is taken from."""

    HEAD = "head"  # ordinary draws, clockwise from the break
    TAIL = "tail"  # kong replacements, counterclockwise from the break


class Draw(NamedTuple):
    """One tile taken (or about to be taken) from the wall. ``tile`` is None if unknown.

    A named tuple, not a frozen dataclass: a hand makes over a hundred (deal, peeks,
    draws), and a tuple is built in a third of the time."""

    position: int
    tile: int | None

    @property
    def stack(self) -> int:
        return self.position // 2

    @property
    def kind(self) -> int | None:
        return None if self.tile is None else kind_of(self.tile)


# Draw(position, tile) without the named tuple's Python-level __new__: the same tuple,
# built in C (the deal, the peeks and the draws make over a hundred a hand)
_make_draw: Callable[[type[Draw], tuple[int, int | None]], Draw] = tuple.__new__


@dataclass(frozen=True, slots=True)
class Deal:
    """The dealt tiles, per absolute seat, in the order each seat took them."""

    dealer: int
    hands: tuple[tuple[Draw, ...], ...]

    def positions(self, seat: int) -> tuple[int, ...]:
        return tuple(d.position for d in self.hands[seat])

    def tiles(self, seat: int) -> tuple[int | None, ...]:
        return tuple(d.tile for d in self.hands[seat])

    def __iter__(self) -> Iterator[Draw]:
        for hand in self.hands:
            yield from hand


class FlipPurpose(enum.Enum):
    JING = "jing"  # 上精: 正精 = kind, 副精 = successor
    CAISHEN = "caishen"  # chongji: 财神 = successor
    XIA_JING = "xia_jing"  # yongfeng 下精: 下正精 = kind, 下副精 = successor


@dataclass(frozen=True, slots=True)
class Flip:
    """A tile turned face up in the wall.

    ``count``: the 墩 counted (from the tail for 精/下精; 7 from the left for 财神).
    ``under_position`` / ``under_tile``: the other tile of the flipped 墩 when the rules
    report it (lianhua's 暗精). Secret: keeping it hidden is the controller's job.
    """

    purpose: FlipPurpose
    position: int
    tile: int | None
    count: int
    in_play: bool
    under_position: int | None = None
    under_tile: int | None = None

    @property
    def stack(self) -> int:
        return self.position // 2

    @property
    def kind(self) -> int | None:
        return None if self.tile is None else kind_of(self.tile)

    @property
    def under_kind(self) -> int | None:
        return None if self.under_tile is None else kind_of(self.under_tile)


# ---------------------------------------------------------------------------
# Wall order helpers


_ALL_TILES = frozenset(range(NUM_TILES))
_INT_ONLY = frozenset({int})


def _check_order(order: Sequence[int | None]) -> list[int | None]:
    if len(order) != NUM_TILES:
        raise WallError(f"a wall order has {NUM_TILES} entries, got {len(order)}")
    if set(map(type, order)) == _INT_ONLY and set(order) == _ALL_TILES:
        return list(order)  # every tile id once (a shuffle): no error to name
    seen: set[int] = set()
    out: list[int | None] = []
    for pos, tile in enumerate(order):
        if tile is not None:
            if not isinstance(tile, int) or isinstance(tile, bool) or not 0 <= tile < NUM_TILES:
                raise WallError(f"position {pos}: {tile!r} is not a tile id 0–135")
            if tile in seen:
                raise WallError(f"tile {tile} appears twice in the wall order")
            seen.add(tile)
        out.append(tile)
    return out


def ring_position(stack: int, d: int) -> int:
    """Ring position of draw index ``d`` (top, bottom, top, ...) from a break at ``stack``."""
    return 2 * ((stack + d // 2) % RING_STACKS) + d % 2


def order_from_draw_sequence(tiles: Sequence[int], start_stack: int) -> list[int]:
    """Turn tiles listed in draw order from the break (top, bottom, top, …) into a wall order
    indexed by position, given the ring stack where drawing starts."""
    if len(tiles) != NUM_TILES:
        raise WallError(f"a wall has {NUM_TILES} tiles, got {len(tiles)}")
    order = [0] * NUM_TILES
    for d, tile in enumerate(tiles):
        order[ring_position(start_stack, d)] = tile
    _check_order(order)
    return order


# ---------------------------------------------------------------------------
# The wall


@lru_cache(maxsize=1024)
def _deal_layout(stack: int, dealer: int, jump: JumpStyle) -> tuple[tuple[int, ...], ...]:
    """Ring positions of each seat's dealt tiles, in the order it takes them, for a break
    at ``stack`` (the same few hundred layouts serve every hand: worked out once each)."""
    hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
    d = 0
    per_take = 2 * STACKS_PER_TAKE
    for _ in range(DEAL_ROUNDS):
        for k in range(NUM_SEATS):
            hands[(dealer + k) % NUM_SEATS].extend(range(d, d + per_take))
            d += per_take
    if jump is JumpStyle.TILES_1_3:
        dealer_jump, others = (d, d + 2), (d + 1, d + 3, d + 4)
    else:
        dealer_jump, others = (d, d + 4), (d + 1, d + 2, d + 3)
    hands[dealer].extend(dealer_jump)
    for k, di in enumerate(others, start=1):
        hands[(dealer + k) % NUM_SEATS].append(di)
    return tuple(tuple(ring_position(stack, di) for di in hand) for hand in hands)


# Wall._next: the head's next position, ``_head_position(_head)``, kept until the wall
# changes (a draw asks it three times: the rules' peek, the fold's take, the claim
# window's exhaustion check); _STALE: not worked out since the wall last changed
_STALE = -1


class Wall:
    """The state of one hand's wall. Mutable; :meth:`copy` is cheap (a few small arrays).

    Every method is deterministic, so a round can also rebuild a wall by replaying its moves
    (``deal``, the flips with their dice, then ``take(End.HEAD / End.TAIL)`` in order).

    Lifecycle: create (the break is fixed) → :meth:`deal` → :meth:`flip_jing` (rules with
    ``FlipKind.JING``, after dealing) or :meth:`flip_caishen` (``FlipKind.CAISHEN``, any time
    before the first draw) → draws (:meth:`take_head`) and replacements (:meth:`take_tail`)
    → :meth:`flip_xia_jing` at hand end (rules with ``xia_jing``).

    Internally, draw index ``d`` (0–135) is the ``d``-th tile in head order from the break;
    tail index ``t`` is the ``t``-th tile in tail order (top first in each 墩).
    """

    __slots__ = (
        "_break",
        "_dealt",
        "_face_up",
        "_flip",
        "_head",
        "_next",
        "_order",
        "_ready",
        "_rules",
        "_tail",
        "_taken",
        "_xia",
    )

    def __init__(
        self, rules: WallRules, brk: Break, order: Sequence[int | None] | None = None
    ) -> None:
        if brk.procedure is not rules.procedure:
            raise WallError(
                f"break procedure {brk.procedure.value} differs from the rules' "
                f"{rules.procedure.value}"
            )
        self._rules = rules
        self._break = brk
        self._order: list[int | None] = [None] * NUM_TILES if order is None else _check_order(order)
        self._taken = bytearray(NUM_TILES)
        self._head = 0
        self._next: int | None = _STALE
        self._tail = 0
        self._dealt = False
        self._ready = False  # _check_ready passed (it stays so: a wall only moves on)
        self._flip: Flip | None = None
        self._xia: Flip | None = None
        self._face_up: list[int] = []

    @classmethod
    def open(
        cls,
        rules: WallRules,
        dealer: int,
        first: Dice,
        second: Dice | None = None,
        order: Sequence[int | None] | None = None,
    ) -> Wall:
        """Build a wall from a ruleset's wall rules, the dealer and the break dice."""
        brk = break_position(rules.procedure, dealer, first, second, rules.start)
        return cls(rules, brk, order)

    def copy(self) -> Wall:
        new = Wall.__new__(Wall)
        new._rules = self._rules
        new._break = self._break
        new._order = list(self._order)
        new._taken = bytearray(self._taken)
        new._head = self._head
        new._next = self._next
        new._tail = self._tail
        new._dealt = self._dealt
        new._ready = self._ready
        new._flip = self._flip
        new._xia = self._xia
        new._face_up = list(self._face_up)
        return new

    # -- read-only state ---------------------------------------------------------------

    @property
    def rules(self) -> WallRules:
        return self._rules

    @property
    def break_(self) -> Break:
        return self._break

    @property
    def dealer(self) -> int:
        return self._break.dealer

    @property
    def dealt(self) -> bool:
        return self._dealt

    @property
    def flip(self) -> Flip | None:
        """The 精 or 财神 indicator, once turned up."""
        return self._flip

    @property
    def xia_jing(self) -> Flip | None:
        return self._xia

    def tile_at(self, position: int) -> int | None:
        self._check_position(position)
        return self._order[position]

    def is_taken(self, position: int) -> bool:
        self._check_position(position)
        return bool(self._taken[position])

    def taken_positions(self) -> tuple[int, ...]:
        return tuple(p for p in range(NUM_TILES) if self._taken[p])

    @property
    def taken_count(self) -> int:
        return sum(self._taken)

    def stack_state(self, stack: int) -> tuple[bool, bool]:
        """(top taken, bottom taken) of a ring stack."""
        return bool(self._taken[top_position(stack)]), bool(self._taken[bottom_position(stack)])

    @property
    def wildcard_kinds(self) -> tuple[int, ...] | None:
        """正精 and 副精 (jing), the 财神 (chongji), () without wildcards; None while unknown
        (not flipped yet, or the flipped tile's identity is unknown)."""
        if self._rules.flip is FlipKind.NONE:
            return ()
        f = self._flip
        if f is None or f.kind is None:
            return None
        if f.purpose is FlipPurpose.CAISHEN:
            return (successor(f.kind),)
        return (f.kind, successor(f.kind))

    @property
    def an_jing_kinds(self) -> tuple[int, int] | None:
        """lianhua 暗正精 and 暗副精 (secret), or None (not these rules / not flipped / unknown)."""
        f = self._flip
        if not self._rules.an_jing or f is None:
            return None
        k = f.under_kind
        return None if k is None else (k, successor(k))

    # -- observation -------------------------------------------------------------------

    def observe(self, position: int, tile: int) -> None:
        """Record a tile identity seen at a position (for walls built with an unknown order)."""
        self._check_position(position)
        if not 0 <= tile < NUM_TILES:
            raise WallError(f"{tile!r} is not a tile id 0–135")
        known = self._order[position]
        if known is not None:
            if known != tile:
                raise WallError(f"position {position} holds tile {known}, not {tile}")
            return
        if tile in self._order:
            raise WallError(f"tile {tile} is already at position {self._order.index(tile)}")
        self._order[position] = tile
        f = self._flip
        if f is not None:
            if f.position == position:
                self._flip = _with_tile(f, tile)
            elif f.under_position == position:
                self._flip = _with_under(f, tile)
        x = self._xia
        if x is not None and x.position == position:
            self._xia = _with_tile(x, tile)

    # -- index arithmetic --------------------------------------------------------------

    def _check_position(self, position: int) -> None:
        if not 0 <= position < NUM_TILES:
            raise WallError(f"position {position} is outside 0–135")

    def _pos(self, d: int) -> int:
        """Ring position of draw index ``d``."""
        return ring_position(self._break.stack, d)

    def _tail_pos(self, t: int) -> int:
        return self._pos(2 * (RING_STACKS - 1 - t // 2) + t % 2)

    def _draw(self, position: int) -> Draw:
        return _make_draw(Draw, (position, self._order[position]))

    def _is_dead_flip(self, position: int) -> bool:
        f = self._flip
        return f is not None and not f.in_play and f.position == position

    def _head_ok(self, d: int) -> bool:
        return self._head_position(d) is not None

    def _head_next(self) -> int | None:
        """``_head_position(self._head)``, kept until the wall changes (see ``_STALE``)."""
        p = self._next
        if p == _STALE:
            p = self._next = self._head_position(self._head)
        return p

    def _head_position(self, d: int) -> int | None:
        """Ring position of draw index ``d`` if the head may still draw it."""
        if d >= NUM_TILES or d // 2 >= RING_STACKS - self._rules.reserve_stacks:
            return None
        p = ring_position(self._break.stack, d)
        if self._taken[p]:
            return None
        f = self._flip
        if f is not None and not f.in_play and f.position == p:  # _is_dead_flip(p)
            return None
        return p

    def _next_tail(self) -> tuple[int, int] | None:
        t = self._tail
        while t < NUM_TILES:
            p = self._tail_pos(t)
            if self._is_dead_flip(p):
                t += 1  # leave the flipped tile; take the one under it next
                continue
            if self._taken[p]:
                return None  # met the tiles taken from the head
            return t, p
        return None

    # -- dealing -----------------------------------------------------------------------

    def deal(self) -> Deal:
        """跳庄 deal: three rounds of 2 墩 each from the dealer on, then the jump. Dealer 14,
        others 13."""
        result: list[tuple[Draw, ...]] = []
        order = self._order
        for hand in self._deal_positions():
            for p in hand:
                self._taken[p] = 1
            result.append(tuple([_make_draw(Draw, (p, order[p])) for p in hand]))
        self._head = 5 + 2 * STACKS_PER_TAKE * DEAL_ROUNDS * NUM_SEATS
        self._next = _STALE
        self._dealt = True
        return Deal(self._break.dealer, tuple(result))

    def peek_deal(self) -> tuple[tuple[int | None, ...], ...]:
        """The tiles ``deal`` would give each seat (None if unknown), the wall untouched:
        the rules check a deal without copying the wall and making its draws."""
        order = self._order
        return tuple(tuple([order[p] for p in hand]) for hand in self._deal_positions())

    def _deal_positions(self) -> tuple[tuple[int, ...], ...]:
        """Ring positions of each seat's dealt tiles, in the order it takes them."""
        if self._dealt:
            raise WallError("the wall has already been dealt")
        if self._taken_any():
            raise WallError("tiles were taken before the deal")
        layout = _deal_layout(self._break.stack, self._break.dealer, self._rules.jump)
        if self._flip is not None and any(self._is_dead_flip(p) for ps in layout for p in ps):
            raise WallError("the flipped tile lies in the deal")  # flipped before it
        return layout

    def _taken_any(self) -> bool:
        return any(self._taken)

    # -- flips -------------------------------------------------------------------------

    def _count_from_tail(self, n: int) -> tuple[int, int | None]:
        """The uppermost face-down tile of the ``n``-th 墩 from the current tail (counting
        only 墩 that still hold a face-down tile), and the other tile of that 墩 if it is
        still in the wall."""
        seen = 0
        for k in range(RING_STACKS):
            stack = (self._break.stack + RING_STACKS - 1 - k) % RING_STACKS
            top, bottom = top_position(stack), bottom_position(stack)
            down = [p for p in (top, bottom) if not self._taken[p] and p not in self._face_up]
            if not down:
                continue
            seen += 1
            if seen == n:
                other = bottom if down[0] == top else top
                under = None if self._taken[other] else other
                return down[0], under
        raise WallError(f"fewer than {n} 墩 are left to count from the tail")

    def flip_jing(self, dice: Dice) -> Flip:
        """翻精: count ``dice.total`` 墩 from the tail (the tail 墩 is 1) and turn up its top.

        Done after the deal, before the first draw. Whether the tile stays in play is
        ``rules.flip_in_play``; with ``rules.an_jing`` the tile under it is reported.
        """
        if self._rules.flip is not FlipKind.JING:
            raise WallError("these rules flip no 精")
        if not self._dealt:
            raise WallError("the 精 is flipped after the deal")
        if self._flip is not None:
            raise WallError("the 精 has already been flipped")
        if self._head != self._deal_end() or self._tail != 0:
            raise WallError("the 精 is flipped before the first draw")
        position, under = self._count_from_tail(dice.total)
        flip = Flip(
            purpose=FlipPurpose.JING,
            position=position,
            tile=self._order[position],
            count=dice.total,
            in_play=self._rules.flip_in_play,
            under_position=under if self._rules.an_jing else None,
            under_tile=self._order[under] if self._rules.an_jing and under is not None else None,
        )
        self._flip = flip
        self._face_up.append(position)
        self._next = _STALE  # a dead flip may lie where the head draws next
        return flip

    def caishen_position(self) -> int:
        """chongji: the top of the 7th 墩 from the left end of the wall of the player after
        the one whose wall was opened (the seed: "开牌玩家的下一家，从左至右数7墩")."""
        owner = (self._break.wall_owner + 1) % NUM_SEATS
        return top_position(ring_stack_from_left(owner, CAISHEN_COUNT))

    def flip_caishen(self) -> Flip:
        """Turn up chongji's 财神 indicator; the 财神 is the next kind. Before the first draw
        (before or after the deal). The tile stays in the wall, in play (``flip_in_play``)."""
        if self._rules.flip is not FlipKind.CAISHEN:
            raise WallError("these rules have no 财神")
        if self._flip is not None:
            raise WallError("the 财神 has already been turned up")
        if (self._dealt and self._head != self._deal_end()) or self._tail != 0:
            raise WallError("the 财神 is turned up before the first draw")
        position = self.caishen_position()
        if self._taken[position]:
            raise WallError("the 财神 tile has already been taken")
        flip = Flip(
            purpose=FlipPurpose.CAISHEN,
            position=position,
            tile=self._order[position],
            count=CAISHEN_COUNT,
            in_play=self._rules.flip_in_play,
        )
        self._flip = flip
        self._face_up.append(position)
        self._next = _STALE  # a dead flip may lie where the head draws next
        return flip

    def flip_xia_jing(self, dice: Dice) -> Flip:
        """yongfeng 下精 at hand end: count ``dice.total`` 墩 from the *current* tail and turn
        up the uppermost face-down tile (the top, unless the 墩 is the 上精's own, whose tile
        under the 精 is then the one turned up). Scoring only; nothing more is drawn."""
        if not self._rules.xia_jing:
            raise WallError("these rules have no 下精")
        if self._flip is None:
            raise WallError("the 精 has not been flipped")
        if self._xia is not None:
            raise WallError("the 下精 has already been flipped")
        position, _ = self._count_from_tail(dice.total)
        xia = Flip(
            purpose=FlipPurpose.XIA_JING,
            position=position,
            tile=self._order[position],
            count=dice.total,
            in_play=False,
        )
        self._xia = xia
        self._face_up.append(position)
        return xia

    def _deal_end(self) -> int:
        return DEAL_ROUNDS * NUM_SEATS * 2 * STACKS_PER_TAKE + 5  # 53

    # -- draws -------------------------------------------------------------------------

    def _check_ready(self) -> None:
        """Draws start once the wall is dealt and its 精/财神 is up. Callers skip the call
        once it has passed (``_ready``): a wall is never dealt or flipped back."""
        if not self._dealt:
            raise WallError("the wall has not been dealt")
        if self._flip is None and self._rules.flip is not _NO_FLIP:
            raise WallError("the 精/财神 must be turned up before the first draw")
        self._ready = True

    def peek_head(self) -> Draw | None:
        """The next ordinary draw, or None when the live wall is exhausted."""
        if not self._ready:
            self._check_ready()
        p = self._head_next()
        return None if p is None else self._draw(p)

    def take_head(self) -> Draw:
        """Take the next ordinary draw. Raises WallError when the live wall is exhausted."""
        if not self._ready:
            self._check_ready()
        p = self._head_next()
        if p is None:
            raise WallError("the live wall is exhausted (流局)")
        self._taken[p] = 1
        self._head += 1
        self._next = _STALE
        return self._draw(p)

    def peek_tail(self) -> Draw | None:
        """The next kong replacement, or None when none is left."""
        if not self._ready:
            self._check_ready()
        nxt = self._next_tail()
        return None if nxt is None else self._draw(nxt[1])

    def take_tail(self) -> Draw:
        """Take the next kong replacement from the tail (top first, skipping a flipped tile
        that is not in play). Replacements may eat into the reserve; the reserve's boundary
        does not move. Raises WallError when no tile is left on that side."""
        if not self._ready:
            self._check_ready()
        nxt = self._next_tail()
        if nxt is None:
            raise WallError("no tile is left for a replacement")
        t, p = nxt
        self._taken[p] = 1
        self._tail = t + 1
        self._next = _STALE  # the tail may have reached the head
        return self._draw(p)

    def peek(self, end: End) -> Draw | None:
        return self.peek_head() if end is End.HEAD else self.peek_tail()

    def take(self, end: End) -> Draw:
        return self.take_head() if end is End.HEAD else self.take_tail()

    @property
    def live_count(self) -> int:
        """Tiles the head can still draw before the hand is exhausted (counting no further
        replacements)."""
        d = self._head
        while self._head_ok(d):
            d += 1
        return d - self._head

    @property
    def is_exhausted(self) -> bool:
        """True when no further ordinary draw is possible: the hand is drawn (流局) unless
        someone wins on the last discard."""
        return self._head_next() is None

    @property
    def remaining(self) -> int:
        """Tiles still in the wall that can be taken by someone (live wall + reserve), i.e.
        excluding taken tiles and a flipped tile that is not in play."""
        dead = self._flip is not None and not self._flip.in_play
        return NUM_TILES - sum(self._taken) - (1 if dead else 0)

    @property
    def reserve_stacks(self) -> tuple[int, ...]:
        """Ring stacks of the fixed reserve, from the tail end inward."""
        s = self._break.stack
        return tuple((s - 1 - k) % RING_STACKS for k in range(self._rules.reserve_stacks))


def _with_tile(f: Flip, tile: int) -> Flip:
    return Flip(f.purpose, f.position, tile, f.count, f.in_play, f.under_position, f.under_tile)


def _with_under(f: Flip, tile: int) -> Flip:
    return Flip(f.purpose, f.position, f.tile, f.count, f.in_play, f.under_position, tile)
