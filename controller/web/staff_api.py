"""Staff in the loop: the acts of a person on this table's live hand, and the owners'
policy for them (docs/staff.md). Staff (a short login, for the tables it belongs to) and
owners may act; which acts staff may do beyond finishing, correcting, penalties and undo
(void, adjust) is the owners' ``StaffPolicy``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, status

from controller.store.owners import OwnerRecord, StaffPolicy
from controller.web.auth import Owner, current_account
from controller.web.context import WebContext, context
from controller.web.schemas import Problem

router = APIRouter(
    prefix="/api/v1/staff",
    tags=["staff"],
    responses={401: {"model": Problem}, 403: {"model": Problem}},
)
Ctx = Annotated[WebContext, Depends(context)]


def table_account(
    account: Annotated[OwnerRecord, Depends(current_account)], ctx: Ctx
) -> OwnerRecord:
    """Staff of this table, or an owner; the hub has no live table to act on."""
    if ctx.settings.hub:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "the hub plays no hand: act at the table")
    if not account.acts_on(ctx.settings.table):
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, f"{account.name} is not staff of table {ctx.settings.table}"
        )
    return account


Actor = Annotated[OwnerRecord, Depends(table_account)]


@router.get("/policy", summary="What staff may do here, and the owners' penalty amounts")
def get_policy(account: Actor, ctx: Ctx) -> StaffPolicy:
    return ctx.owners.staff_policy()


# the owners set it on a path of its own: one handler a path keeps the 405's Allow true
owner_router = APIRouter(prefix="/api/v1/owner", tags=["owners"])


@owner_router.put(
    "/staff-policy",
    responses={401: {"model": Problem}, 403: {"model": Problem}, 422: {"model": Problem}},
    summary="Set what staff may do, and penalty amounts a ruleset has none of",
)
def put_policy(policy: StaffPolicy, owner: Owner, ctx: Ctx) -> StaffPolicy:
    ctx.owners.set_staff_policy(policy, owner.name)
    return ctx.owners.staff_policy()
