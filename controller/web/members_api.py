"""The parlour's members and who sits where: owners and this table's staff (docs/players.md).

The registry is the table's: register, edit, deactivate, delete here (``mjtable member``
does the same). Seats change through the table loop (``controller.table.seating``), between hands
only, each act stored with the account that did it before the seats are published.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Path, Response, status
from pydantic import BaseModel, ConfigDict, Field

from controller.store.members import (
    MEMBER_ID_PATTERN,
    NAME_MAX,
    Members,
    UnknownMember,
)
from controller.store.owners import OwnerRecord
from controller.table.seating import act_time
from controller.table.staff_requests import SeatRequest
from controller.web.context import WebContext, context
from controller.web.routes import ApiRoute
from controller.web.schemas import WITH_BODY, Problem
from controller.web.staff_api import IdempotencyKey, table_account, with_key
from controller.web.table_desk import ask_table
from engine.round.commands import Audit

router = APIRouter(
    route_class=ApiRoute,
    prefix="/api/v1/members",
    tags=["members"],
    responses=WITH_BODY,
)
Ctx = Annotated[WebContext, Depends(context)]
Account = Annotated[OwnerRecord, Depends(table_account)]
MemberId = Annotated[str, Path(pattern=MEMBER_ID_PATTERN)]
# bounded here; the store checks the rest (no control characters, the card's hex form)
Name = Annotated[str, Field(min_length=1, max_length=NAME_MAX * 2)]
CardTag = Annotated[str, Field(min_length=8, max_length=96)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class MemberIn(_In):
    name: Name
    card_tag: CardTag | None = None


class MemberEdit(_In):
    name: Name | None = None
    card_tag: CardTag | None = Field(default=None, description="null takes the card away")
    active: bool | None = None


class SeatIn(_In):
    member_id: Annotated[str, Field(pattern=MEMBER_ID_PATTERN)] | None = Field(
        description="null: the seat is left to a guest"
    )


def _members(ctx: WebContext) -> Members:
    s = ctx.settings
    return Members(ctx.store.engine, table_id=s.table, parlour=s.parlour)


@router.get("", summary="Every member (not deleted)")
def list_members(account: Account, ctx: Ctx) -> list[dict[str, Any]]:
    return [m.as_dict() for m in _members(ctx).all()]


# One handler a path (the 405's Allow stays true), so each act has a path of its own, and no
# literal path is also a member id's (``by-id/``): a wrong method is a 405, not a 422.
@router.post("/registrations", status_code=status.HTTP_201_CREATED, summary="Register a member")
def add_member(body: MemberIn, account: Account, ctx: Ctx) -> dict[str, Any]:
    return _members(ctx).add(body.name, body.card_tag).as_dict()


@router.patch(
    "/by-id/{member_id}", responses={404: {"model": Problem}}, summary="Rename, card, deactivate"
)
def edit_member(member_id: MemberId, body: MemberEdit, account: Account, ctx: Ctx) -> Any:
    changes: dict[str, Any] = {"name": body.name, "active": body.active}
    if "card_tag" in body.model_fields_set:
        changes["card_tag"] = body.card_tag
    try:
        return _members(ctx).edit(member_id, **changes).as_dict()
    except UnknownMember:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no member {member_id}") from None


@router.post(
    "/by-id/{member_id}/deletion",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={404: {"model": Problem}},
    summary="Delete a member: their past hands stay settled, as a guest's",
)
def delete_member(member_id: MemberId, account: Account, ctx: Ctx) -> Response:
    try:
        _members(ctx).remove(member_id)
    except UnknownMember:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no member {member_id}") from None
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/seats", summary="Who sits where, and the latest seat acts (who did them, when)")
def seats(account: Account, ctx: Ctx) -> dict[str, Any]:
    members = _members(ctx)
    return {"players": members.seating(), "acts": [a.as_dict() for a in members.acts(limit=50)]}


@router.put(
    "/seats/{seat}",
    responses={
        403: {"model": Problem},
        404: {"model": Problem},
        409: {"model": Problem},
        422: {"model": Problem},
        503: {"model": Problem},
    },
    summary="Seat a member (or a guest) between hands (with an Idempotency-Key: done once)",
)
async def sit(
    seat: Annotated[int, Path(ge=0, le=3)],
    body: SeatIn,
    account: Account,
    ctx: Ctx,
    key: IdempotencyKey = None,
) -> dict[str, Any]:
    """The seat command on the table loop (``controller.table.seating``); refused in words
    as the staff's acts are (``table_desk.ask_table``), nothing done."""
    audit = Audit(account.name, account.role, act_time())
    request = SeatRequest(seat, body.member_id, audit)
    return await ask_table(ctx, with_key(request, account, key, f"seat {seat}", body))
