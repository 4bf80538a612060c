"""How the table loop does what the web API hands it (``controller.table.staff_requests``):
a person's act on the hand in progress (``perform``) names the hand and the number of
events its sender saw, so a replayed or stale request changes nothing; the owners' policy
says whether staff may void and adjust, and what a penalty costs where the ruleset says
nothing; the engine's command then goes through the keeper's one entry
(``HandKeeper.execute``), stored before it is published, its answer kept with its key.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from typing import Any

from controller.store import EventStore
from controller.store.house_rules import HouseRules
from controller.store.owners import OwnerAccounts, StaffPolicy
from controller.store.request_keys import RequestKey, first_answer, keep_answer
from controller.store.staff_marks import session_voids
from controller.table.hand_keeper import HandKeeper, Reply
from controller.table.staff_requests import (
    CloseSession,
    DiceButton,
    HandAct,
    Keyed,
    Look,
    Request,
    SeatRequest,
    StaffItem,
)
from controller.table.table_inputs import StaffInput, TableInputs
from engine.round import Rejection, RoundState
from engine.round.commands import Adjust, Penalise, StaffCommand, StaffInputError, Void, VoidEarlier
from engine.round.events import (
    STAFF_ACT_TYPES,
    DiceRolled,
    Event,
    Settled,
    event_from_dict,
)
from engine.round.fold import fold
from engine.round.narration import texts
from engine.round.player_claims import claim_view
from engine.round.projection import public_view
from engine.round.staff import (
    entered_entry,
    penalty_in_force,
    read_winners,
    seen_flip,
    seen_xia,
)
from engine.settlement.ledger import plain
from engine.settlement.needs import RESULT_KINDS


class StaleRequest(ValueError):
    """The hand moved on since the sender looked (or the request was sent before): 409."""


class NotPermitted(PermissionError):
    """The owners' policy does not let staff do this: 403."""


class UnknownHandId(LookupError):
    """No hand of this table's session has that id: 404."""


def perform(
    keeper: HandKeeper, request: HandAct, policy: StaffPolicy, key: RequestKey | None = None
) -> dict[str, Any]:
    """Do ``request`` on the hand in progress, its answer kept with ``key`` in the same
    transaction; raises StaffInputError (422), StaleRequest (409), NotPermitted (403) or
    UnknownHandId (404), having stored nothing."""
    command = request.command
    staff_role = command.audit.role == "staff"
    if staff_role and isinstance(command, Void) and not policy.may_void:
        raise NotPermitted("the owners do not let staff void hands (policy may_void)")
    if staff_role and isinstance(command, Adjust) and not policy.may_adjust:
        raise NotPermitted("the owners do not let staff adjust points (policy may_adjust)")
    if isinstance(command, Penalise) and command.owner_amount is None:
        command = replace(command, owner_amount=getattr(policy, f"{command.penalty}_amount"))
    # the hand in progress, or the one just settled (until the next starts)
    current = keeper.hand_id if keeper.state is not None else None
    if request.hand_id != current:
        if isinstance(command, Void) and current is not None:
            return _void_earlier(keeper, request, key)
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
    return execute(keeper, command, key)


def execute(keeper: HandKeeper, command: StaffCommand, key: RequestKey | None) -> dict[str, Any]:
    """The answer to a person's act done through the keeper's one entry (kept with
    ``key`` in the act's transaction); its refusal as ``StaffInputError`` (422)."""
    reply = Reply(acted, key)
    result = keeper.execute(command, reply)
    if isinstance(result, Rejection):
        raise StaffInputError(result.reason)
    assert reply.answer is not None
    return reply.answer


def acted(events: list[Event], hand_id: str, seen: int, _after: RoundState) -> dict[str, Any]:
    """What the API answers an act on the hand: the public form of its events, the
    settlement if any, and the hand's id and events once they are stored."""
    return outcome(events) | {"hand_id": hand_id, "seen": seen}


def _void_earlier(keeper: HandKeeper, request: HandAct, key: RequestKey | None) -> dict[str, Any]:
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
    session_id = target.hand.session_id
    standing = {} if session_id is None else session_voids(store.engine, [session_id])
    if voided.voided or (session_id, hand_no) in standing:
        raise StaleRequest(f"hand {request.hand_id} is voided already")
    if voided.settlement is None:
        raise UnknownHandId(f"hand {request.hand_id} has no settlement")
    if request.seen != len(keeper.log):
        raise StaleRequest(f"seen: the hand in progress holds {len(keeper.log)} events")
    net = voided.settlement.net
    return execute(keeper, VoidEarlier(request.command.audit, hand_no, net), key)


def check_dice(button: DiceButton, keeper: HandKeeper) -> None:
    """A press sent twice rolls once: it names the moment it was sent at."""
    if button.hand_id != keeper.hand_id or button.seen != len(keeper.log):
        raise StaleRequest(
            f"the table moved on (hand {keeper.hand_id}, {len(keeper.log)} events): look again"
        )


Seat = Callable[[SeatRequest, RequestKey | None], dict[str, Any]]
"""Seats a member between hands (``Seating.handle``), answering who sits where (kept
under the key with the seat act)."""


def handle(
    keeper: HandKeeper,
    item: StaffItem,
    press_dice: Callable[[], bool] | None = None,
    seat: Seat | None = None,
) -> dict[str, Any]:
    """What the table loop does with an item from the staff desk (raises as ``perform``).
    ``press_dice`` presses the table's dice button (``TableService``), True if a roll was
    due; without it the console's button is refused; ``seat`` seats a member."""
    if isinstance(item, Keyed):  # (sent with an Idempotency-Key: done once)
        return once(keeper, item, press_dice, seat)
    return _handle(keeper, item, press_dice, seat)


def once(
    keeper: HandKeeper,
    keyed: Keyed,
    press_dice: Callable[[], bool] | None = None,
    seat: Seat | None = None,
) -> dict[str, Any]:
    """``keyed.item`` done unless its key was answered before: then that answer, and
    nothing done (raises KeyReused for a key that answered another request). An act on
    the hand, a seat or the dice button (with the roll the tracker makes) keeps its
    answer in its own transaction; one that stores nothing of its own (a seat already
    so, a 精 roll waiting for its tile) keeps it after. On the table loop, one act at a
    time: two sends of one key cannot both find it new."""
    engine = keeper.store.engine
    found = first_answer(engine, keyed.key)
    if found is not None:
        return found
    answer = _handle(keeper, keyed.item, press_dice, seat, keyed.key)
    if first_answer(engine, keyed.key) is None:
        keep_answer(engine, keyed.key, answer)
    return answer


def _handle(
    keeper: HandKeeper,
    item: Request,
    press_dice: Callable[[], bool] | None,
    seat: Seat | None,
    key: RequestKey | None = None,
) -> dict[str, Any]:
    match item:
        case Look():
            return current_view(keeper)
        case DiceButton():
            check_dice(item, keeper)
            # the answer, the hand as it is after the roll, is kept with the roll (one
            # transaction); a roll not yet stored (a 精 roll waiting for its tile) keeps
            # it after (``once``)
            reply = Reply(
                lambda _made, hand, seen, after: current_view(keeper, (hand, seen, after)), key
            )
            with keeper.answering(reply, DiceRolled):
                if press_dice is None or not press_dice():
                    raise StaleRequest("no roll is due (or the hand waits for staff)")
            return current_view(keeper) if reply.answer is None else reply.answer
        case SeatRequest():
            if seat is None:
                raise StaleRequest("no table here to seat anyone at")
            return seat(item, key)
        case CloseSession():
            if keeper.in_progress and not keeper.unplayed:
                raise StaleRequest(
                    "a hand is in progress: finish or void it, then close the session"
                )
            terms, _ = OwnerAccounts(keeper.store).cashout_terms()
            return keeper.close_session(item.audit, item.cause, terms, key)
        case HandAct():
            return perform(keeper, item, OwnerAccounts(keeper.store).staff_policy(), key)


def house_problem(store: EventStore, table: str) -> str | None:
    """Why the house ruleset assigned to this table, or the hub's latest, is not played
    (None: it is, or none)."""
    rules = HouseRules(store)
    found = rules.assignment(table)
    return (None if found is None else found.problem) or rules.refusal(table)


def current_view(
    keeper: HandKeeper, at: tuple[str, int, RoundState] | None = None
) -> dict[str, Any]:
    """The hand in progress as the players see it (``public_view``), its acts of staff,
    and the readers' picture of each winner's hand once a 胡 is declared (a won hand lies
    face up): never a concealed tile of a hand still played. ``at``: the hand's id, its
    number of events and its state as a write in hand will leave them (default: now)."""
    hand_id, seen, state = (keeper.hand_id, len(keeper.log), keeper.state) if at is None else at
    rules = {
        "house": None if keeper.house is None else keeper.house.get("name"),  # 店规's name
        "house_problem": house_problem(keeper.store, keeper.table),  # why one is not played
    }
    if state is None or hand_id is None:
        return {"hand_id": None, "in_progress": False, "session_id": keeper.session_id} | rules
    return {
        "hand_id": hand_id,
        "session_id": keeper.session_id,  # None: closed (cashed out) until the next hand
        "in_progress": not state.finished,
        "hand_no": state.started.hand_no,
        "seen": seen,
        "public": public_view(state),
        "winners_read": read_winners(state) if state.wins else None,
        # a settled result entered by hand (staff, the players' phones), to correct it from
        "entered": entered_entry(state),
        "flips": state.needs_flip,  # the ruleset turns up a 精 (财神): entered if unseen
        # lianhua's 暗精 no reader saw: entered with the result (which tile, never here)
        "an_jing": state.wall_rules.an_jing and seen_flip(state) is None,
        # yongfeng's 下精, turned up after the win: entered with the result if no reader saw it
        "xia_jing": state.wall_rules.xia_jing and seen_xia(state) is None,
        # what a finish needs entered, per result kind (``Ruleset.needs``)
        "needs": {kind: state.ruleset.needs(kind).as_dict() for kind in RESULT_KINDS},
        "acts": act_views(keeper.log),  # (a roll adds no act)
        "totals": [plain(t) for t in keeper.session.totals],
        "claim": claim_view(state),  # a player's claim waiting for answers (docs/play.md)
        "staff_called": staff_called(keeper),
        "penalties": penalties_ready(state, OwnerAccounts(keeper.store).staff_policy()),
    } | rules


def staff_called(keeper: HandKeeper) -> dict[str, str] | None:
    """Why the hand in progress waits for staff (a claim disputed or not answered in time,
    a hand the readers cannot explain), as the status topic says it: or None."""
    notice = keeper.waiting
    return None if notice is None else {"zh": notice.why_zh, "en": notice.why_en}


def penalties_ready(state: RoundState, policy: StaffPolicy) -> dict[str, Any]:
    """Each penalty's amount on this hand and who set it (``ruleset`` or ``owner``), or
    None where neither has: the console says the owner must set it before anyone tries."""
    ready: dict[str, Any] = {}
    for name in ("false_win", "xianggong"):
        in_force = penalty_in_force(state, name, getattr(policy, f"{name}_amount"))
        ready[name] = None if in_force is None else {"amount": in_force[0], "by": in_force[1]}
    return ready


def act_views(events: Iterable[Event]) -> list[dict[str, Any]]:
    """A hand's acts of staff in their public form, each with its words (zh, en)."""
    return [
        e.public_dict() | {"text": texts(e, public=True)}
        for e in events
        if e.type in STAFF_ACT_TYPES
    ]


def outcome(events: list[Event]) -> dict[str, Any]:
    """What the API answers: the public form of the events, and the settlement if any."""
    settled = next((e for e in events if isinstance(e, Settled)), None)
    return {
        "events": [e.public_dict() for e in events],
        "settlement": None if settled is None else settled.settlement,
    }


def desk(inputs: TableInputs) -> Callable[[StaffItem], Awaitable[dict[str, Any]]]:
    """The web app's way in: each act a ``StaffInput`` on the table loop's queue, answered
    by ``TableService.act`` (``handle``); a full queue is refused at once (OverflowError)."""

    async def submit(item: StaffItem) -> dict[str, Any]:
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        if not inputs.put(StaffInput(item, answer)):
            raise OverflowError("the table's input queue is full")
        return await answer

    return submit
