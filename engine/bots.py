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
    """One virtual player. Stateless: the same state always gives the same action."""

    def __init__(self, seat: int) -> None:
        self.seat = seat

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

    # -- own turn ----------------------------------------------------------------------

    def _can_win(self, state: RoundState, extra: int | None) -> bool:
        seat = self.seat
        counts = counts_of(state.kinds(seat))
        if extra is not None:
            counts[extra] += 1
        opts = state.ruleset.shape_options()
        melds = state.held_melds(seat)
        # is_win first: it is cheap, and the full check (readings, ruleset bars) is not
        if not is_win(counts, state.wild, opts, melds):
            return False
        return refusal(state, candidate_win(state, seat)) is None

    def _turn(self, state: RoundState) -> Action:
        seat = self.seat
        if state.source is not Source.CLAIM:
            if self._can_win(state, None):
                return DeclareWin(seat)
            kong = self._self_kong(state)
            if kong is not None:
                return kong
        return Discard(seat, self._discard_tile(state))

    def _shape(self, state: RoundState, counts: list[int], melds: int) -> HandShape:
        return HandShape(counts, state.wild, state.ruleset.shape_options(), melds)

    def _self_kong(self, state: RoundState) -> Action | None:
        assert state.wall is not None
        if state.wall.peek_tail() is None:
            return None
        seat = self.seat
        hand = state.hands[seat]
        counts = counts_of(state.kinds(seat))
        pungs = {m.tiles[0] // 4 for m in state.melds[seat] if m.type is MeldType.PUNG}
        for t in hand:
            if t // 4 in pungs:
                return Kong(seat, t)  # the fourth of a pung is no use in the hand
        n = len(state.melds[seat])
        now = min(
            self._shape(state, counts, n).discards({k for k in range(34) if counts[k]}).values()
        )
        for t in hand:
            k = t // 4
            if counts[k] == 4:
                rest = list(counts)
                rest[k] = 0
                if self._shape(state, rest, n + 1).shanten() <= now:
                    return Kong(seat, t)
        return None

    def _discard_tile(self, state: RoundState) -> int:
        seat = self.seat
        hand = state.hands[seat]
        counts = counts_of(state.kinds(seat))
        kinds = {t // 4 for t in hand}
        keep = state.keep[seat] if state.claim_rules.keep_claimed else None
        if keep is not None and len(kinds) > 1:
            kinds.discard(keep)
        scores = self._shape(state, counts, len(state.melds[seat])).discards(kinds)
        wild = state.wild

        def rank(k: int) -> tuple[int, int, int, int, int]:
            return (scores[k], k in wild, _links(counts, k), _value(k), k)

        best = min(kinds, key=rank)
        return max(t for t in hand if t // 4 == best)

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
        seat = self.seat
        rules = state.claim_rules
        assert state.wall is not None
        counts = counts_of(state.kinds(seat))
        held = counts[kind]
        is_jing = kind in state.wild
        chow_ok = seat == (state.turn + 1) % SEATS and kind < 27
        if held < 2 and not chow_ok:
            return None
        if is_jing:
            return None  # a jing is worth more in the hand than in a meld
        limit_ok = not rules.max_claims or state.claims_count[seat] < rules.max_claims
        n = len(state.melds[seat])
        now = self._shape(state, counts, n).shanten()
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
        if chow_ok and limit_ok:
            return self._chow(state, counts, n, now, kind)
        return None

    def _after_claim(self, state: RoundState, rest: list[int], melds: int, kind: int) -> int:
        """Best shanten after claiming and discarding (the claimed kind may be barred)."""
        kinds = {k for k in range(34) if rest[k]}
        if state.claim_rules.keep_claimed and len(kinds) > 1:
            kinds.discard(kind)
        if not kinds:
            return 99
        return min(self._shape(state, rest, melds).discards(kinds).values())

    def _chow(
        self, state: RoundState, counts: list[int], n: int, now: int, kind: int
    ) -> Action | None:
        seat = self.seat
        lo = kind - kind % 9
        for a, b in ((kind - 2, kind - 1), (kind - 1, kind + 1), (kind + 1, kind + 2)):
            if a < lo or b >= lo + 9 or not counts[a] or not counts[b]:
                continue
            if a in state.wild or b in state.wild:
                continue
            rest = list(counts)
            rest[a] -= 1
            rest[b] -= 1
            if self._after_claim(state, rest, n + 1, kind) < now:
                ta = next(t for t in state.hands[seat] if t // 4 == a)
                tb = next(t for t in state.hands[seat] if t // 4 == b)
                return Chow(seat, (ta, tb))
        return None
