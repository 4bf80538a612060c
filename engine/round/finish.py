"""From a hand to the ruleset's settlement: the played hand as ``FinishedHand``, or the
one staff entered (``mjtable settle``'s request), or a void."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine.hand import Meld, MeldType
from engine.round.events import SettlingAct, StaffAct, WinDeclared
from engine.round.state import SEATS, RoundState
from engine.rulesets import settle_request
from engine.settlement import FinishedHand, SeatEnd, Settlement, Win, WinSource
from engine.tiles import kind_of

_SOURCES = {
    "self": WinSource.SELF_DRAW,
    "discard": WinSource.DISCARD,
    "rob_kong": WinSource.ROB_KONG,
    "kong_replacement": WinSource.KONG_REPLACEMENT,
}


def win_of(e: WinDeclared) -> Win:
    return Win(
        seat=e.seat,
        tile=kind_of(e.tile),
        source=_SOURCES[e.source],
        discarder=e.discarder,
        tian=e.tian,
        di=e.di,
        last_tile=e.last_tile,
    )


# FinishedHands by everything they are built from: a won hand is built for the bot's
# check, again for the declaration and again for its settlement, from the same tiles.
# Keyed by content (never by a state, which changes), so a hit is always current.
_HANDS: dict[tuple[object, ...], FinishedHand] = {}


def finished_hand(state: RoundState, wins: Sequence[Win] | None = None) -> FinishedHand:
    """The hand as the settlement sees it, with ``wins`` (default: the declared wins).

    A tile won off a discard leaves the discarder's discards; a robbed kong goes back to
    the pung it was, its fourth tile being the winner's.
    """
    wins = tuple(win_of(e) for e in state.wins) if wins is None else tuple(wins)
    started = state.started
    wall = state.wall
    flip = None if wall is None else wall.flip
    xia = None if wall is None else wall.xia_jing
    key = (
        wins,
        tuple(map(tuple, state.hands)),
        tuple(map(tuple, state.melds)),
        tuple(map(tuple, state.discards)),
        flip,
        xia,
        started.ruleset,
        started.dealer,
        started.dealer_streak,
        started.prevailing_wind,
        started.first_dealer,
        repr(started.options),  # JSON values: the repr is the content, and hashable
        state.gz_rounds,
        tuple(state.false_win),
        state.last_drawer,
    )  # (the claim rules and the wild kinds follow from the ruleset, options and flip)
    hand = _HANDS.get(key)
    if hand is None:
        if len(_HANDS) >= 16:
            # a hand's wins are asked for within that hand only: a small table lets the
            # old ones die young instead of piling up for the collector's full passes
            _HANDS.clear()
        hand = _HANDS[key] = _build(state, wins)
    return hand


def clear_finished_hands() -> None:
    """Forget the built hands (the benchmark measures cold start)."""
    _HANDS.clear()


def _build(state: RoundState, wins: tuple[Win, ...]) -> FinishedHand:
    by_seat = {w.seat: w for w in wins}
    taken_from = next((w.discarder for w in wins if w.source is WinSource.DISCARD), None)
    robbed = next((w for w in wins if w.source is WinSource.ROB_KONG), None)
    seats: list[SeatEnd] = []
    for s in range(SEATS):
        concealed = [kind_of(t) for t in state.hands[s]]
        win = by_seat.get(s)
        if win is not None and not win.self_drawn:
            concealed.append(win.tile)
        melds = [m.meld() for m in state.melds[s]]
        if robbed is not None and robbed.discarder == s:
            melds = [_unrob(m, robbed.tile) for m in melds]
        discards = [kind_of(t) for t in state.discards[s]]
        if taken_from == s and discards:
            discards.pop()
        seats.append(SeatEnd(tuple(concealed), tuple(melds), tuple(discards)))
    wall = state.wall
    flip = None if wall is None else wall.flip
    xia = None if wall is None else wall.xia_jing
    return FinishedHand(
        ruleset=state.started.ruleset,
        dealer=state.dealer,
        seats=(seats[0], seats[1], seats[2], seats[3]),
        wins=wins,
        dealer_streak=state.started.dealer_streak,
        prevailing_wind=state.started.prevailing_wind,
        indicator=None if flip is None else flip.kind,
        an_indicator=None if flip is None else flip.under_kind,
        xia_indicator=None if xia is None else xia.kind,
        genzhuang_rounds=state.gz_rounds,
        false_win=tuple(state.false_win),
        options=dict(state.started.options),
        last_drawer=state.last_drawer,
        first_dealer=state.started.first_dealer,
        guan_fengxiang=_guan_fengxiang(state, wins),
    )


def _unrob(meld: Meld, kind: int) -> Meld:
    if meld.type is MeldType.KONG_ADDED and meld.kinds[0] == kind:
        return Meld(MeldType.PUNG, meld.kinds[:3], meld.from_seat, meld.claimed)
    return meld


def _guan_fengxiang(state: RoundState, wins: Sequence[Win]) -> bool:
    """chongji 关风向: the seat that dealt into a win still holds an honor (not the 财神)."""
    if not state.claim_rules.guan_fengxiang:
        return False
    discarder = next((w.discarder for w in wins if w.source is WinSource.DISCARD), None)
    if discarder is None:
        return False
    wild = state.wild
    return any(k >= 27 and k not in wild for k in map(kind_of, state.hands[discarder]))


def settle(state: RoundState) -> Settlement:
    """The settlement the folded hand stands on: the played hand's, or a void one, or the
    one from the tiles staff entered (``engine.round.staff``)."""
    if state.voided:
        return void_settlement(state)
    if state.staff_settle is not None:
        return staff_settlement(state.staff_settle)
    return state.ruleset.settle(finished_hand(state))


def staff_settlement(act: StaffAct) -> Settlement:
    """What a finish or a correction settles to: ``mjtable settle`` on its request, marked
    as entered by a person."""
    assert isinstance(act, SettlingAct)
    settled = settle_request(act.request)
    return replace(settled, notes=(*settled.notes, entered_note(act)))


def entered_note(act: StaffAct) -> str:
    who = {"staff": "工作人员", "player": "玩家"}.get(act.role, "老板")
    return f"{who}录入 (entered by {act.role} {act.by})"


VOID_NOTE = "作废 (voided by staff)"


def void_settlement(state: RoundState) -> Settlement:
    """A voided hand moves no points and passes no deal: the next hand is dealt as this
    one was."""
    started = state.started
    return Settlement(
        lines=(),
        next_dealer=started.dealer,
        void=True,
        dealer_streak=started.dealer_streak,
        notes=(VOID_NOTE,),
    )
