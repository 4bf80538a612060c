"""Acts of a person on a hand: finish it by hand, correct a win, a penalty, an adjustment,
a void, an undo. Each makes events (``FinishedByStaff`` … in ``engine.round.events``)
that carry who, when and why; ``fold`` folds them like any other, so a replay of the log
gives the same hand and the same totals.

Like ``apply``, each function checks everything first and returns the events, or raises
``StaffInputError`` naming the field at fault, having changed nothing. A hand finished
by hand is settled from a ``mjtable settle`` object through ``settle_request``, exactly
as the CLI settles it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypedDict, cast

from engine.round.events import (
    MAX_POINTS,
    MAX_REASON,
    Adjusted,
    Event,
    FinishedByStaff,
    FlipEntered,
    HandStarted,
    HandVoided,
    PenaltyApplied,
    PenaltyName,
    SessionClosed,
    Settled,
    StaffAct,
    StaffUndone,
    WinCorrected,
    amount_in,
    amount_out,
    settlement_to_dict,
)
from engine.round.finish import settle, void_settlement
from engine.round.fold import advance, start
from engine.round.state import SEATS, HeldMeld, Phase, RoundState
from engine.settlement import Amount, SettleInputError, parse_finished_hand
from engine.tiles import EAST, format_kinds, kind_name, parse_kinds
from engine.wall import Flip, FlipKind

MAX_NAME = 64


class StaffInputError(SettleInputError):
    """The act cannot be done; the message names the field at fault."""


@dataclass(frozen=True, slots=True)
class Audit:
    """Who (account and role), when (the wall clock as the service recorded it), why."""

    by: str
    role: Literal["staff", "owner"]
    at: str
    reason: str = ""

    def check(self, reason_required: bool) -> None:
        if not 1 <= len(self.by) <= MAX_NAME:
            raise StaffInputError(f"by: an account name of 1–{MAX_NAME} characters")
        if self.role not in ("staff", "owner"):
            raise StaffInputError(f"role: {self.role!r} is not staff or owner")
        if not 1 <= len(self.at) <= 40:
            raise StaffInputError("at: the time of the act is required")
        if len(self.reason) > MAX_REASON:
            raise StaffInputError(f"reason: at most {MAX_REASON} characters")
        if reason_required and not self.reason.strip():
            raise StaffInputError("reason: required for this act")


class _AuditFields(TypedDict):
    by: str
    role: Literal["staff", "owner"]
    at: str
    reason: str


def _fields(audit: Audit) -> _AuditFields:
    return {"by": audit.by, "role": audit.role, "at": audit.at, "reason": audit.reason}


def _seat(value: object, where: str) -> int:
    if type(value) is not int or not 0 <= value < SEATS:
        raise StaffInputError(f"{where}: a seat is 0–3")
    return value


# --- the hand as ``mjtable settle`` reads it ------------------------------------------


def _meld_out(m: HeldMeld) -> dict[str, Any]:
    out: dict[str, Any] = {"type": m.type.value, "tiles": format_kinds(t // 4 for t in m.tiles)}
    if m.from_seat is not None:
        out["from"] = m.from_seat
    if m.claimed is not None:
        out["claimed"] = format_kinds([m.claimed // 4])
    return out


def _unrob(meld: dict[str, Any]) -> dict[str, Any]:
    if meld["type"] != "kong_added":
        return meld
    return meld | {"type": "pung", "tiles": format_kinds(parse_kinds(meld["tiles"])[:3])}


def read_seat(state: RoundState, seat: int) -> dict[str, Any]:
    """What the readers saw of ``seat``: its concealed tiles and melds (settle vocabulary).
    Concealed: a caller shows it to staff only once the hand is laid down."""
    return {
        "hand": format_kinds(sorted(t // 4 for t in state.hands[seat])),
        "melds": [_meld_out(m) for m in state.melds[seat]],
    }


def _from_of(win: Any) -> int | str:
    if win.source == "discard":
        return int(win.discarder)
    if win.source == "rob_kong":
        return f"rob_kong:{win.discarder}"
    return str(win.source)


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
        out.append({"seat": w.seat, **seat, "tile": tile, "from": _from_of(w), "flags": flags})
    return out


def result_of(state: RoundState) -> dict[str, Any]:
    """The whole result of a played hand as a finish enters it on a hand whose tiles the
    engine never saw (a table without readers): the winners, every other seat's hand and
    melds (a robbed kong as the pung it was) and discards, and the flipped tiles."""
    winners = read_winners(state)
    wins = [{"from": w["from"]} for w in winners]
    played = settle_input(state, wins, {})["seats"]  # discards as the settlement reads them
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


_FLAGS = ("tian", "di", "last_tile", "pao_long")
_WINNER_KEYS = {"seat", "hand", "melds", "tile", "from", "flags", "discards"}
_SEAT_KEYS = {"seat", "hand", "melds", "discards"}


def _winner_in(w: object, where: str) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """(seat, its seat object, its win object) of one ``winners`` entry."""
    if not isinstance(w, Mapping):
        raise StaffInputError(f"{where}: expected an object")
    extra = set(w) - _WINNER_KEYS
    if extra:
        raise StaffInputError(f"{where}.{sorted(extra)[0]}: unknown field")
    for key in ("seat", "hand", "tile", "from"):
        if key not in w:
            raise StaffInputError(f"{where}.{key}: required")
    seat = _seat(w["seat"], f"{where}.seat")
    flags = w.get("flags", [])
    if not isinstance(flags, list) or any(f not in _FLAGS for f in flags):
        raise StaffInputError(f"{where}.flags: a list of {', '.join(_FLAGS)}")
    win: dict[str, Any] = {"seat": seat, "tile": w["tile"], "from": w["from"]}
    win |= {f: True for f in flags}
    held = {"hand": w["hand"], "melds": w.get("melds", [])}
    if "discards" in w:
        held["discards"] = w["discards"]
    return seat, held, win


def settle_input(
    state: RoundState,
    wins: Sequence[Mapping[str, Any]],
    seats: Mapping[int, Mapping[str, Any]],
    xia_indicator: str | None = None,
    flip: Mapping[str, str | None] | None = None,
) -> dict[str, Any]:
    """The ``mjtable settle`` object of this hand: ``seats`` (seat -> hand and melds) as
    given, the others as the readers saw them; discards, the flip, 跟庄 and 诈胡 as played.
    ``flip`` ({indicator, an_indicator}) is the turned-up tile as staff entered it, on a
    hand whose flip no reader saw (a table without readers)."""
    started = state.started
    seen = seen_flip(state)
    entered = dict(flip or {})
    if state.flip_entered is not None and entered.get("indicator") is None:
        entered["indicator"] = state.flip_entered.indicator

    def kind(k: int | None) -> str | None:
        return None if k is None else format_kinds([k])

    # as ``finished_hand`` does: a tile won off a discard leaves the discards, a robbed
    # kong is the pung it was (the winner holds its fourth tile)
    taken_from = next((w["from"] for w in wins if type(w["from"]) is int), None)
    robbed = next(
        (w for w in wins if isinstance(w["from"], str) and w["from"].startswith("rob_kong:")),
        None,
    )
    out_seats = []
    for s in range(SEATS):
        given = seats.get(s)
        seat = dict(read_seat(state, s) if given is None else given)
        if given is None and not wins and state.tile_count(s) == 14 and state.last_tile is not None:
            # 流局 by hand in the middle of a turn: the tile just drawn is not played
            held = [t // 4 for t in state.hands[s]]
            if state.last_tile in state.hands[s]:
                held.remove(state.last_tile // 4)
            else:
                held.pop()
            seat["hand"] = format_kinds(sorted(held))
        if "discards" not in seat:  # (given with a result the readers never saw)
            discards = [t // 4 for t in state.discards[s]]
            if taken_from == s and discards:
                discards.pop()
            seat["discards"] = format_kinds(discards)
        if robbed is not None and given is None and robbed["from"] == f"rob_kong:{s}":
            seat["melds"] = [_unrob(m) for m in seat["melds"]]
        out_seats.append(seat)
    guan = (
        state.claim_rules.guan_fengxiang
        and taken_from is not None
        and any(t // 4 >= 27 and t // 4 not in state.wild for t in state.hands[taken_from])
    )
    xia = seen_xia(state)
    return {
        "ruleset": started.ruleset,
        "options": dict(started.options),
        "dealer": started.dealer,
        "dealer_streak": started.dealer_streak,
        "prevailing_wind": "ESWN"[started.prevailing_wind - EAST],
        "indicator": kind(seen.kind) if seen is not None else entered.get("indicator"),
        "an_indicator": kind(seen.under_kind) if seen is not None else entered.get("an_indicator"),
        "xia_indicator": xia_indicator if xia is None else kind(xia),
        "seats": out_seats,
        "win": list(wins) or None,
        "extra": {
            "genzhuang_rounds": state.gz_rounds,
            "false_win": sorted(state.false_win),
            "last_drawer": state.last_drawer,
            "first_dealer": started.first_dealer,
            "guan_fengxiang": bool(guan),
        },
    }


def _settled_events(state: RoundState, act: StaffAct) -> list[Event]:
    """``act`` and its settlement, tried on a copy: a settlement error names the field and
    leaves ``state`` as it was. Every winner's hand must win: a ruleset with a 诈胡
    penalty would settle a non-win as one, and that is a penalty act, not a finish."""
    assert isinstance(act, FinishedByStaff | WinCorrected)
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


def finish(
    state: RoundState,
    audit: Audit,
    winners: Sequence[object] = (),
    seats: Sequence[object] = (),
    xia_indicator: str | None = None,
    indicator: str | None = None,
    an_indicator: str | None = None,
) -> list[Event]:
    """Finish the hand by hand: ``winners`` in the ``mjtable settle`` vocabulary
    ({seat, hand, melds, tile, from, flags}), none for 流局; ``seats`` ({seat, hand, melds})
    replace what the readers saw of other seats. ``indicator`` (and lianhua's
    ``an_indicator``, yongfeng's ``xia_indicator``) is the flipped tile when no reader saw
    it: on a table without readers the hand's whole result comes this way, on a hand whose
    tiles the engine never saw."""
    audit.check(reason_required=False)
    _open(state)
    flipped = seen_flip(state) is not None
    for name, given_kind in (("indicator", indicator), ("an_indicator", an_indicator)):
        if given_kind is not None and flipped:
            raise StaffInputError(f"{name}: the readers saw the flip; it is not entered by hand")
    if xia_indicator is not None and seen_xia(state) is not None:
        raise StaffInputError("xia_indicator: the readers saw the 下精; it is not entered by hand")
    entered = state.flip_entered
    if indicator is not None and entered is not None and indicator != entered.indicator:
        raise StaffInputError(
            f"indicator: entered as {entered.indicator} already (undo that act to change it)"
        )
    if len(winners) > 3:
        raise StaffInputError("winners: at most 3")
    given: dict[int, Mapping[str, Any]] = {}
    wins: list[dict[str, Any]] = []
    for i, w in enumerate(winners):
        seat, held, win = _winner_in(w, f"winners[{i}]")
        if seat in given:
            raise StaffInputError(f"winners[{i}].seat: seat {seat} is listed twice")
        given[seat] = held
        wins.append(win)
    for i, s in enumerate(seats):
        where = f"seats[{i}]"
        if not isinstance(s, Mapping) or set(s) - _SEAT_KEYS or "seat" not in s:
            raise StaffInputError(f"{where}: expected {{seat, hand, melds}}")
        seat = _seat(s["seat"], f"{where}.seat")
        if seat in given:
            raise StaffInputError(f"{where}.seat: seat {seat} is given twice")
        held = {"hand": s.get("hand", ""), "melds": s.get("melds", [])}
        if "discards" in s:
            held["discards"] = s["discards"]
        given[seat] = held
    flip = {"indicator": indicator, "an_indicator": an_indicator}
    request = settle_input(state, wins, given, xia_indicator, flip)
    order = [w["seat"] for w in wins]
    overrides = [s.get("seat") if isinstance(s, Mapping) else None for s in seats]
    act = FinishedByStaff(
        **_fields(audit), winners=tuple(_public_winners(winners)), request=request
    )
    try:
        return _settled_events(state, act)
    except SettleInputError as err:
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


def _public_winners(winners: Iterable[object]) -> list[dict[str, Any]]:
    return [dict(w) for w in winners if isinstance(w, Mapping)]


def correct_win(
    state: RoundState, audit: Audit, seat: int, hand: str, melds: Sequence[object] = ()
) -> list[Event]:
    """The winner's tiles as staff read them on the laid-down hand, before the next hand
    starts; the readers' picture is kept beside them in the event."""
    audit.check(reason_required=False)
    seat = _seat(seat, "seat")
    declared = [w for w in state.wins if w.seat == seat]
    if not declared:
        raise StaffInputError(f"seat: seat {seat} declared no win in this hand")
    if state.voided:
        raise StaffInputError("hand: voided")
    corrected = {"hand": hand, "melds": list(melds)}
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
    request = settle_input(state, win_objs, held)
    act = WinCorrected(**_fields(audit), seat=seat, read=read, corrected=corrected, request=request)
    try:
        return _settled_events(state, act)
    except SettleInputError as err:
        if isinstance(err, StaffInputError):
            raise
        raise StaffInputError(f"hand: {err}") from None


def penalty_amount(state: RoundState, penalty: str) -> int | None:
    """The ruleset's amount for ``penalty`` (each other seat is paid it), or None when it
    has none (相公 has none in any built-in ruleset: the owner sets one)."""
    if penalty != "false_win":
        return None
    return state.ruleset.false_win_amount() or None


def apply_penalty(
    state: RoundState, audit: Audit, seat: int, penalty: str, owner_amount: int | None = None
) -> list[Event]:
    """诈胡 or 相公 on ``seat``: the ruleset's amount, else ``owner_amount`` (an amount the
    owner set for a ruleset that has none)."""
    audit.check(reason_required=True)
    seat = _seat(seat, "seat")
    if penalty not in ("false_win", "xianggong"):
        raise StaffInputError("penalty: false_win (诈胡) or xianggong (相公)")
    amount = penalty_amount(state, penalty)
    source: Literal["ruleset", "owner"] = "ruleset"
    if amount is None:
        if owner_amount is None:
            raise StaffInputError(
                f"penalty: {state.started.ruleset} has no {penalty} amount; the owner sets one"
            )
        amount, source = owner_amount, "owner"
    if not 1 <= amount <= MAX_POINTS:
        raise StaffInputError(f"amount: 1–{MAX_POINTS} points")
    return [
        PenaltyApplied(
            **_fields(audit),
            seat=seat,
            penalty=cast(PenaltyName, penalty),
            amount=amount,
            amount_from=source,
        )
    ]


def adjust(
    state: RoundState, audit: Audit, from_seat: int, to_seat: int, points: int
) -> list[Event]:
    audit.check(reason_required=True)
    from_seat = _seat(from_seat, "from_seat")
    to_seat = _seat(to_seat, "to_seat")
    if from_seat == to_seat:
        raise StaffInputError("to_seat: the same seat as from_seat")
    if type(points) is not int or not 1 <= points <= MAX_POINTS:
        raise StaffInputError(f"points: 1–{MAX_POINTS}")
    return [Adjusted(**_fields(audit), from_seat=from_seat, to_seat=to_seat, points=points)]


def close_session(
    state: RoundState,
    audit: Audit,
    cause: Literal["staff", "cutoff"],
    terms: Mapping[str, Any],
) -> list[Event]:
    """End the session after this hand, settled, its last (staff must say why)."""
    audit.check(reason_required=cause == "staff")
    if state.settlement is None:
        raise StaffInputError("hand: a hand is in progress; finish or void it, then close")
    return [SessionClosed(**_fields(audit), cause=cause, terms=dict(terms))]


def void(state: RoundState, audit: Audit) -> list[Event]:
    """Void this hand (played on, ended or settled): no points move, the deal stays."""
    audit.check(reason_required=True)
    if state.voided:
        raise StaffInputError("hand: voided already")
    act = HandVoided(**_fields(audit), hand_no=state.started.hand_no)
    return [act, Settled(settlement_to_dict(void_settlement(state)))]


def void_earlier(
    state: RoundState, audit: Audit, hand_no: int, net: Sequence[Amount]
) -> list[Event]:
    """Void an earlier hand of the session, whose standing nets were ``net``: they come
    off the totals (recorded in the current hand's log)."""
    audit.check(reason_required=True)
    if not 1 <= hand_no < state.started.hand_no:
        raise StaffInputError(f"hand: not an earlier hand of this session ({hand_no})")
    if len(net) != SEATS:
        raise StaffInputError("net: four seats")
    reverses = tuple(amount_out(n) for n in net)
    return [HandVoided(**_fields(audit), hand_no=hand_no, reverses=reverses)]


def seen_flip(state: RoundState) -> Flip | None:
    """The turned-up tile as the readers saw it (None: unseen, or not turned up yet)."""
    flip = None if state.wall is None else state.wall.flip
    return flip if flip is not None and flip.tile is not None else None


def seen_xia(state: RoundState) -> int | None:
    """The 下精 indicator's kind as the readers saw it turned up after the win (None:
    unseen, not turned up yet, or a ruleset without one): else it goes with the result."""
    xia = None if state.wall is None else state.wall.xia_jing
    return None if xia is None else xia.kind


def enter_flip(state: RoundState, audit: Audit, indicator: object) -> list[Event]:
    """The turned-up 精 (财神 indicator) entered by hand where no reader saw it: one tile
    in notation. Refused once the readers saw the flip, once one is entered (undo it to
    change it), on a ruleset that turns none up, and on a settled hand."""
    audit.check(reason_required=False)
    _open(state)
    if state.ruleset.flip_kind is FlipKind.NONE:
        raise StaffInputError(f"indicator: {state.started.ruleset} turns up no tile")
    if seen_flip(state) is not None:
        raise StaffInputError("indicator: the readers saw the flip; it is not entered by hand")
    if state.flip_entered is not None:
        raise StaffInputError(
            f"indicator: entered as {state.flip_entered.indicator} already (undo that act)"
        )
    if not isinstance(indicator, str) or len(indicator) > 4:
        raise StaffInputError("indicator: one tile, e.g. 5s or E")
    try:
        kinds = parse_kinds(indicator)
    except ValueError as err:
        raise StaffInputError(f"indicator: {err}") from None
    if len(kinds) != 1:
        raise StaffInputError("indicator: one tile, e.g. 5s or E")
    return [FlipEntered(**_fields(audit), indicator=kind_name(kinds[0]))]


def undo(state: RoundState, audit: Audit) -> list[Event]:
    """Take back the last act of staff in this hand (what it changed goes back too)."""
    audit.check(reason_required=False)
    if not state.staff_acts:
        raise StaffInputError("undo: no act of staff in this hand")
    last, _ = state.staff_acts[-1]
    return [StaffUndone(**_fields(audit), undone=last.type)]


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
