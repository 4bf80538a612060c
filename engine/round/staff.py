"""The events of a person's act on a hand (the commands of ``engine.round.commands``:
finish it by hand, correct a win, a penalty, an adjustment, a void, an undo, a flip
entered, the session closed). Each event (``FinishedByStaff`` … in ``engine.round.events``)
carries who, when and why; ``fold`` folds them like any other, so a replay of the log
gives the same hand and the same totals.

``act`` checks everything first and returns the events, or raises ``StaffInputError``
naming the field at fault, having changed nothing; ``apply`` calls it and answers a
refusal as a ``Rejection``. A hand finished by hand is settled from a ``mjtable settle``
object through ``settle_request``, exactly as the CLI settles it. Here too: what a hand
adds to its session's totals (``hand_net``) and their recount from a log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypedDict

from engine.round.commands import (
    Adjust,
    Audit,
    CloseSession,
    CorrectResult,
    CorrectWin,
    EnterFlip,
    Finish,
    Penalise,
    StaffCommand,
    StaffInputError,
    Undo,
    Void,
    VoidEarlier,
    seat_of,
)
from engine.round.events import (
    MAX_POINTS,
    Adjusted,
    EnteredResult,
    Event,
    FinishedByStaff,
    FlipEntered,
    HandStarted,
    HandVoided,
    PenaltyApplied,
    ResultCorrected,
    SessionClosed,
    Settled,
    SettlingAct,
    StaffAct,
    StaffUndone,
    WinCorrected,
    amount_in,
    amount_out,
    settlement_to_dict,
)
from engine.round.finish import finished_hand, settle, void_settlement, win_of
from engine.round.fold import advance, start
from engine.round.state import SEATS, HeldMeld, Phase, RoundState
from engine.settlement import Amount, SettleInputError, parse_finished_hand
from engine.settlement.finished_hand import from_text, parse_win, request_of
from engine.settlement.needs import kind_of, reduced_hand
from engine.tiles import format_kinds, kind_name, parse_kinds
from engine.wall import Flip, FlipKind


class _AuditFields(TypedDict):
    by: str
    role: Literal["staff", "owner", "player"]
    at: str
    reason: str


def audit_fields(audit: Audit) -> _AuditFields:
    return {"by": audit.by, "role": audit.role, "at": audit.at, "reason": audit.reason}


# --- the hand as ``mjtable settle`` reads it ------------------------------------------


def _meld_out(m: HeldMeld) -> dict[str, Any]:
    out: dict[str, Any] = {"type": m.type.value, "tiles": format_kinds(t // 4 for t in m.tiles)}
    if m.from_seat is not None:
        out["from"] = m.from_seat
    if m.claimed is not None:
        out["claimed"] = format_kinds([m.claimed // 4])
    return out


def read_seat(state: RoundState, seat: int) -> dict[str, Any]:
    """What the readers saw of ``seat``: its concealed tiles and melds (settle vocabulary).
    Concealed: a caller shows it to staff only once the hand is laid down."""
    return {
        "hand": format_kinds(sorted(t // 4 for t in state.hands[seat])),
        "melds": [_meld_out(m) for m in state.melds[seat]],
    }


def read_winners(state: RoundState) -> list[dict[str, Any]]:
    """The declared wins with the readers' picture of each winner's hand (the starting
    point staff correct), in the ``winners`` vocabulary of a finish."""
    out = []
    for w in state.wins:
        seat = read_seat(state, w.seat)
        if w.source in ("discard", "rob_kong"):
            seat["hand"] = format_kinds(
                sorted([*(t // 4 for t in state.hands[w.seat]), w.tile // 4])
            )
        flags = [f for f in ("tian", "di", "last_tile") if getattr(w, f)]
        tile = format_kinds([w.tile // 4])
        src = from_text(win_of(w))
        out.append({"seat": w.seat, **seat, "tile": tile, "from": src, "flags": flags})
    return out


def result_of(state: RoundState) -> dict[str, Any]:
    """The whole result of a played hand as a finish enters it on a hand whose tiles the
    engine never saw (a table without readers): the winners, every other seat's hand and
    melds (a robbed kong as the pung it was) and discards, and the flipped tiles."""
    winners = read_winners(state)
    played = request_of(finished_hand(state))["seats"]  # discards as the settlement reads them
    for w in winners:
        w["discards"] = played[w["seat"]]["discards"]
    seats = []
    for s in range(SEATS):
        if not any(w["seat"] == s for w in winners):
            seats.append({"seat": s, **played[s]})
    wall = state.wall
    out: dict[str, Any] = {"seats": seats}
    out |= {"winners": winners} if winners else {"result": "exhausted"}
    for name, flip, under in (
        ("indicator", None if wall is None else wall.flip, False),
        ("an_indicator", None if wall is None else wall.flip, True),
        ("xia_indicator", None if wall is None else wall.xia_jing, False),
    ):
        k = None if flip is None else (flip.under_kind if under else flip.kind)
        if k is not None:
            out[name] = format_kinds([k])
    return out


def settle_input(
    state: RoundState,
    wins: Sequence[Mapping[str, Any]],
    seats: Mapping[int, Mapping[str, Any]],
    xia_indicator: str | None = None,
    flip: Mapping[str, str | None] | None = None,
) -> dict[str, Any]:
    """The ``mjtable settle`` object of this hand: the hand as the settlement sees it
    (``finished_hand`` with these wins, written by ``request_of``), ``seats`` (seat ->
    hand and melds) as given in place of the readers' picture. ``flip``
    ({indicator, an_indicator}) is the turned-up tile as staff entered it, on a hand
    whose flip no reader saw (a table without readers)."""
    parsed = tuple(parse_win(w, f"win[{i}]") for i, w in enumerate(wins))
    request = request_of(finished_hand(state, parsed))
    out_seats = request["seats"]
    for s in range(SEATS):
        given = seats.get(s)
        if given is not None and given.get("partial"):
            out_seats[s] = dict(given)  # (only what the settlement reads, as given)
        elif given is not None:
            out_seats[s] = dict(given) | {
                "discards": given.get("discards", out_seats[s]["discards"])
            }
        elif not wins and state.tile_count(s) == 14 and state.last_tile is not None:
            # 流局 by hand in the middle of a turn: the tile just drawn is not played
            held = [t // 4 for t in state.hands[s]]
            if state.last_tile in state.hands[s]:
                held.remove(state.last_tile // 4)
            else:
                held.pop()
            out_seats[s]["hand"] = format_kinds(sorted(held))
    entered = dict(flip or {})
    if state.flip_entered is not None and entered.get("indicator") is None:
        entered["indicator"] = state.flip_entered.indicator
    if seen_flip(state) is None:
        request["indicator"] = entered.get("indicator")
        request["an_indicator"] = entered.get("an_indicator")
    if seen_xia(state) is None:
        request["xia_indicator"] = xia_indicator
    request["win"] = list(wins) or None
    return request


def _settled_events(state: RoundState, act: StaffAct) -> list[Event]:
    """``act`` and its settlement, tried on a copy: a settlement error names the field and
    leaves ``state`` as it was. Every winner's hand must win: a ruleset with a 诈胡
    penalty would settle a non-win as one, and that is a penalty act, not a finish."""
    assert isinstance(act, SettlingAct)
    hand = parse_finished_hand(act.request)
    for n, win in enumerate(hand.wins):
        why = state.ruleset.win_refusal(hand, win)
        if why is not None:
            where = "win" if len(hand.wins) == 1 else f"win[{n}]"
            raise SettleInputError(f"{where}: seats[{win.seat}] {why}")
    scratch = advance(state, [act])
    return [act, Settled(settlement_to_dict(settle(scratch)))]


def _open(state: RoundState) -> None:
    if state.phase is Phase.DONE:
        raise StaffInputError("hand: settled already (correct the win, or void the hand)")


def act(state: RoundState, command: StaffCommand) -> list[Event]:
    """The events of a person's act on the hand, or ``StaffInputError`` naming the field
    at fault, nothing changed (``engine.round.apply`` answers it as a ``Rejection``)."""
    match command:
        case Finish():
            return _finish(state, command)
        case CorrectWin():
            return _correct_win(state, command)
        case CorrectResult():
            return _correct_result(state, command)
        case Penalise():
            return _penalise(state, command)
        case Adjust():
            return _adjust(state, command)
        case Void():
            return _void(state, command)
        case VoidEarlier():
            return _void_earlier(state, command)
        case Undo():
            return _undo(state, command)
        case EnterFlip():
            return _enter_flip(state, command)
        case CloseSession():
            return _close_session(state, command)
    raise StaffInputError(f"not an act of staff: {command!r}")


def _finish(state: RoundState, c: Finish) -> list[Event]:
    """Finish the hand by hand: the winners (none: 流局), other seats in place of the
    readers' picture, and the flipped tiles no reader saw (on a table without readers
    the hand's whole result comes this way, on a hand whose tiles the engine never saw)."""
    audit = c.audit
    audit.check(reason_required=False)
    _open(state)
    flipped = seen_flip(state) is not None
    for name, given_kind in (("indicator", c.indicator), ("an_indicator", c.an_indicator)):
        if given_kind is not None and flipped:
            raise StaffInputError(f"{name}: the readers saw the flip; it is not entered by hand")
    if c.xia_indicator is not None and seen_xia(state) is not None:
        raise StaffInputError("xia_indicator: the readers saw the 下精; it is not entered by hand")
    entered = state.flip_entered
    if c.indicator is not None and entered is not None and c.indicator != entered.indicator:
        raise StaffInputError(
            f"indicator: entered as {entered.indicator} already (undo that act to change it)"
        )
    if len(c.winners) > 3:
        raise StaffInputError("winners: at most 3")
    given: dict[int, Mapping[str, Any]] = {}
    for i, w in enumerate(c.winners):
        if w.seat in given:
            raise StaffInputError(f"winners[{i}].seat: seat {w.seat} is listed twice")
        given[w.seat] = w.held()
    for i, s in enumerate(c.seats):
        if s.seat in given:
            raise StaffInputError(f"seats[{i}].seat: seat {s.seat} is given twice")
        given[s.seat] = s.held()
    order = [w.seat for w in c.winners]
    overrides: list[object] = [s.seat for s in c.seats]
    flip = {"indicator": c.indicator, "an_indicator": c.an_indicator}
    try:
        wins = [w.win() for w in c.winners]
        request = settle_input(state, wins, given, c.xia_indicator, flip)
        made = FinishedByStaff(
            **audit_fields(audit), winners=tuple(w.as_dict() for w in c.winners), request=request
        )
        return _settled_events(state, made)
    except SettleInputError as err:
        if isinstance(err, StaffInputError):
            raise
        raise StaffInputError(_in_request_terms(str(err), order, overrides)) from None


_SETTLE_SEAT = re.compile(r"^seats\[(\d)\]")
_SETTLE_WIN = re.compile(r"^win(\[\d\])?")


def _in_request_terms(message: str, winners: list[int], overrides: list[object]) -> str:
    """A ``mjtable settle`` error, naming the field of the finish request: ``win[0]`` is
    ``winners[0]``, ``seats[2]`` the winner, the seat given, or the readers' picture."""
    m = _SETTLE_SEAT.match(message)
    if m:
        seat = int(m.group(1))
        if seat in winners:
            where = f"winners[{winners.index(seat)}]"
        elif seat in overrides:
            where = f"seats[{overrides.index(seat)}]"
        else:
            where = f"seat {seat} (as the readers saw it: give it in seats)"
        return where + message[m.end() :]
    m = _SETTLE_WIN.match(message)
    if m:
        return f"winners{m.group(1) or '[0]'}" + message[m.end() :]
    return message


def _correct_win(state: RoundState, c: CorrectWin) -> list[Event]:
    """The winner's tiles as staff read them on the laid-down hand, before the next hand
    starts; the readers' picture is kept beside them in the event."""
    c.audit.check(reason_required=False)
    seat = seat_of(c.seat, "seat")
    declared = [w for w in state.wins if w.seat == seat]
    if not declared:
        raise StaffInputError(f"seat: seat {seat} declared no win in this hand")
    if state.voided:
        raise StaffInputError("hand: voided")
    corrected = {"hand": c.hand, "melds": [m.as_dict() for m in c.melds]}
    wins = read_winners(state)
    win_objs = []
    for w in wins:
        obj = {"seat": w["seat"], "tile": w["tile"], "from": w["from"]} | {
            f: True for f in w["flags"]
        }
        win_objs.append(obj)
    held = {w["seat"]: {"hand": w["hand"], "melds": w["melds"]} for w in wins}
    read = held[seat]
    held[seat] = corrected
    try:
        request = settle_input(state, win_objs, held)
        made = WinCorrected(
            **audit_fields(c.audit), seat=seat, read=read, corrected=corrected, request=request
        )
        return _settled_events(state, made)
    except SettleInputError as err:
        if isinstance(err, StaffInputError):
            raise
        raise StaffInputError(f"hand: {err}") from None


def entered_result(state: RoundState) -> tuple[EnteredResult, RoundState] | None:
    """The result entered by hand the settled hand stands on (a staff finish, the
    players' claim, or a correction of either), and the hand as its first entry found
    it; None for a hand the readers settled, a voided hand or one not settled."""
    act = state.staff_settle
    if state.settlement is None or state.voided or not isinstance(act, EnteredResult):
        return None
    first = [(a, before) for a, before in state.staff_acts if isinstance(a, FinishedByStaff)]
    return (act, first[-1][1]) if first else None


def entered_entry(state: RoundState) -> dict[str, Any] | None:
    """The standing result entered by hand as the finish entry takes it, to correct it
    from: its winners as entered (laid face up), every other seat cut to what the
    ruleset settles from it (``reduced_hand``: never a concealed tile it does not read),
    the flipped tiles entered with it; None where there is none (``entered_result``)."""
    found = entered_result(state)
    if found is None:
        return None
    act, before = found
    hand = parse_finished_hand(act.request)
    reduced = request_of(reduced_hand(hand, state.ruleset.needs(kind_of(hand))))
    won = {w.seat for w in hand.wins}
    seats = [{"seat": s, **seat} for s, seat in enumerate(reduced["seats"]) if s not in won]
    out: dict[str, Any] = {"winners": [dict(w) for w in act.winners], "seats": seats}
    if not act.winners:
        out["result"] = "exhausted"
    # the flipped tiles that came with the result (none a reader saw, nor entered alone)
    unseen = seen_flip(before) is None
    came = {
        "indicator": unseen and before.flip_entered is None,
        "an_indicator": unseen,
        "xia_indicator": seen_xia(before) is None,
    }
    for name, entered in came.items():
        if entered and act.request.get(name) is not None:
            out[name] = act.request[name]
    return out


def _correct_result(state: RoundState, c: CorrectResult) -> list[Event]:
    """A result entered by hand entered anew once settled (a wrong winner, wrong tiles, a
    wrong way of winning): checked as a finish on the hand as that entry found it, then
    settled in place of it; what it stood on is kept beside it in the event."""
    c.audit.check(reason_required=False)
    if state.voided:
        raise StaffInputError("hand: voided")
    found = entered_result(state)
    if found is None:
        raise StaffInputError("hand: no result entered by hand to correct")
    standing, before = found
    finished = _finish(before, c.entry)[0]
    assert isinstance(finished, FinishedByStaff)
    made = ResultCorrected(
        **audit_fields(c.audit),
        was=standing.winners,
        winners=finished.winners,
        request=finished.request,
    )
    try:
        return _settled_events(state, made)
    except SettleInputError as err:  # (checked as a finish already: not expected)
        raise StaffInputError(f"hand: {err}") from None


def penalty_amount(state: RoundState, penalty: str) -> int | None:
    """The ruleset's amount for ``penalty`` (each other seat is paid it), or None when it
    has none (相公 has none in any built-in ruleset: the owner sets one)."""
    if penalty != "false_win":
        return None
    return state.ruleset.false_win_amount() or None


def penalty_in_force(
    state: RoundState, penalty: str, owner_amount: int | None
) -> tuple[int, Literal["ruleset", "owner"]] | None:
    """What ``penalty`` costs on this hand and who set it: the ruleset's amount, else the
    owner's; None while neither has one (the console says so before anyone tries)."""
    amount = penalty_amount(state, penalty)
    if amount is not None:
        return amount, "ruleset"
    return None if owner_amount is None else (owner_amount, "owner")


def _penalise(state: RoundState, c: Penalise) -> list[Event]:
    """诈胡 or 相公 on a seat: the ruleset's amount, else the one the owner set for a
    ruleset that has none."""
    c.audit.check(reason_required=True)
    seat = seat_of(c.seat, "seat")
    if c.penalty not in ("false_win", "xianggong"):
        raise StaffInputError("penalty: false_win (诈胡) or xianggong (相公)")
    in_force = penalty_in_force(state, c.penalty, c.owner_amount)
    if in_force is None:
        raise StaffInputError(
            f"penalty: {state.started.ruleset} has no {c.penalty} amount; the owner sets one"
        )
    amount, source = in_force
    if not 1 <= amount <= MAX_POINTS:
        raise StaffInputError(f"amount: 1–{MAX_POINTS} points")
    return [
        PenaltyApplied(
            **audit_fields(c.audit), seat=seat, penalty=c.penalty, amount=amount, amount_from=source
        )
    ]


def _adjust(state: RoundState, c: Adjust) -> list[Event]:
    """Points moved by hand from one seat to another (the one check that they differ)."""
    c.audit.check(reason_required=True)
    from_seat = seat_of(c.from_seat, "from_seat")
    to_seat = seat_of(c.to_seat, "to_seat")
    if from_seat == to_seat:
        raise StaffInputError("to_seat: the same seat as from_seat")
    if type(c.points) is not int or not 1 <= c.points <= MAX_POINTS:
        raise StaffInputError(f"points: 1–{MAX_POINTS}")
    return [
        Adjusted(**audit_fields(c.audit), from_seat=from_seat, to_seat=to_seat, points=c.points)
    ]


def _close_session(state: RoundState, c: CloseSession) -> list[Event]:
    """End the session after this hand, settled, its last (staff must say why)."""
    c.audit.check(reason_required=c.cause == "staff")
    if state.settlement is None:
        raise StaffInputError("hand: a hand is in progress; finish or void it, then close")
    return [SessionClosed(**audit_fields(c.audit), cause=c.cause, terms=dict(c.terms))]


def _void(state: RoundState, c: Void) -> list[Event]:
    """Void this hand (played on, ended or settled): no points move, the deal stays."""
    c.audit.check(reason_required=True)
    if state.voided:
        raise StaffInputError("hand: voided already")
    made = HandVoided(**audit_fields(c.audit), hand_no=state.started.hand_no)
    return [made, Settled(settlement_to_dict(void_settlement(state)))]


def _void_earlier(state: RoundState, c: VoidEarlier) -> list[Event]:
    """Void an earlier hand of the session, whose standing nets were ``net``: they come
    off the totals (recorded in the current hand's log)."""
    c.audit.check(reason_required=True)
    if not 1 <= c.hand_no < state.started.hand_no:
        raise StaffInputError(f"hand: not an earlier hand of this session ({c.hand_no})")
    if len(c.net) != SEATS:
        raise StaffInputError("net: four seats")
    reverses = tuple(amount_out(n) for n in c.net)
    return [HandVoided(**audit_fields(c.audit), hand_no=c.hand_no, reverses=reverses)]


def seen_flip(state: RoundState) -> Flip | None:
    """The turned-up tile as the readers saw it (None: unseen, or not turned up yet)."""
    flip = None if state.wall is None else state.wall.flip
    return flip if flip is not None and flip.tile is not None else None


def seen_xia(state: RoundState) -> int | None:
    """The 下精 indicator's kind as the readers saw it turned up after the win (None:
    unseen, not turned up yet, or a ruleset without one): else it goes with the result."""
    xia = None if state.wall is None else state.wall.xia_jing
    return None if xia is None else xia.kind


def _enter_flip(state: RoundState, c: EnterFlip) -> list[Event]:
    """The turned-up 精 (财神 indicator) entered by hand where no reader saw it: one tile
    in notation. Refused once the readers saw the flip, once one is entered (undo it to
    change it), on a ruleset that turns none up, and on a settled hand."""
    c.audit.check(reason_required=False)
    _open(state)
    if state.ruleset.flip_kind is FlipKind.NONE:
        raise StaffInputError(f"indicator: {state.started.ruleset} turns up no tile")
    if seen_flip(state) is not None:
        raise StaffInputError("indicator: the readers saw the flip; it is not entered by hand")
    if state.flip_entered is not None:
        raise StaffInputError(
            f"indicator: entered as {state.flip_entered.indicator} already (undo that act)"
        )
    indicator = c.indicator
    if not isinstance(indicator, str) or len(indicator) > 4:
        raise StaffInputError("indicator: one tile, e.g. 5s or E")
    try:
        kinds = parse_kinds(indicator)
    except ValueError as err:
        raise StaffInputError(f"indicator: {err}") from None
    if len(kinds) != 1:
        raise StaffInputError("indicator: one tile, e.g. 5s or E")
    return [FlipEntered(**audit_fields(c.audit), indicator=kind_name(kinds[0]))]


def _undo(state: RoundState, c: Undo) -> list[Event]:
    """Take back the last act of staff in this hand (what it changed goes back too)."""
    c.audit.check(reason_required=False)
    if not state.staff_acts:
        raise StaffInputError("undo: no act of staff in this hand")
    last, _ = state.staff_acts[-1]
    return [StaffUndone(**audit_fields(c.audit), undone=last.type)]


# --- points: a hand's share of the session totals -------------------------------------


def hand_net(state: RoundState) -> tuple[Amount, Amount, Amount, Amount]:
    """What this hand adds to the session totals: its standing settlement, its penalties
    and adjustments, less the earlier hands voided in it."""
    net: list[Amount] = [0, 0, 0, 0]
    if state.settlement is not None:
        for s, n in enumerate(state.settlement.net):
            net[s] += n
    for p in state.penalties:
        for s in range(SEATS):
            if s != p.seat:
                net[s] += p.amount
                net[p.seat] -= p.amount
    for a in state.adjustments:
        net[a.from_seat] -= a.points
        net[a.to_seat] += a.points
    for v in state.past_voids:
        for s, n in enumerate(reversed_net(v)):
            net[s] -= n
    return (net[0], net[1], net[2], net[3])


def extras_net(state: RoundState) -> tuple[Amount, ...]:
    """``hand_net`` without the settlement: the penalties, adjustments and earlier hands
    voided in this hand."""
    net = list(hand_net(state))
    if state.settlement is not None:
        for s, n in enumerate(state.settlement.net):
            net[s] -= n
    return tuple(net)


def reversed_net(v: HandVoided) -> tuple[Amount, ...]:
    return tuple(amount_in(n) for n in v.reverses)


def session_totals(events: Iterable[Event]) -> tuple[Amount, Amount, Amount, Amount]:
    """Recount a session's log from scratch (the oracle of every live total): each hand
    folded, its ``hand_net`` summed. Raises ValueError when a void takes off other nets
    than the voided hand's standing ones, or voids a hand twice."""
    totals: list[Amount] = [0, 0, 0, 0]
    standing: dict[int, tuple[Amount, ...]] = {}
    voided: set[int] = set()
    hand: list[Event] = []

    def close() -> None:
        if not hand:
            return
        state = advance(start(hand[0]), hand[1:])
        for v in state.past_voids:
            if v.hand_no in voided or v.hand_no not in standing:
                raise ValueError(f"hand {v.hand_no}: voided twice, or never played")
            want = standing[v.hand_no]
            got = reversed_net(v)
            if tuple(want) != got:
                raise ValueError(f"hand {v.hand_no}: the void takes off {got}, it stood at {want}")
            voided.add(v.hand_no)
        standing[state.started.hand_no] = (
            (0, 0, 0, 0) if state.settlement is None else state.settlement.net
        )
        for s, n in enumerate(hand_net(state)):
            totals[s] += n
        hand.clear()

    for e in events:
        if isinstance(e, HandStarted):
            close()
        hand.append(e)
    close()
    return (totals[0], totals[1], totals[2], totals[3])
