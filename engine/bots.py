"""Virtual players: deterministic, shanten-driven, and never a move the engine refuses.

A bot looks at the state and returns one action for its seat. It wins whenever the
ruleset lets it, discards the tile that leaves the fewest tiles to ready (ties: keep
wildcards, then keep the better connected tiles), and claims a pung, kong or chow when
that brings it closer to ready. Every restriction the engine enforces (claim limits,
不能吃啥打啥, 漏胡, …) is checked before the bot asks.
"""

from __future__ import annotations

from engine.analysis import is_win
from engine.bot_eval import HandShape
from engine.hand import MeldType
from engine.round.actions import Action, Chow, DeclareWin, Discard, Draw, Kong, Pass, Pung
from engine.round.claims import candidate_win, refusal
from engine.round.state import SEATS, Phase, RoundState, Source
from engine.tiles import counts_of


def _value(kind: int) -> int:
    """How much a lone tile is worth keeping: honors least, then terminals, 2/8, middles."""
    if kind >= 27:
        return 0
    n = kind % 9
    return 1 if n in (0, 8) else 2 if n in (1, 7) else 3


def _links(counts: list[int], kind: int) -> int:
    """Tiles of the hand that a tile works with (same kind, or within two in its suit)."""
    if kind >= 27:
        return counts[kind] - 1
    lo = kind - kind % 9
    total = counts[kind] - 1
    for d in (-2, -1, 1, 2):
        k = kind + d
        if lo <= k < lo + 9:
            total += counts[k]
    return total


class Bot:
    """One virtual player. Its choices depend on the state only; it remembers shanten
    results for hands it has seen (a hand does not change while others play)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self._shanten: dict[tuple[int, ...], int] = {}

    def act(self, state: RoundState) -> Action:
        seat = self.seat
        phase = state.phase
        if phase in (Phase.DRAW, Phase.REPLACEMENT):
            return Draw(seat)
        if phase is Phase.TURN:
            return self._turn(state)
        if phase in (Phase.CLAIM, Phase.ROB):
            return self._answer(state)
        raise ValueError(f"seat {seat} has nothing to do at {phase.value}")

    # -- shared ------------------------------------------------------------------------

    def _shape(self, state: RoundState, counts: list[int], melds: int) -> HandShape:
        return HandShape(counts, state.wild, state.options, melds)

    def _key(self, state: RoundState, tiles: list[int]) -> tuple[int, ...]:
        # tile ids in hand order: the order the fold keeps, so a hand finds its own entry
        return (len(state.melds[self.seat]), state.indicator or -1, *tiles)

    def _shanten_of(self, state: RoundState, tiles: list[int]) -> int:
        """Shanten of 13 tiles (counting melds) by the bot's shapes: the rare special shapes
        are not looked for, so a bot may miss such a win."""
        key = self._key(state, tiles)
        hit = self._shanten.get(key)
        if hit is None:
            counts = counts_of(t // 4 for t in tiles)
            hit = self._shape(state, counts, len(state.melds[self.seat])).shanten()
            self._remember(key, hit)
        return hit

    def _remember(self, key: tuple[int, ...], value: int) -> None:
        if len(self._shanten) > 256:
            self._shanten.clear()
        self._shanten[key] = value

    def _can_win(self, state: RoundState, extra: int | None) -> bool:
        seat = self.seat
        hand = state.hands[seat]
        if extra is None:
            before = list(hand)
            assert state.last_tile is not None
            before.remove(state.last_tile)
        else:
            before = hand
        if self._shanten_of(state, before) > 0:
            return False
        counts = counts_of(t // 4 for t in hand)
        if extra is not None:
            counts[extra] += 1
        # is_win first: it is cheap, and the full check (readings, ruleset bars) is not
        if not is_win(counts, state.wild, state.options, state.held_melds(seat)):
            return False
        return refusal(state, candidate_win(state, seat)) is None

    # -- own turn ----------------------------------------------------------------------

    def _turn(self, state: RoundState) -> Action:
        seat = self.seat
        if state.source is not Source.CLAIM:
            if self._can_win(state, None):
                return DeclareWin(seat)
            kong = self._self_kong(state)
            if kong is not None:
                return kong
        return Discard(seat, self._discard_tile(state))

    def _self_kong(self, state: RoundState) -> Action | None:
        seat = self.seat
        hand = state.hands[seat]
        counts = counts_of(t // 4 for t in hand)
        pungs = {m.tiles[0] // 4 for m in state.melds[seat] if m.type is MeldType.PUNG}
        fours = [k for k in range(34) if counts[k] == 4]
        added = [t for t in hand if t // 4 in pungs]
        if not fours and not added:
            return None
        assert state.wall is not None
        if state.wall.peek_tail() is None:
            return None
        if added:
            return Kong(seat, added[0])  # the fourth of a pung is no use in the hand
        n = len(state.melds[seat])
        held = {k for k in range(34) if counts[k]}
        now = min(self._shape(state, counts, n).discards(held).values())
        for k in fours:
            rest = list(counts)
            rest[k] = 0
            if self._shape(state, rest, n + 1).shanten() <= now:
                return Kong(seat, next(t for t in hand if t // 4 == k))
        return None

    def _discard_tile(self, state: RoundState) -> int:
        seat = self.seat
        hand = state.hands[seat]
        counts = counts_of(t // 4 for t in hand)
        kinds = {t // 4 for t in hand}
        keep = state.keep[seat] if state.claim_rules.keep_claimed else None
        if keep is not None and len(kinds) > 1:
            kinds.discard(keep)
        scores = self._shape(state, counts, len(state.melds[seat])).discards(kinds)
        wild = state.wild

        low = min(scores.values())
        tied = [k for k in kinds if scores[k] == low]

        def rank(k: int) -> tuple[bool, int, int, int]:
            return (k in wild, _links(counts, k), _value(k), k)

        best = min(tied, key=rank) if len(tied) > 1 else tied[0]
        tile = max(t for t in hand if t // 4 == best)
        rest = list(hand)
        rest.remove(tile)
        self._remember(self._key(state, rest), scores[best])
        return tile

    # -- someone else's tile -----------------------------------------------------------

    def _answer(self, state: RoundState) -> Action:
        seat = self.seat
        tile = state.last_tile
        assert tile is not None
        kind = tile // 4
        if self._can_win(state, kind):
            return DeclareWin(seat)
        if state.phase is Phase.ROB:
            return Pass(seat)
        claim = self._claim(state, kind)
        return claim if claim is not None else Pass(seat)

    def _claim(self, state: RoundState, kind: int) -> Action | None:
        if kind in state.wild:
            return None  # a jing is worth more in the hand than in a meld
        seat = self.seat
        hand = state.hands[seat]
        held = sum(1 for t in hand if t // 4 == kind)
        pairs = self._chow_pairs(state, kind) if seat == (state.turn + 1) % SEATS else []
        if held < 2 and not pairs:
            return None
        rules = state.claim_rules
        assert state.wall is not None
        counts = counts_of(t // 4 for t in hand)
        limit_ok = not rules.max_claims or state.claims_count[seat] < rules.max_claims
        n = len(state.melds[seat])
        now = self._shanten_of(state, hand)
        if now <= 0:
            return None  # ready already: keep the hand concealed and wait
        if held == 3 and state.wall.peek_tail() is not None:
            rest = list(counts)
            rest[kind] = 0
            if self._shape(state, rest, n + 1).shanten() <= now:
                return Kong(seat)
        if held >= 2 and limit_ok:
            rest = list(counts)
            rest[kind] -= 2
            if self._after_claim(state, rest, n + 1, kind) < now:
                return Pung(seat)
        if not limit_ok:
            return None
        for a, b in pairs:
            rest = list(counts)
            rest[a] -= 1
            rest[b] -= 1
            if self._after_claim(state, rest, n + 1, kind) < now:
                ta = next(t for t in hand if t // 4 == a)
                tb = next(t for t in hand if t // 4 == b)
                return Chow(seat, (ta, tb))
        return None

    def _chow_pairs(self, state: RoundState, kind: int) -> list[tuple[int, int]]:
        """The two kinds the hand could chow ``kind`` with (never using a wildcard)."""
        if kind >= 27:
            return []
        held = {t // 4 for t in state.hands[self.seat]} - state.wild
        lo = kind - kind % 9
        out = []
        for a, b in ((kind - 2, kind - 1), (kind - 1, kind + 1), (kind + 1, kind + 2)):
            if a >= lo and b < lo + 9 and a in held and b in held:
                out.append((a, b))
        return out

    def _after_claim(self, state: RoundState, rest: list[int], melds: int, kind: int) -> int:
        """Best shanten after claiming and discarding (the claimed kind may be barred)."""
        kinds = {k for k in range(34) if rest[k]}
        if state.claim_rules.keep_claimed and len(kinds) > 1:
            kinds.discard(kind)
        if not kinds:
            return 99
        return min(self._shape(state, rest, melds).discards(kinds).values())
