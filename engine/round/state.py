"""The state of one hand: whatever a fold over its events leaves behind.

Only ``engine.round.fold`` changes a state; everyone else reads it. ``copy`` is cheap (small
lists and ``Wall.copy``), so ``apply`` can try events on a scratch copy.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from enum import StrEnum
from functools import lru_cache
from typing import Any, NamedTuple

from engine.hand import Meld, MeldType, ShapeOptions
from engine.round.events import (
    Adjusted,
    ClaimAnswered,
    ClaimDeclared,
    ClaimMade,
    ClaimPassed,
    DiceCommitted,
    DiceRolled,
    FlipEntered,
    HandStarted,
    HandVoided,
    PenaltyApplied,
    StaffAct,
    WinDeclared,
)
from engine.rulesets import Ruleset, load_ruleset
from engine.rulesets.base import ClaimRules
from engine.settlement import Settlement
from engine.tiles import NUM_TILES, kind_of
from engine.wall import Wall, WallRules

SEATS = 4


class Phase(StrEnum):
    SHUFFLE = "shuffle"  # waiting for the wall (order or unknown)
    BREAK_DICE = "break_dice"  # the dealer rolls for the break
    SECOND_DICE = "second_dice"  # two-roll procedures: the second roller
    DEAL = "deal"
    FLIP = "flip"  # 翻精 dice, or chongji's 财神
    TURN = "turn"  # ``turn`` holds 14 (counting melds): discard, kong or win
    DRAW = "draw"  # ``turn`` draws from the head
    REPLACEMENT = "replacement"  # ``turn`` draws a kong replacement from the tail
    CLAIM = "claim"  # after ``turn``'s discard: every other seat claims or passes
    ROB = "rob"  # after ``turn``'s added kong: others may rob it (抢杠) or pass
    XIA_DICE = "xia_dice"  # yongfeng 下精 dice after the hand ends
    SETTLE = "settle"  # ended; the settlement comes with the events that ended it
    DONE = "done"


class Source(StrEnum):
    """How the seat to act came by its last tile (天胡, 杠上花, 不能吃啥打啥 …)."""

    DEAL = "deal"
    DRAW = "draw"
    REPLACEMENT = "replacement"
    CLAIM = "claim"


# Members as plain module names for the hot paths (``phase is AT_CLAIM``): ``Phase.CLAIM``
# goes through EnumType.__getattr__ on Python 3.11, ~0.1 µs a lookup, hundreds a hand.
AT_CLAIM, AT_ROB, AT_TURN, AT_DRAW, AT_REPLACEMENT, AT_DONE = (
    Phase.CLAIM,
    Phase.ROB,
    Phase.TURN,
    Phase.DRAW,
    Phase.REPLACEMENT,
    Phase.DONE,
)
BY_DRAW, BY_CLAIM = Source.DRAW, Source.CLAIM


class HeldMeld(NamedTuple):
    """A meld with its physical tiles; ``claimed`` is the tile taken from ``from_seat``.
    (A named tuple, not a frozen dataclass: a won hand's key hashes every seat's melds,
    some thirty a hand, and a tuple hashes at C level.)"""

    type: MeldType
    tiles: tuple[int, ...]
    from_seat: int | None = None
    claimed: int | None = None

    def meld(self) -> Meld:
        return _meld_of(self)


@lru_cache(maxsize=64)
def _meld_of(held: HeldMeld) -> Meld:
    """A held meld as kinds, memoised: every win check and the settlement ask for every
    seat's melds, and building a ``Meld`` validates it. A hand holds 16 melds at most and
    a later hand seldom holds the same tiles: a small table lets the old ones die young."""
    claimed = None if held.claimed is None else kind_of(held.claimed)
    return Meld(held.type, tuple(kind_of(t) for t in held.tiles), held.from_seat, claimed)


@lru_cache(maxsize=64)
def _ruleset(ruleset_id: str, options_json: str) -> Ruleset:
    return load_ruleset(ruleset_id, json.loads(options_json))


def ruleset_for(started: HandStarted) -> Ruleset:
    return _ruleset(started.ruleset, json.dumps(started.options, sort_keys=True))


@lru_cache(maxsize=64)
def _rules_of(ruleset: Ruleset) -> tuple[ClaimRules, ShapeOptions, WallRules]:
    """What a state reads of its ruleset on every move; frozen, so hands share them (and
    is_win, which keeps a plan per options object, finds it again the next hand)."""
    return ruleset.claim_rules(), ruleset.shape_options(), ruleset.wall_rules()


class RoundState:
    """One hand in progress. Read it; change it only through ``engine.round.fold``."""

    __slots__ = (
        "adjustments",
        "blocked",
        "claim_passes",
        "claim_rules",
        "claims_count",
        "claims_made",
        "dice",
        "dice_commit",
        "dice_seed",
        "discards",
        "discards_total",
        "draws",
        "exhausted",
        "false_win",
        "flip_entered",
        "gz_active",
        "gz_kinds",
        "gz_rounds",
        "hand_moves",
        "hands",
        "keep",
        "last_drawer",
        "last_tile",
        "melds",
        "options",
        "order",
        "passed_kinds",
        "past_voids",
        "penalties",
        "phase",
        "player_claim",
        "responses",
        "ruleset",
        "seen",
        "settlement",
        "source",
        "staff_acts",
        "staff_settle",
        "started",
        "turn",
        "voided",
        "wall",
        "wall_rules",
        "wild",
        "wins",
    )

    def __init__(self, started: HandStarted) -> None:
        self.started = started
        self.ruleset = ruleset_for(started)
        self.claim_rules: ClaimRules
        self.claim_rules, self.options, self.wall_rules = _rules_of(self.ruleset)
        self.wild: frozenset[int] = frozenset()  # set when the 精/财神 is turned up
        self.phase = Phase.SHUFFLE
        self.turn = started.dealer
        self.order: tuple[int, ...] | None = None
        self.dice: list[DiceRolled] = []
        # the dice seed's commitment, and the seed once revealed (controller.table.dice)
        self.dice_commit: DiceCommitted | None = None
        self.dice_seed: str | None = None
        self.wall: Wall | None = None
        self.hands: list[list[int]] = [[] for _ in range(SEATS)]
        # per seat: how often its concealed tiles or melds changed (a key for readers' caches)
        self.hand_moves = [0] * SEATS
        self.melds: list[list[HeldMeld]] = [[] for _ in range(SEATS)]
        self.discards: list[list[int]] = [[] for _ in range(SEATS)]  # still lying there
        self.seen: set[int] = set()  # tiles known to be out of the wall, or face up
        self.source = Source.DEAL
        self.last_tile: int | None = None  # last drawn, discarded or added-to-kong tile
        self.responses: dict[int, ClaimDeclared | None] = {}  # None: passed
        self.draws = [0] * SEATS
        self.discards_total = 0
        self.claims_made = False
        self.claims_count = [0] * SEATS
        self.keep: list[int | None] = [None] * SEATS  # kind that may not be discarded now
        self.passed_kinds: list[set[int]] = [set() for _ in range(SEATS)]  # 漏胡
        self.blocked = [False] * SEATS  # 自摸不胡: no discard win until the next draw
        self.gz_active = True
        self.gz_kinds: list[int] = []
        self.gz_rounds = 0
        self.wins: list[WinDeclared] = []
        self.false_win: list[int] = []
        self.exhausted = False
        self.last_drawer: int | None = None
        self.settlement: Settlement | None = None
        # acts of a person (engine.round.staff): each with the state it found, for undo
        self.staff_acts: list[tuple[StaffAct, RoundState]] = []
        self.staff_settle: StaffAct | None = None  # the finish or correction settled on
        self.voided = False
        self.penalties: list[PenaltyApplied] = []
        self.adjustments: list[Adjusted] = []
        self.past_voids: list[HandVoided] = []  # earlier hands of the session voided
        self.flip_entered: FlipEntered | None = None  # the 精 no reader saw, as entered
        # a player's pending claim and the answers so far (engine.round.player_claims)
        self.player_claim: tuple[ClaimMade, tuple[ClaimAnswered, ...]] | None = None
        # the seats that said they did not win on the claim's discard too (没胡)
        self.claim_passes: tuple[ClaimPassed, ...] = ()

    # -- copying and comparing ---------------------------------------------------------

    def copy(self) -> RoundState:
        new = RoundState.__new__(RoundState)
        for name in self.__slots__:
            setattr(new, name, getattr(self, name))
        new.dice = list(self.dice)
        new.wall = None if self.wall is None else self.wall.copy()
        new.hands = [list(h) for h in self.hands]
        new.hand_moves = list(self.hand_moves)
        new.melds = [list(m) for m in self.melds]
        new.discards = [list(d) for d in self.discards]
        new.seen = set(self.seen)
        new.responses = dict(self.responses)
        new.draws = list(self.draws)
        new.claims_count = list(self.claims_count)
        new.keep = list(self.keep)
        new.passed_kinds = [set(s) for s in self.passed_kinds]
        new.blocked = list(self.blocked)
        new.gz_kinds = list(self.gz_kinds)
        new.wins = list(self.wins)
        new.false_win = list(self.false_win)
        new.staff_acts = list(self.staff_acts)
        new.penalties = list(self.penalties)
        new.adjustments = list(self.adjustments)
        new.past_voids = list(self.past_voids)
        return new

    def snapshot(self) -> dict[str, Any]:
        """Everything the state holds, as plain data: equal snapshots, equal states."""
        out: dict[str, Any] = {}
        for name in self.__slots__:
            if name in ("ruleset", "claim_rules", "options", "wall_rules", "wall"):
                continue
            if name in ("passed_kinds", "seen"):
                continue
            out[name] = getattr(self, name)
        out["passed_kinds"] = [sorted(s) for s in self.passed_kinds]
        out["staff_acts"] = [act for act, _ in self.staff_acts]  # (the states follow from them)
        out["seen"] = sorted(self.seen)
        w = self.wall
        if w is not None:
            out["wall"] = (
                w.taken_positions(),
                tuple(w.tile_at(p) for p in range(NUM_TILES)),
                w.flip,
                w.xia_jing,
                w.live_count,
                w.peek_tail() if w.dealt and (w.flip is not None or not self.needs_flip) else None,
            )
        return out

    # -- reading -------------------------------------------------------------------------

    @property
    def dealer(self) -> int:
        return self.started.dealer

    @property
    def needs_flip(self) -> bool:
        return self.ruleset.flip_kind.value != "none"

    @property
    def indicator(self) -> int | None:
        """The flipped tile's kind (正精 / the tile before the 财神), once known."""
        f = None if self.wall is None else self.wall.flip
        return None if f is None else f.kind

    def kinds(self, seat: int) -> list[int]:
        return [kind_of(t) for t in self.hands[seat]]

    def tile_count(self, seat: int) -> int:
        """Tiles as the 13/14 rule counts them: a kong counts as three."""
        return len(self.hands[seat]) + 3 * len(self.melds[seat])

    def held_melds(self, seat: int) -> tuple[Meld, ...]:
        return tuple(m.meld() for m in self.melds[seat])

    @property
    def finished(self) -> bool:
        return self.phase is Phase.DONE

    def tile_places(self) -> Iterator[tuple[int, str]]:
        """(tile, place) for every known tile: wall, hand:S, meld:S, discard:S."""
        w = self.wall
        if w is None:
            if self.order is not None:
                yield from ((t, "wall") for t in self.order)
            return
        for p in range(NUM_TILES):
            t = w.tile_at(p)
            if t is not None and not w.is_taken(p):
                yield t, "wall"
        for s in range(SEATS):
            yield from ((t, f"hand:{s}") for t in self.hands[s])
            for m in self.melds[s]:
                yield from ((t, f"meld:{s}") for t in m.tiles)
            yield from ((t, f"discard:{s}") for t in self.discards[s])
