"""Staff in the loop: the acts of a person on this table's live hand, and the owners'
policy for them (docs/staff.md). Staff (a short login, for the tables it belongs to) and
owners may act; which acts staff may do beyond finishing, correcting, penalties and undo
(void, adjust) is the owners' ``StaffPolicy``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, HTTPException, Path, Query, status
from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.store import UnknownSession
from controller.store.owners import CashoutTerms, OwnerRecord, StaffPolicy, StoreLoss
from controller.store.request_keys import RequestKey, fingerprint
from controller.table.cashout import stored_cashout
from controller.table.recent_hands import RECENT_HANDS, session_hands
from controller.table.staff_requests import (
    CloseSession,
    DiceButton,
    HandAct,
    Keyed,
    Look,
    Request,
)
from controller.web.auth import Owner, current_account
from controller.web.context import WebContext, context, dealer_now
from controller.web.owner_api import ID as SESSION_ID
from controller.web.routes import ApiRoute
from controller.web.schemas import WITH_BODY, Problem
from controller.web.table_desk import ask_table
from controller.words import Places, say
from engine.round.commands import (
    Adjust,
    Audit,
    CorrectResult,
    CorrectWin,
    EnterFlip,
    Finish,
    MeldEntry,
    Penalise,
    SeatEntry,
    StaffCommand,
    Undo,
    Void,
    WinnerEntry,
)
from engine.round.events import MAX_POINTS, MAX_REASON

router = APIRouter(
    route_class=ApiRoute,
    prefix="/api/v1/staff",
    tags=["staff"],
    responses={401: {"model": Problem}, 403: {"model": Problem}},
)
Ctx = Annotated[WebContext, Depends(context)]


def refuse_on_hub(ctx: WebContext) -> None:
    """The hub has no live table to act on, and no cash-out terms: each table counts its
    sessions' money with its own (docs/players.md, "Cash-out")."""
    if ctx.settings.hub:
        raise HTTPException(status.HTTP_403_FORBIDDEN, say("staff.hub"))


def table_account(
    account: Annotated[OwnerRecord, Depends(current_account)], ctx: Ctx
) -> OwnerRecord:
    """Staff of this table, or an owner; the hub has no live table to act on."""
    refuse_on_hub(ctx)
    if not account.acts_on(ctx.settings.table):
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            say("staff.not_of_table", name=account.name, table=ctx.settings.table),
        )
    return account


Member = Annotated[OwnerRecord, Depends(table_account)]


def live_account(account: Member, ctx: Ctx) -> OwnerRecord:
    """As ``table_account``, where a table loop runs to take the act."""
    if ctx.staff_desk is None:
        raise HTTPException(status.HTTP_403_FORBIDDEN, say("staff.no_live_table"))
    return account


Actor = Annotated[OwnerRecord, Depends(live_account)]


# --- the acts -------------------------------------------------------------------------

HAND_ID = r"^[^\x00-\x1f\x7f]{1,64}$"
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        pattern=r"^[\x21-\x7e]{8,64}$",
        description="One per act (the console makes one per submission): the same key "
        "again gets the first answer, and the act is done once",
    ),
]
Tiles = Annotated[str, Field(max_length=64, description="Tile notation, e.g. 123m456p")]
Seat = Annotated[int, Field(ge=0, le=3)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


class MeldIn(_In):
    type: Literal["chow", "pung", "kong_exposed", "kong_concealed", "kong_added"]
    tiles: Annotated[str, Field(max_length=16)]
    from_: Seat | None = Field(default=None, alias="from")
    claimed: Annotated[str, Field(max_length=4)] | None = None

    def entry(self) -> MeldEntry:
        return MeldEntry(self.type, self.tiles, self.from_, self.claimed)


def _melds(melds: list[MeldIn]) -> tuple[MeldEntry, ...]:
    return tuple(m.entry() for m in melds)


class _HeldIn(_In):
    seat: Seat
    hand: Tiles
    melds: list[MeldIn] = Field(default=[], max_length=4)
    discards: Annotated[str, Field(max_length=128)] | None = Field(
        default=None, description="Entered with the result where no reader saw them"
    )

    def entry(self) -> SeatEntry:
        return SeatEntry(self.seat, self.hand, _melds(self.melds), self.discards)


class SeatIn(_HeldIn):
    hand: Tiles = ""
    partial: bool = Field(
        default=False,
        description="Only what the settlement reads of this seat (the hand's needs in "
        "GET hands/current): its counted 精 as tiles in hand, its kongs",
    )
    kongs: list[Literal["kong_exposed", "kong_concealed", "kong_added"]] = Field(
        default=[], max_length=4, description="A partial seat's kongs of uncounted kinds"
    )

    def entry(self) -> SeatEntry:
        return SeatEntry(
            self.seat,
            self.hand,
            _melds(self.melds),
            self.discards,
            self.partial,
            tuple(self.kongs),
        )


class WinnerIn(_HeldIn):
    tile: Annotated[str, Field(max_length=4)]
    from_: Seat | Annotated[str, Field(max_length=24)] = Field(alias="from")
    flags: list[Literal["tian", "di", "last_tile", "pao_long"]] = Field(default=[], max_length=4)

    def winner(self) -> WinnerEntry:
        return WinnerEntry(
            self.seat,
            self.hand,
            self.tile,
            self.from_,
            _melds(self.melds),
            tuple(self.flags),
            self.discards,
        )


class _Act(_In):
    hand_id: Annotated[str, Field(pattern=HAND_ID, description="From GET hands/current")]
    seen: Annotated[
        int,
        Field(ge=0, le=100_000, description="Events of the hand you saw (GET hands/current)"),
    ]
    reason: Annotated[str, Field(max_length=MAX_REASON)] = ""


class _ResultIn(_Act):
    """A hand's result as a finish enters it (and a correction of one entered so)."""

    result: Literal["exhausted"] | None = None
    winners: list[WinnerIn] = Field(default=[], max_length=3)
    seats: list[SeatIn] = Field(default=[], max_length=4)  # (a 流局 without readers: all four)
    xia_indicator: Annotated[str, Field(max_length=4)] | None = None
    indicator: Annotated[str, Field(max_length=4)] | None = Field(
        default=None, description="The flipped tile, where no reader saw it (no readers)"
    )
    an_indicator: Annotated[str, Field(max_length=4)] | None = None

    def given(self) -> bool:
        return self.result is not None or bool(self.winners)

    def finish(self, account: OwnerRecord) -> Finish:
        return Finish(
            _audit(account, self.reason),
            tuple(w.winner() for w in self.winners),
            tuple(s.entry() for s in self.seats),
            xia_indicator=self.xia_indicator,
            indicator=self.indicator,
            an_indicator=self.an_indicator,
        )


ONE_RESULT = 'give "winners", or "result": "exhausted" (流局), not both'


class FinishIn(_ResultIn):
    @model_validator(mode="after")
    def _one_result(self) -> FinishIn:
        if (self.result is None) == (not self.winners):
            raise ValueError(ONE_RESULT)
        return self


class CorrectionIn(_ResultIn):
    """The readers' win: the winner's tiles (``seat``, ``hand``, ``melds``); a result
    entered by hand (GET hands/current's ``entered``): the whole result anew, as a finish
    gives it."""

    seat: Seat | None = None
    hand: Tiles | None = None
    melds: list[MeldIn] = Field(default=[], max_length=4)

    @model_validator(mode="after")
    def _one_form(self) -> CorrectionIn:
        if self.seat is None and self.hand is None:
            if (self.result is None) == (not self.winners):
                raise ValueError(ONE_RESULT)
        elif self.seat is None or self.hand is None:
            raise ValueError('the winner\'s tiles: give "seat" and "hand"')
        elif self.given() or self.seats:
            raise ValueError(
                'the winner\'s tiles ("seat", "hand") or a whole result ("winners"), not both'
            )
        return self


class PenaltyIn(_Act):
    seat: Seat
    penalty: Literal["false_win", "xianggong"]
    reason: Annotated[str, Field(min_length=1, max_length=MAX_REASON)]


class AdjustmentIn(_Act):
    from_seat: Seat
    to_seat: Seat
    points: Annotated[int, Field(ge=1, le=MAX_POINTS)]
    reason: Annotated[str, Field(min_length=1, max_length=MAX_REASON)]


class VoidIn(_In):
    seen: Annotated[int, Field(ge=0, le=100_000, description="Events of the hand in progress")]
    reason: Annotated[str, Field(min_length=1, max_length=MAX_REASON)]


class UndoIn(_Act):
    pass


class FlipIn(_Act):
    indicator: Annotated[str, Field(max_length=4, description="The flipped tile, e.g. 5s")]


ACT_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem},  # a body that is not JSON
    404: {"model": Problem},
    409: {"model": Problem},
    413: {"model": Problem},
    422: {"model": Problem},
    503: {"model": Problem},
}


def with_key(
    item: Request, account: OwnerRecord, key: str | None, what: str, body: BaseModel | None
) -> Request | Keyed:
    """``item`` with its ``Idempotency-Key`` (none: as sent, checked by hand_id and seen
    alone). The key answers one request: its path and body, but for ``seen``, which a
    page fetches afresh before each try."""
    if key is None:
        return item
    sent = {} if body is None else body.model_dump(mode="json", by_alias=True, exclude={"seen"})
    return Keyed(item, RequestKey(account.name, key, fingerprint(what, sent)))


async def _desk(
    ctx: WebContext,
    item: Request,
    account: OwnerRecord | None = None,
    key: str | None = None,
    what: str = "",
    body: BaseModel | None = None,
) -> dict[str, Any]:
    """Hand ``item`` to the table loop and wait for what it did; with an account and a
    key, done once for that key (``what`` and ``body``: the request the key answers).
    A refusal is worded by the seats the request named."""
    sent = item if account is None else with_key(item, account, key, what, body)
    named = None if body is None else body.model_dump(by_alias=True)
    return await ask_table(ctx, sent, Places.of(named, dealer_now(ctx)))


def _audit(account: OwnerRecord, reason: str) -> Audit:
    """Who acts, now (the service's clock), why."""
    at = datetime.now(UTC).isoformat(timespec="seconds")
    return Audit(account.name, account.role, at, reason)


def _act(
    ctx: WebContext,
    command: StaffCommand,
    body: _Act | VoidIn,
    hand_id: str,
    account: OwnerRecord,
    key: str | None,
    what: str,
) -> Awaitable[dict[str, Any]]:
    """The engine's command, on the moment of the hand its sender saw, to the table loop."""
    return _desk(ctx, HandAct(command, hand_id, body.seen), account, key, what, body)


@router.get(
    "/hands/current",
    responses={503: {"model": Problem}},
    summary="The hand in progress, as staff may see it",
)
async def current(account: Actor, ctx: Ctx) -> dict[str, Any]:
    return await _desk(ctx, Look())


@router.post("/hands/current/finish", responses=ACT_RESPONSES, summary="Finish the hand by hand")
async def finish(
    body: FinishIn, account: Actor, ctx: Ctx, key: IdempotencyKey = None
) -> dict[str, Any]:
    command = body.finish(account)
    return await _act(ctx, command, body, body.hand_id, account, key, "finish")


@router.post(
    "/hands/current/correction",
    responses=ACT_RESPONSES,
    summary="Correct the winner's tiles on the laid-down hand, or a result entered by hand",
)
async def correction(
    body: CorrectionIn, account: Actor, ctx: Ctx, key: IdempotencyKey = None
) -> dict[str, Any]:
    command: StaffCommand
    if body.seat is not None and body.hand is not None:
        audit = _audit(account, body.reason)
        command = CorrectWin(audit, body.seat, body.hand, _melds(body.melds))
    else:
        command = CorrectResult(body.finish(account))
    return await _act(ctx, command, body, body.hand_id, account, key, "correct")


@router.post(
    "/hands/current/penalties", responses=ACT_RESPONSES, summary="A penalty (诈胡, 相公) on a seat"
)
async def penalty(
    body: PenaltyIn, account: Actor, ctx: Ctx, key: IdempotencyKey = None
) -> dict[str, Any]:
    command = Penalise(_audit(account, body.reason), body.seat, body.penalty)
    return await _act(ctx, command, body, body.hand_id, account, key, "penalty")


@router.post(
    "/hands/current/undo", responses=ACT_RESPONSES, summary="Undo the last act of this hand"
)
async def undo(
    body: UndoIn, account: Actor, ctx: Ctx, key: IdempotencyKey = None
) -> dict[str, Any]:
    command = Undo(_audit(account, body.reason))
    return await _act(ctx, command, body, body.hand_id, account, key, "undo")


@router.post(
    "/hands/current/flip",
    responses=ACT_RESPONSES,
    summary="Enter the flipped 精 where no reader saw it (a table without readers)",
)
async def flip(
    body: FlipIn, account: Actor, ctx: Ctx, key: IdempotencyKey = None
) -> dict[str, Any]:
    command = EnterFlip(_audit(account, body.reason), body.indicator)
    return await _act(ctx, command, body, body.hand_id, account, key, "flip")


@router.post("/adjustments", responses=ACT_RESPONSES, summary="Move points between seats")
async def adjustment(
    body: AdjustmentIn, account: Actor, ctx: Ctx, key: IdempotencyKey = None
) -> dict[str, Any]:
    command = Adjust(_audit(account, body.reason), body.from_seat, body.to_seat, body.points)
    return await _act(ctx, command, body, body.hand_id, account, key, "adjust")


@router.post(
    "/hands/{hand_id}/void",
    responses=ACT_RESPONSES,
    summary="Void the hand in progress, or an earlier hand of this session",
)
async def void(
    hand_id: Annotated[str, Path(pattern=HAND_ID)],
    body: VoidIn,
    account: Actor,
    ctx: Ctx,
    key: IdempotencyKey = None,
) -> dict[str, Any]:
    command = Void(_audit(account, body.reason))
    return await _act(ctx, command, body, hand_id, account, key, f"void {hand_id}")


@router.get(
    "/hands/recent",
    responses={503: {"model": Problem}},
    summary="This session's latest finished hands (result, nets, acts), newest first: "
    "each may be voided (POST hands/{hand_id}/void) as the owners' staff policy allows",
)
async def recent_hands(
    account: Actor,
    ctx: Ctx,
    limit: Annotated[int, Query(ge=1, le=RECENT_HANDS)] = RECENT_HANDS,
) -> dict[str, Any]:
    view = await _desk(ctx, Look())  # (the live table's session: staff act on no other)
    session_id = view.get("session_id")
    hands = []
    if isinstance(session_id, str):
        hands = await asyncio.to_thread(session_hands, ctx.store, session_id, limit)
    policy, owner = ctx.owners.staff_policy(), account.role == "owner"
    return {
        "session_id": session_id,
        "current": view.get("hand_id"),
        "seen": view.get("seen"),
        "may_void": owner or policy.may_void,
        "may_adjust": owner or policy.may_adjust,
        "hands": hands,
    }


class DiceIn(_In):
    hand_id: Annotated[str, Field(pattern=HAND_ID)] | None = Field(
        description="From GET hands/current (null: no hand yet)"
    )
    seen: Annotated[int, Field(ge=0, le=100_000)]


@router.post(
    "/dice",
    responses=ACT_RESPONSES,
    summary="The dice button: whoever is due rolls (without readers: the next hand starts)",
)
async def dice(
    body: DiceIn, account: Actor, ctx: Ctx, key: IdempotencyKey = None
) -> dict[str, Any]:
    return await _desk(ctx, DiceButton(body.hand_id, body.seen), account, key, "dice", body)


class ReasonIn(_In):
    """An act whose whole body is why (closing the session, acknowledging a loss)."""

    reason: Annotated[str, Field(min_length=1, max_length=MAX_REASON)]


@router.post(
    "/session/close",
    responses=ACT_RESPONSES,
    summary="Close the session after its last hand: the cash-out (who pays whom)",
)
async def close_session(
    body: ReasonIn, account: Actor, ctx: Ctx, key: IdempotencyKey = None
) -> dict[str, Any]:
    return await _desk(ctx, CloseSession(_audit(account, body.reason)), account, key, "close", body)


@router.get(
    "/sessions/latest/cashout",
    responses={404: {"model": Problem}},
    summary="This table's latest session with a hand: its cash-out, or its standing while open",
)
def latest_cashout(account: Member, ctx: Ctx) -> dict[str, Any]:
    last = ctx.store.list_hands(status="finished", limit=1)
    if not last or last[0].session_id is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, say("staff.no_hand_finished"))
    terms, _ = ctx.owners.cashout_terms()
    return stored_cashout(ctx.store, last[0].session_id, terms, datetime.now(UTC))


RECENT_CLOSED = 10  # the closed sessions a table's staff can open again


class ClosedSession(BaseModel):
    session_id: str
    started_at: datetime
    ended_at: datetime


@router.get(
    "/sessions/closed",
    summary="This table's last closed sessions, newest first (their sheets: the next route)",
)
def closed_sessions(account: Member, ctx: Ctx) -> list[ClosedSession]:
    return [
        ClosedSession(session_id=s.id, started_at=s.started_at, ended_at=s.ended_at)
        for s in _recent_closed(ctx)
    ]


@router.get(
    "/sessions/{session_id}/cashout",
    responses={404: {"model": Problem}},
    summary="One of this table's last closed sessions (owners: any): its cash-out sheet",
)
def closed_cashout(
    account: Member, ctx: Ctx, session_id: Annotated[str, Path(pattern=SESSION_ID)]
) -> dict[str, Any]:
    # staff see what they closed after the next hand started; older sheets are the owners'
    if account.role != "owner" and session_id not in {s.id for s in _recent_closed(ctx)}:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            f"本台最近结束的场次里没有 {session_id!r} "
            f"(not one of this table's last {RECENT_CLOSED} closed sessions)",
        )
    terms, _ = ctx.owners.cashout_terms()
    try:
        return stored_cashout(ctx.store, session_id, terms, datetime.now(UTC))
    except UnknownSession:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"没有这一场 (unknown session {session_id!r})"
        ) from None


def _recent_closed(ctx: WebContext) -> list[Any]:
    sessions = ctx.store.list_sessions(limit=RECENT_CLOSED + 1)  # (the open one, newest)
    return [s for s in sessions if s.ended_at is not None][:RECENT_CLOSED]


@router.get(
    "/cashout-terms", summary="The owners' cash-out terms (point value, table fee, cut-off)"
)
def get_cashout_terms(account: Member, ctx: Ctx) -> CashoutTerms:
    return ctx.owners.cashout_terms()[0]


@router.get(
    "/store-loss",
    summary="What the table's store lost at a start (null found_at: none), and who acknowledged it",
)
def get_store_loss(account: Member, ctx: Ctx) -> StoreLoss:
    return ctx.owners.store_loss()


@router.post(
    "/store-loss/acknowledge",
    responses=ACT_RESPONSES,
    summary="Acknowledge the store's loss: the same loss is no longer said at each start",
)
def acknowledge_store_loss(body: ReasonIn, account: Member, ctx: Ctx) -> StoreLoss:
    loss = ctx.owners.store_loss()
    if not loss.open:
        raise HTTPException(status.HTTP_409_CONFLICT, say("staff.no_loss"))
    at = datetime.now(UTC)
    done = loss.model_copy(
        update={
            "acknowledged_by": account.name,
            "acknowledged_role": account.role,
            "acknowledged_at": at,
            "why": body.reason,
        }
    )
    ctx.owners.set_store_loss(done, account.name)
    # in the owners' alert log too, with who, when and why
    detail = f"{account.name} ({account.role}) at {at.isoformat(timespec='seconds')}: {body.reason}"
    said = f"记录丢失已确认 (the store's loss acknowledged): {loss.hand_id}"
    ctx.store.record_alert(None, "store_loss_acknowledged", None, said, detail)
    return done


@router.get("/policy", summary="What staff may do here, and the owners' penalty amounts")
def get_policy(account: Member, ctx: Ctx) -> StaffPolicy:
    return ctx.owners.staff_policy()


# the owners set it on a path of its own: one handler a path keeps the 405's Allow true
owner_router = APIRouter(route_class=ApiRoute, prefix="/api/v1/owner", tags=["owners"])


def table_owner(owner: Owner, ctx: Ctx) -> OwnerRecord:
    """An owner, at a table: refused on the hub before the body is read, as the GET is."""
    refuse_on_hub(ctx)
    return owner


TableOwner = Annotated[OwnerRecord, Depends(table_owner)]


@owner_router.put(
    "/staff-policy",
    responses=WITH_BODY,
    summary="Set what staff may do, and penalty amounts a ruleset has none of",
)
def put_policy(policy: StaffPolicy, owner: Owner, ctx: Ctx) -> StaffPolicy:
    ctx.owners.set_staff_policy(policy, owner.name)
    return ctx.owners.staff_policy()


@owner_router.put(
    "/cashout-terms",
    responses=WITH_BODY,
    summary="Set the point value, the table fee and the daily cut-off of the cash-out",
)
def put_cashout_terms(terms: CashoutTerms, owner: TableOwner, ctx: Ctx) -> CashoutTerms:
    ctx.owners.set_cashout_terms(terms, owner.name)
    return ctx.owners.cashout_terms()[0]


class TermsChange(BaseModel):
    by: str | None = Field(description="The owner who set the terms last (null: nobody yet)")
    at: datetime | None


@owner_router.get(
    "/cashout-terms/last-change",
    responses={401: {"model": Problem}, 403: {"model": Problem}},
    summary="Who set the cash-out terms last, and when",
)
def cashout_terms_change(owner: TableOwner, ctx: Ctx) -> TermsChange:
    by, at = ctx.owners.cashout_terms_changed()
    return TermsChange(by=by or None, at=at)
