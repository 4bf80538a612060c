"""Virtual players: deterministic, shanten-driven, and never a move the engine refuses.

A bot looks at the state and returns one action for its seat. It wins whenever the
ruleset lets it, discards the tile that leaves the fewest tiles to ready (ties: keep
wildcards, then keep the better connected tiles), and claims a pung, kong or chow when
that brings it closer to ready. Every restriction the engine enforces (claim limits,
不能吃啥打啥, 漏胡, …) is checked before the bot asks.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter

from engine.analysis import is_win
from engine.bot_eval import HandShape
from engine.hand import Meld, MeldType
from engine.round.actions import Action, Chow, DeclareWin, Discard, Draw, Kong, Pass, Pung
from engine.round.claims import candidate_win, win_stands
from engine.round.events import HandStarted
from engine.round.state import (
    AT_CLAIM,
    AT_DRAW,
    AT_REPLACEMENT,
    AT_ROB,
    AT_TURN,
    BY_CLAIM,
    SEATS,
    RoundState,
)
from engine.tiles import kind_of

_CACHE_LIMIT = 256


def _value(kind: int) -> int:
    """How much a lone tile is worth keeping: honors least, then terminals, 2/8, middles."""
    if kind >= 27:
        return 0
    n = kind % 9
    return 1 if n in (0, 8) else 2 if n in (1, 7) else 3


_VALUES = tuple(_value(k) for k in range(34))
_PUNG = MeldType.PUNG  # (enum members are slow to look up on Python 3.11)


def _near(kind: int) -> tuple[int, ...]:
    """The kinds within two of a suited kind in its suit (none for an honor)."""
    if kind >= 27:
        return ()
    lo = kind - kind % 9
    return tuple(k for k in range(kind - 2, kind + 3) if k != kind and lo <= k < lo + 9)


_NEAR = tuple(_near(k) for k in range(34))
# per kind: what reads its links off the counts (itself and its near kinds; an honor's is
# the one-item slice of itself, so that every kind's links sum the same way), and the low
# bits of its rank (value, kind)
_LINKS = tuple(
    itemgetter(k, *_NEAR[k]) if _NEAR[k] else itemgetter(slice(k, k + 1)) for k in range(34)
)
_RANK = tuple(_VALUES[k] << 6 | k for k in range(34))


def _chows_with(kind: int) -> tuple[tuple[int, int], ...]:
    """The pairs of kinds that make a chow with ``kind`` in its suit (none for an honor)."""
    if kind >= 27:
        return ()
    lo = kind - kind % 9
    pairs = ((kind - 2, kind - 1), (kind - 1, kind + 1), (kind + 1, kind + 2))
    return tuple((a, b) for a, b in pairs if a >= lo and b < lo + 9)


_CHOWS_WITH = tuple(_chows_with(k) for k in range(34))


def _can_chow(counts: bytearray, wild: frozenset[int], kind: int) -> bool:
    """Whether the hand holds a pair of kinds to chow ``kind`` with (no wildcard)."""
    for a, b in _CHOWS_WITH[kind]:
        if counts[a] and counts[b] and a not in wild and b not in wild:
            return True
    return False


def _counts(tiles: Iterable[int]) -> bytearray:
    """Kind counts of tiles, as bytes: a hand's section keys are slices of them, and bytes
    copy and convert at C speed (a list of ints converts one item at a time)."""
    counts = bytearray(34)
    for t in tiles:
        counts[kind_of(t)] += 1
    return counts


def _keep_first(counts: bytearray, wild: frozenset[int], tied: list[int]) -> int:
    """Of kinds that score the same, the one to discard: keep wildcards, then the better
    connected tiles (links: the tiles of the same kind or within two in the suit), then
    the more useful kinds, then the lower kind. The rank (wild, links, value, kind) is
    packed in one int: each part is below its field."""
    best = 1 << 30
    if wild.isdisjoint(tied):  # (most turns: no wildcard to keep among the kinds)
        for k in tied:
            rank = sum(_LINKS[k](counts)) << 8 | _RANK[k]
            if rank < best:
                best = rank
        return best & 63
    for k in tied:
        rank = (k in wild) << 16 | sum(_LINKS[k](counts)) << 8 | _RANK[k]
        if rank < best:
            best = rank
    return best & 63


class _Held:
    """A concealed hand (with its number of melds) as the bot sees it, kept while the hand
    stays the same: others' discards only ask the same questions of it again."""

    __slots__ = ("counts", "meld_list", "melds", "shanten", "wins")

    def __init__(self, counts: bytearray, melds: int, shanten: int | None = None) -> None:
        self.counts = counts
        self.melds = melds
        self.shanten = shanten
        self.wins: dict[int, bool] = {}  # kind added -> is_win
        self.meld_list: tuple[Meld, ...] | None = None  # the seat's melds, once asked


class Bot:
    """One virtual player. Its choices depend on the state only; it remembers what it
    worked out for hands it has seen this hand (a hand does not change while others play)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._held: dict[tuple[int, tuple[int, ...]], _Held] = {}
        self._for: tuple[HandStarted | None, frozenset[int]] = (None, frozenset())
        # the seat's own hand as it stands, and the state's move counts it was read at (the
        # list names the state: a new hand, or a copy, has its own)
        self._now: _Held | None = None
        self._now_of: list[int] | None = None
        self._now_at = -1
        # the hand the bot's last discard leaves, with the move count it is due at: the
        # seat's next answer takes it when the state's hand is that one (no lookup)
        self._after: _Held | None = None
        self._after_tiles: list[int] = []
        self._after_of: list[int] | None = None
        self._after_at = -1
        # actions are frozen: the two the bot sends most are made once
        self._pass = Pass(seat)
        self._draw = Draw(seat)
        self._discards: dict[int, Discard] = {}  # by tile, made once each

    def act(self, state: RoundState) -> Action:
        seat = self.seat
        phase = state.phase
        if phase is AT_CLAIM or phase is AT_ROB:
            return self.answer(state)
        if phase is AT_DRAW or phase is AT_REPLACEMENT:
            return self._draw
        if phase is AT_TURN:
            return self._turn(state)
        raise ValueError(f"seat {seat} has nothing to do at {phase.value}")

    # -- shared ------------------------------------------------------------------------

    def _hand(self, state: RoundState, tiles: list[int], counts: bytearray | None = None) -> _Held:
        """What the bot knows of these concealed tiles (the seat's melds as they are);
        ``counts``, when the caller has them, are the tiles' kind counts."""
        for_ = self._for
        if for_[0] is not state.started or for_[1] is not state.wild:
            self._held.clear()
            self._now = None
            self._for = (state.started, state.wild)
        n = len(state.melds[self.seat])
        key = (n, tuple(tiles))
        held = self._held.get(key)
        if held is None:
            if len(self._held) >= _CACHE_LIMIT:
                self._held.clear()
            if counts is None:
                counts = _counts(tiles)
            held = self._held[key] = _Held(counts, n)
        return held

    def _current(self, state: RoundState) -> _Held:
        """The seat's concealed hand as it stands: others' discards ask about the same hand
        until the seat moves (the state counts its moves)."""
        held = self._now
        moves = state.hand_moves
        seat = self.seat
        if held is None or self._now_of is not moves or self._now_at != moves[seat]:
            held = self._after
            if (
                held is None
                or self._after_of is not moves
                or self._after_at != moves[seat]
                or self._after_tiles != state.hands[seat]
            ):
                held = self._hand(state, state.hands[seat])
            self._now = held
            self._now_of = moves
            self._now_at = moves[seat]
        return held

    def _shanten_of(self, state: RoundState, held: _Held) -> int:
        """Shanten of 13 tiles (counting melds) by the bot's shapes: the rare special shapes
        are not looked for, so a bot may miss such a win."""
        s = held.shanten
        if s is None:
            shape = HandShape(held.counts, state.wild, state.options, held.melds)
            s = held.shanten = shape.shanten()
        return s

    def _wins_with(self, state: RoundState, held: _Held, kind: int) -> bool:
        """Whether 13 tiles and one of ``kind`` win (is_win; the ruleset's bars aside).
        One kind at a time: a hand's full list of waits costs more than the few kinds
        its seat is offered while it stays the same."""
        hit = held.wins.get(kind)
        if hit is None:
            counts = bytearray(held.counts)
            counts[kind] += 1
            melds = held.meld_list
            if melds is None:
                # the same concealed tiles and meld count: the same melds within a hand
                melds = held.meld_list = state.held_melds(self.seat)
            hit = held.wins[kind] = is_win(counts, state.wild, state.options, melds)
        return hit

    def _wins_own(self, state: RoundState, held: _Held, kind: int) -> bool:
        """The seat may win with ``held`` and one of ``kind`` (its own tile, or the one in
        the window); the engine's own check (readings, ruleset bars) has the last word."""
        if self._shanten_of(state, held) > 0:
            return False
        # is_win first: it is cheap, and the full check (readings, ruleset bars) is not
        if not self._wins_with(state, held, kind):
            return False
        return win_stands(state, candidate_win(state, self.seat))

    # -- own turn ----------------------------------------------------------------------

    def _turn(self, state: RoundState) -> Action:
        seat = self.seat
        if state.source is not BY_CLAIM:
            # the 13 tiles before the one just taken, and the counts with it
            before = self._before(state)
            last = state.last_tile
            assert last is not None
            counts = bytearray(before.counts)
            drawn = kind_of(last)
            counts[drawn] += 1
            # (_wins_own asks the same first: most turns are not ready, so no call)
            if self._shanten_of(state, before) <= 0 and self._wins_own(state, before, drawn):
                return DeclareWin(seat)
            if state.melds[seat] or 4 in counts:  # (else _self_kong finds none)
                kong = self._self_kong(state, counts)
                if kong is not None:
                    return kong
        else:
            counts = _counts(state.hands[seat])
        tile = self._discard_tile(state, counts)
        action = self._discards.get(tile)
        if action is None:
            action = self._discards[tile] = Discard(seat, tile)
        return action

    def _before(self, state: RoundState) -> _Held:
        """The seat's hand before the tile it just took: the hand it held while others
        played, when the take is its only move since (the state counts its moves)."""
        held = self._now
        moves = state.hand_moves
        if held is not None and self._now_of is moves and self._now_at == moves[self.seat] - 1:
            return held
        before = list(state.hands[self.seat])
        assert state.last_tile is not None
        before.remove(state.last_tile)
        return self._hand(state, before)

    def _self_kong(self, state: RoundState, counts: bytearray) -> Action | None:
        seat = self.seat
        hand = state.hands[seat]
        melds = state.melds[seat]
        added: int | None = None  # the first tile in the hand that adds to a pung
        for m in melds:
            if m.type is _PUNG and counts[kind_of(m.tiles[0])]:
                pungs = {kind_of(m.tiles[0]) for m in melds if m.type is _PUNG}
                added = next(t for t in hand if kind_of(t) in pungs)
                break
        if added is None and 4 not in counts:
            return None
        assert state.wall is not None
        if state.wall.peek_tail() is None:
            return None
        if added is not None:
            return Kong(seat, added)  # the fourth of a pung is no use in the hand
        fours = [k for k in range(34) if counts[k] == 4]
        n = len(melds)
        now = HandShape(counts, state.wild, state.options, n).choice()[0]
        for k in fours:
            rest = bytearray(counts)
            rest[k] = 0
            if HandShape(rest, state.wild, state.options, n + 1).shanten() <= now:
                return Kong(seat, next(t for t in hand if kind_of(t) == k))
        return None

    def _discard_tile(self, state: RoundState, counts: bytearray) -> int:
        seat = self.seat
        hand = state.hands[seat]
        keep = state.keep[seat] if state.claim_rules.keep_claimed else None
        if keep is not None and all(kind_of(t) == keep for t in hand):
            keep = None  # nothing else to discard
        n = len(state.melds[seat])
        low, tied = HandShape(counts, state.wild, state.options, n).choice(keep)
        best = _keep_first(counts, state.wild, tied) if len(tied) > 1 else tied[0]
        tile = 4 * best + 3  # the highest tile of that kind in the hand
        while tile not in hand:
            tile -= 1
        rest = list(hand)
        rest.remove(tile)
        after = bytearray(counts)
        after[best] -= 1
        # the hand after the discard: its shanten is known, others' discards ask for it
        held = self._hand(state, rest, after)
        held.shanten = low
        self._after = held
        self._after_tiles = rest
        self._after_of = state.hand_moves
        self._after_at = state.hand_moves[seat] + 1  # (the discard is one move)
        return tile

    # -- someone else's tile -----------------------------------------------------------

    def answer(self, state: RoundState) -> Action:
        """The seat's answer to the tile in a claim window (``act`` at a discard or an
        added kong). It reads the seat's own hand and the tile, never the other seats'
        answers: at a table those are not known until the window closes, so a driver may
        ask every seat in a window against the same state."""
        seat = self.seat
        phase = state.phase
        if phase is not AT_CLAIM and phase is not AT_ROB:
            raise ValueError(f"seat {seat} has no tile to answer at {phase.value}")
        tile = state.last_tile
        assert tile is not None
        kind = kind_of(tile)
        # _current(state), inline: about a hundred answers a hand
        held = self._now
        moves = state.hand_moves
        if held is None or self._now_of is not moves or self._now_at != moves[seat]:
            held = self._current(state)
        shanten = held.shanten
        if shanten is None:
            shanten = self._shanten_of(state, held)
        if shanten <= 0:
            # ready: win when the tile completes the hand, else keep it concealed and wait
            # (as _claim would)
            if self._wins_own(state, held, kind):
                return DeclareWin(seat)
            return self._pass
        # not ready, so no win: most tiles are no use for a claim either
        if phase is AT_ROB or kind in state.wild:
            return self._pass
        counts = held.counts
        if counts[kind] < 2 and (
            seat != (state.turn + 1) % SEATS or not _can_chow(counts, state.wild, kind)
        ):
            return self._pass
        claim = self._claim(state, kind)
        return claim if claim is not None else self._pass

    def _claim(self, state: RoundState, kind: int) -> Action | None:
        wild = state.wild
        if kind in wild:
            return None  # a jing is worth more in the hand than in a meld
        seat = self.seat
        held = self._current(state)
        counts = held.counts
        same = counts[kind]
        pairs = self._chow_pairs(counts, wild, kind) if seat == (state.turn + 1) % SEATS else []
        if same < 2 and not pairs:
            return None
        rules = state.claim_rules
        assert state.wall is not None
        limit_ok = not rules.max_claims or state.claims_count[seat] < rules.max_claims
        n = held.melds
        now = self._shanten_of(state, held)
        if now <= 0:
            return None  # ready already: keep the hand concealed and wait
        if same == 3 and state.wall.peek_tail() is not None:
            rest = bytearray(counts)
            rest[kind] = 0
            if HandShape(rest, state.wild, state.options, n + 1).shanten() <= now:
                return Kong(seat)
        if same >= 2 and limit_ok:
            rest = bytearray(counts)
            rest[kind] -= 2
            if self._after_claim(state, rest, n + 1, kind) < now:
                return Pung(seat)
        if not limit_ok:
            return None
        hand = state.hands[seat]
        for a, b in pairs:
            rest = bytearray(counts)
            rest[a] -= 1
            rest[b] -= 1
            if self._after_claim(state, rest, n + 1, kind) < now:
                ta = next(t for t in hand if kind_of(t) == a)
                tb = next(t for t in hand if kind_of(t) == b)
                return Chow(seat, (ta, tb))
        return None

    @staticmethod
    def _chow_pairs(counts: bytearray, wild: frozenset[int], kind: int) -> list[tuple[int, int]]:
        """The two kinds the hand could chow ``kind`` with (never using a wildcard)."""
        return [
            (a, b)
            for a, b in _CHOWS_WITH[kind]
            if counts[a] and counts[b] and a not in wild and b not in wild
        ]

    def _after_claim(self, state: RoundState, rest: bytearray, melds: int, kind: int) -> int:
        """Best shanten after claiming and discarding (the claimed kind may be barred)."""
        if not any(rest):
            return 99
        barred = None
        if state.claim_rules.keep_claimed and any(rest[k] for k in range(34) if k != kind):
            barred = kind
        return HandShape(rest, state.wild, state.options, melds).choice(barred)[0]
