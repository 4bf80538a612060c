"""An act of staff, as the web API hands it to the table loop, and how the loop performs it
on the hand in progress (``perform``): the request names the hand and the number of events
its sender saw, so a replayed or stale request changes nothing; the owners' policy says
whether staff may void and adjust; ``command_of`` makes the engine's command, ``apply``
its events (as for a move), and the ``HandKeeper`` stores them before they are published.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from controller.store import EventStore
from controller.store.house_rules import HouseRules
from controller.store.owners import OwnerAccounts, StaffPolicy
from controller.store.request_keys import RequestKey, first_answer, keep_answer
from controller.table.hand_keeper import HandKeeper
from controller.table.table_inputs import StaffInput, TableInputs
from engine.round import Rejection, RoundState, apply
from engine.round.commands import (
    Adjust,
    Audit,
    CorrectWin,
    EnterFlip,
    Finish,
    Penalise,
    StaffCommand,
    StaffInputError,
    Undo,
    Void,
    VoidEarlier,
)
from engine.round.events import STAFF_ACT_TYPES, Event, HandVoided, Settled, event_from_dict
from engine.round.fold import fold
from engine.round.narration import texts
from engine.round.projection import public_view
from engine.round.staff import read_winners, seen_flip, seen_xia
from engine.settlement.ledger import plain

ActKind = Literal["finish", "correct", "penalty", "adjust", "void", "undo", "flip"]


class StaleRequest(ValueError):
    """The hand moved on since the sender looked (or the request was sent before): 409."""


class NotPermitted(PermissionError):
    """The owners' policy does not let staff do this: 403."""


class UnknownHandId(LookupError):
    """No hand of this table's session has that id: 404."""


@dataclass(frozen=True, slots=True)
class StaffRequest:
    """What a person asked for: ``hand_id`` and ``seen`` (events of that hand the sender
    saw, from GET /api/v1/staff/hands/current) tie it to one moment of one hand."""

    kind: ActKind
    hand_id: str
    seen: int
    audit: Audit
    body: dict[str, Any] = field(default_factory=dict)


def perform(keeper: HandKeeper, request: StaffRequest, policy: StaffPolicy) -> list[Event]:
    """Do ``request`` on the hand in progress; raises StaffInputError (422), StaleRequest
    (409), NotPermitted (403) or UnknownHandId (404), having stored nothing."""
    staff_role = request.audit.role == "staff"
    if staff_role and request.kind == "void" and not policy.may_void:
        raise NotPermitted("the owners do not let staff void hands (policy may_void)")
    if staff_role and request.kind == "adjust" and not policy.may_adjust:
        raise NotPermitted("the owners do not let staff adjust points (policy may_adjust)")
    # the hand in progress, or the one just settled (until the next starts)
    current = keeper.hand_id if keeper.state is not None else None
    if request.hand_id != current:
        if request.kind == "void" and current is not None:
            return _void_earlier(keeper, request)
        if current is None:
            raise StaleRequest("no hand in progress: act when the next hand has started")
        raise StaleRequest(f"hand {request.hand_id} is not the hand in progress ({current})")
    if keeper.session_id is None:
        raise StaleRequest("the session is closed and cashed out: act when the next hand starts")
    if request.seen != len(keeper.log):
        raise StaleRequest(
            f"seen: the hand holds {len(keeper.log)} events, the request saw {request.seen} "
            "(it moved on, or this request was sent before)"
        )
    return keeper.staff_act(partial(applied, command=command_of(request, policy)))


def command_of(request: StaffRequest, policy: StaffPolicy) -> StaffCommand:
    """The engine's command for what the staff API took in (its body checked there)."""
    b, a = request.body, request.audit
    match request.kind:
        case "finish":
            flips = ("xia_indicator", "indicator", "an_indicator")
            return Finish.of(
                a, b.get("winners", []), b.get("seats", []), **{f: b.get(f) for f in flips}
            )
        case "correct":
            return CorrectWin.of(a, b["seat"], b["hand"], b["melds"])
        case "penalty":
            amount = getattr(policy, f"{b['penalty']}_amount", None)
            return Penalise(a, b["seat"], b["penalty"], amount)
        case "adjust":
            return Adjust(a, b["from_seat"], b["to_seat"], b["points"])
        case "void":
            return Void(a)
        case "undo":
            return Undo(a)
        case "flip":
            return EnterFlip(a, b["indicator"])


def applied(state: RoundState, command: StaffCommand) -> list[Event]:
    """``apply``'s events for a person's act; its refusal as ``StaffInputError`` (422)."""
    result = apply(state, command)
    if isinstance(result, Rejection):
        raise StaffInputError(result.reason)
    return result


def _void_earlier(keeper: HandKeeper, request: StaffRequest) -> list[Event]:
    """Void a finished hand of this session: its standing nets come off the totals, the
    act recorded in the hand in progress."""
    store, state = keeper.store, keeper.state
    assert state is not None
    try:
        target = store.load_hand(request.hand_id)
    except LookupError:
        raise UnknownHandId(f"no hand {request.hand_id} at this table") from None
    if target.hand.session_id != keeper.session_id or target.hand.status != "finished":
        raise UnknownHandId(f"hand {request.hand_id} is no finished hand of this session")
    events = [event_from_dict(d) for d in target.event_dicts()]
    voided = fold(events)
    hand_no = voided.started.hand_no
    if voided.voided or hand_no in _voided_in_session(keeper):
        raise StaleRequest(f"hand {request.hand_id} is voided already")
    if voided.settlement is None:
        raise UnknownHandId(f"hand {request.hand_id} has no settlement")
    if request.seen != len(keeper.log):
        raise StaleRequest(f"seen: the hand in progress holds {len(keeper.log)} events")
    net = voided.settlement.net
    return keeper.staff_act(partial(applied, command=VoidEarlier(request.audit, hand_no, net)))


def _voided_in_session(keeper: HandKeeper) -> set[int]:
    """Hand numbers of this session voided from a later hand (a rare act: read the store)."""
    found = {e.hand_no for e in keeper.log if isinstance(e, HandVoided)}
    hands = keeper.store.list_hands(session_id=keeper.session_id, status="finished", limit=100_000)
    for record in hands:
        for d in keeper.store.load_hand(record.id).event_dicts():
            if d.get("type") == HandVoided.type and isinstance(d.get("hand_no"), int):
                found.add(d["hand_no"])
    return found


@dataclass(frozen=True, slots=True)
class Keyed:
    """An act sent with an ``Idempotency-Key``: done once (``once``); the same key again
    gets the first answer (controller.store.request_keys)."""

    item: Any
    key: RequestKey


def once(
    keeper: HandKeeper, keyed: Keyed, perform: Callable[[Any], dict[str, Any]]
) -> dict[str, Any]:
    """``perform(keyed.item)`` unless its key was answered before: then that answer, and
    nothing done (raises KeyReused for a key that answered another request). On the table
    loop, one act at a time: two sends of one key cannot both find it new."""
    engine = keeper.store.engine
    found = first_answer(engine, keyed.key)
    if found is not None:
        return found
    answer = perform(keyed.item)
    keep_answer(engine, keyed.key, answer)
    return answer


@dataclass(frozen=True, slots=True)
class CloseSession:
    """Close the session after its last hand (staff, or the owner's daily cut-off)."""

    audit: Audit
    cause: Literal["staff", "cutoff"] = "staff"


@dataclass(frozen=True, slots=True)
class Look:
    """A look at the hand in progress, as staff may see it."""


@dataclass(frozen=True, slots=True)
class DiceButton:
    """The console's dice button, as the panel's: whoever is due rolls (on a table without
    readers, after a hand, the dealer's roll starts the next). ``TableService`` presses
    it; the roll is the hand's ``dice_rolled`` event. ``hand_id`` and ``seen`` as a
    ``StaffRequest``'s: a press sent twice rolls once."""

    hand_id: str | None
    seen: int

    def check(self, keeper: HandKeeper) -> None:
        if self.hand_id != keeper.hand_id or self.seen != len(keeper.log):
            raise StaleRequest(
                f"the table moved on (hand {keeper.hand_id}, {len(keeper.log)} events): look again"
            )


def handle(
    keeper: HandKeeper,
    item: StaffRequest | CloseSession | Look | DiceButton | Keyed,
    press_dice: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """What the table loop does with an item from the staff desk (raises as ``perform``).
    ``press_dice`` presses the table's dice button (``TableService``), True if a roll was
    due; without it the console's button is refused."""
    if isinstance(item, Keyed):  # (sent with an Idempotency-Key: done once)
        return once(keeper, item, lambda inner: handle(keeper, inner, press_dice))
    if isinstance(item, Look):
        return current_view(keeper)
    if isinstance(item, DiceButton):
        item.check(keeper)
        if press_dice is None or not press_dice():
            raise StaleRequest("no roll is due (or the hand waits for staff)")
        return current_view(keeper)
    if isinstance(item, CloseSession):
        if keeper.in_progress and not keeper.unplayed:
            raise StaleRequest("a hand is in progress: finish or void it, then close the session")
        terms, _ = OwnerAccounts(keeper.store).cashout_terms()
        return keeper.close_session(item.audit, item.cause, terms)
    events = perform(keeper, item, OwnerAccounts(keeper.store).staff_policy())
    return outcome(events) | {"hand_id": keeper.hand_id, "seen": len(keeper.log)}


def house_problem(store: EventStore, table: str) -> str | None:
    """Why the house ruleset assigned to this table is not played (None: it is, or none)."""
    found = HouseRules(store).assignment(table)
    return None if found is None else found.problem


def current_view(keeper: HandKeeper) -> dict[str, Any]:
    """The hand in progress as the players see it (``public_view``), its acts of staff,
    and the readers' picture of each winner's hand once a 胡 is declared (a won hand lies
    face up): never a concealed tile of a hand still played."""
    state = keeper.state
    rules = {
        "house": None if keeper.house is None else keeper.house.get("name"),  # 店规's name
        "house_problem": house_problem(keeper.store, keeper.table),  # why one is not played
    }
    if state is None or keeper.hand_id is None:
        return {"hand_id": None, "in_progress": False, "session_id": keeper.session_id} | rules
    return {
        "hand_id": keeper.hand_id,
        "session_id": keeper.session_id,  # None: closed (cashed out) until the next hand
        "in_progress": keeper.in_progress,
        "hand_no": state.started.hand_no,
        "seen": len(keeper.log),
        "public": public_view(state),
        "winners_read": read_winners(state) if state.wins else None,
        "flips": state.needs_flip,  # the ruleset turns up a 精 (财神): entered if unseen
        # lianhua's 暗精 no reader saw: entered with the result (which tile, never here)
        "an_jing": state.wall_rules.an_jing and seen_flip(state) is None,
        # yongfeng's 下精, turned up after the win: entered with the result if no reader saw it
        "xia_jing": state.wall_rules.xia_jing and seen_xia(state) is None,
        "acts": [
            e.public_dict() | {"text": texts(e, public=True)}
            for e in keeper.log
            if e.type in STAFF_ACT_TYPES
        ],
        "totals": [plain(t) for t in keeper.session.totals],
    } | rules


def outcome(events: list[Event]) -> dict[str, Any]:
    """What the API answers: the public form of the events, and the settlement if any."""
    settled = next((e for e in events if isinstance(e, Settled)), None)
    return {
        "events": [e.public_dict() for e in events],
        "settlement": None if settled is None else settled.settlement,
    }


def desk(
    inputs: TableInputs,
) -> Callable[[StaffRequest | CloseSession | Look | DiceButton], Awaitable[dict[str, Any]]]:
    """The web app's way in: each act a ``StaffInput`` on the table loop's queue, answered
    by ``TableService.act`` (``handle``); a full queue is refused at once (OverflowError)."""

    async def submit(item: StaffRequest | CloseSession | Look | DiceButton) -> dict[str, Any]:
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        if not inputs.put(StaffInput(item, answer)):
            raise OverflowError("the table's input queue is full")
        return await answer

    return submit
