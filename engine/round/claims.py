"""Wins and the claim window: who may win, and how the claims on one tile resolve.

Order of claims (docs/rules/common.md#claims-on-a-discard): 胡 beats 杠/碰 beats 吃.
Several 胡 on one tile resolve by the ruleset (``Ruleset.rank_wins``): the nearest after the
discarder (截胡), all of them (一炮多响), or the largest hand (chongji). The same resolution
serves 抢杠.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.round.events import (
    Chowed,
    ClaimDeclared,
    ClaimName,
    ClaimsResolved,
    Event,
    Exhausted,
    Konged,
    Punged,
    SourceName,
    WinDeclared,
    WinRejected,
)
from engine.round.finish import finished_hand
from engine.round.state import AT_ROB, SEATS, Phase, RoundState, Source
from engine.settlement import SeatEnd, Win, WinSource
from engine.tiles import kind_of

_SOURCE_NAMES: dict[WinSource, SourceName] = {
    WinSource.SELF_DRAW: "self",
    WinSource.DISCARD: "discard",
    WinSource.ROB_KONG: "rob_kong",
    WinSource.KONG_REPLACEMENT: "kong_replacement",
}


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a declared win does not stand."""

    code: str
    reason: str


def candidate_win(state: RoundState, seat: int) -> Win:
    """The win ``seat`` would declare now: on its own tile in its turn, else on the tile
    in the window (the discard, or the tile added to a kong)."""
    tile = state.last_tile
    assert tile is not None
    kind = kind_of(tile)
    if state.phase is Phase.TURN:
        source = (
            WinSource.KONG_REPLACEMENT
            if state.source is Source.REPLACEMENT
            else (WinSource.SELF_DRAW)
        )
        no_claims = not state.claims_made
        tian = seat == state.dealer and state.source is Source.DEAL
        di = (
            seat != state.dealer
            and state.source is Source.DRAW
            and state.draws[seat] == 1
            and no_claims
        )
        wall = state.wall
        last = state.source is Source.DRAW and wall is not None and wall.is_exhausted
        return Win(seat, kind, source, None, tian=tian, di=di, last_tile=last)
    source = WinSource.ROB_KONG if state.phase is Phase.ROB else WinSource.DISCARD
    di = (
        source is WinSource.DISCARD
        and state.turn == state.dealer
        and state.discards_total == 1
        and not state.claims_made
    )
    return Win(seat, kind, source, state.turn, di=di)


def refusal(state: RoundState, win: Win) -> Refusal | None:
    """None if ``win`` stands; else why not (诈胡, 相公, 漏胡, 自摸不胡, a ruleset bar)."""
    why_not = _table_refusal(state, win)
    if why_not is not None:
        return why_not
    why = state.ruleset.win_refusal(finished_hand(state, [win]), win)
    if why is None:
        return None
    code = "not_a_win" if why.startswith("不是胡牌") else "forbidden"
    return Refusal(code, why)


def win_stands(state: RoundState, win: Win) -> bool:
    """``refusal(state, win) is None`` without the reason (the ruleset may decide faster)."""
    if _table_refusal(state, win) is not None:
        return False
    ruleset = state.ruleset
    if ruleset.refuses_by_seat and _seat_refuses(state, win):
        return False  # most refused wins the bots see: no need to build the whole hand
    return ruleset.win_stands(finished_hand(state, [win]), win)


def _seat_refuses(state: RoundState, win: Win) -> bool:
    """The ruleset's verdict on the winner's seat alone, built as ``finished_hand`` would
    (the winner's melds are never a robbed kong: that is the discarder's)."""
    seat = win.seat
    concealed = [kind_of(t) for t in state.hands[seat]]
    if not win.self_drawn:
        concealed.append(win.tile)
    end = SeatEnd(tuple(concealed), state.held_melds(seat))
    wall = state.wall
    flip = None if wall is None else wall.flip
    return state.ruleset.seat_refuses(end, None if flip is None else flip.kind, win)


def _table_refusal(state: RoundState, win: Win) -> Refusal | None:
    """The bars the table keeps whatever the ruleset: 相公, 自摸不胡, 漏胡."""
    seat = win.seat
    want = 14 if win.self_drawn else 13
    if state.tile_count(seat) != want:
        return Refusal("xianggong", "相公：牌数不对，不能胡 (wrong tile count, cannot win)")
    if not win.self_drawn:
        if state.blocked[seat]:
            return Refusal(
                "zimo_buhu", "自摸不胡，摸牌前不能胡别人的牌 (passed a self-draw win; wait a draw)"
            )
        if win.tile in state.passed_kinds[seat]:
            return Refusal("louhu", "漏胡：过胡的牌摸牌前不能再胡 (passed this tile; wait a draw)")
    return None


def win_events(state: RoundState, win: Win) -> WinDeclared:
    return WinDeclared(
        seat=win.seat,
        tile=_window_tile(state),
        source=_SOURCE_NAMES[win.source],
        discarder=win.discarder,
        tian=win.tian,
        di=win.di,
        last_tile=win.last_tile,
    )


def _window_tile(state: RoundState) -> int:
    assert state.last_tile is not None
    return state.last_tile


def rejected(state: RoundState, seat: int, why: Refusal) -> WinRejected:
    return WinRejected(
        seat=seat,
        code=why.code,
        reason=why.reason,
        penalised=state.ruleset.false_win_penalised(),
    )


def resolve(state: RoundState, answers: dict[int, ClaimDeclared | None]) -> list[Event]:
    """Close the window: ``answers`` holds every other seat's claim (None: passed)."""
    tile = state.last_tile
    assert tile is not None
    if not any(answers.values()):
        # everyone passed (the usual case): the replacement or the next draw is due
        key = (tile, state.turn)
        done = _ALL_PASSED.get(key)
        if done is None:
            # events are frozen: one per tile and discarder serves every such window
            done = _ALL_PASSED[key] = ClaimsResolved(tile, tuple(sorted(answers)))
        out: list[Event] = [done]
        if state.phase is not AT_ROB:
            wall = state.wall
            if wall is not None and wall.is_exhausted:
                out.append(Exhausted())
        return out
    claims = {s: c for s, c in answers.items() if c is not None}
    passed = tuple(s for s in sorted(answers) if answers[s] is None)
    out = [ClaimsResolved(tile, passed)]
    wins = [candidate_win(state, s) for s, c in sorted(claims.items()) if c.claim == "win"]
    if wins:
        hand = finished_hand(state, wins)
        for win in state.ruleset.rank_wins(hand, wins):
            out.append(win_events(state, win))
        return out
    if state.phase is Phase.ROB:
        return out  # nobody robbed: the replacement is due
    src = state.turn
    seat = standing_meld_claim(src, {s: c.claim for s, c in claims.items()})
    if seat is not None:
        out.append(_claim_event(src, tile, claims[seat]))
        return out
    wall = state.wall
    if wall is not None and wall.is_exhausted:
        out.append(Exhausted())
    return out


_ALL_PASSED: dict[tuple[int, int], ClaimsResolved] = {}
_MELD_CLAIMS: tuple[ClaimName, ...] = ("kong", "pung", "chow")  # the order they beat


def standing_meld_claim(discarder: int, claims: Mapping[int, ClaimName]) -> int | None:
    """The seat whose meld claim on a discard stands when nobody wins on it: 杠 beats 碰
    beats 吃, and of equal claims the nearest seat after the ``discarder``. The round
    resolves its window by it, and players that only claim what would stand ask it."""
    for kind in _MELD_CLAIMS:
        for seat in sorted(claims, key=lambda s: (s - discarder) % SEATS):
            if claims[seat] == kind:
                return seat
    return None


def _claim_event(src: int, tile: int, c: ClaimDeclared) -> Event:
    if c.claim == "kong":
        return Konged(c.seat, "exposed", c.tiles, from_seat=src, tile=tile)
    if c.claim == "pung":
        return Punged(c.seat, src, tile, c.tiles)
    return Chowed(c.seat, src, tile, c.tiles)
