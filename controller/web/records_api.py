"""Members' records (docs/players.md, "Records"): for the owners, every member's, a CSV, a
chart, leaderboards when they switch them on, and each member's personal link; for a member,
through that link only, their own record, read-only, and nothing else.

The records are counted at the hub from every table's hands; a table's own store answers
the same for its own hands.
"""

from __future__ import annotations

import csv
import io
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, Response, status
from pydantic import BaseModel, ConfigDict

from controller.store.member_records import (
    COUNTS,
    Record,
    all_records,
    leaderboard,
    member_of_link,
    member_record,
    new_link,
    revoke_link,
)
from controller.store.members import MEMBER_ID_PATTERN
from controller.store.owners import Leaderboards, OwnerRecord
from controller.web import charts
from controller.web.auth import Account, Owner
from controller.web.context import WebContext, context
from controller.web.export import _cell
from controller.web.routes import ApiRoute
from controller.web.schemas import WITH_BODY, Problem

router = APIRouter(
    route_class=ApiRoute,
    prefix="/api/v1/records",
    tags=["records"],
    responses={401: {"model": Problem}, 403: {"model": Problem}, 404: {"model": Problem}},
)
# The member's own: no login, the token is the key (no other route takes it).
mine = APIRouter(
    route_class=ApiRoute,
    prefix="/api/v1/my-record",
    tags=["records"],
    responses={404: {"model": Problem}},
)
Ctx = Annotated[WebContext, Depends(context)]
MemberId = Annotated[str, Path(pattern=MEMBER_ID_PATTERN)]
Token = Annotated[str, Path(min_length=16, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


def _record(ctx: WebContext, member_id: str) -> Record:
    found = member_record(ctx.store.engine, member_id)
    if found is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no member {member_id}")
    return found


# a member's chart is read on their phone: narrow, large text (13 px type at 360 px wide)
PHONE_WIDTH, PHONE_FONT = 380, 16


def _chart(record: Record, lang: str) -> Response:
    zh = lang == "zh"
    svg = charts.line_chart(
        [record.series],
        [record.name or ""],
        "累计输赢" if zh else "Running net",
        "局" if zh else "hands",
        width=PHONE_WIDTH,
        font=PHONE_FONT,
    )
    return Response(svg, media_type="image/svg+xml")


@router.get("/members", summary="Every member's record (owners)")
def records(owner: Owner, ctx: Ctx) -> list[dict[str, Any]]:
    return [r.as_dict() | {"series": [], "recent": []} for r in all_records(ctx.store.engine)]


@router.get(
    "/members.csv",
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, UTF-8 with a BOM"}},
    summary="Every member's record as CSV (owners)",
)
def records_csv(owner: Owner, ctx: Ctx) -> Response:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["member_id", "name", *COUNTS, "net"])
    for r in all_records(ctx.store.engine):
        writer.writerow(
            [_cell(v) for v in (r.member_id, r.name, *(getattr(r, k) for k in COUNTS), r.net)]
        )
    return Response(
        "\ufeff" + out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="members.csv"'},
    )


@router.get("/by-id/{member_id}", summary="One member's record (owners)")
def record(member_id: MemberId, owner: Owner, ctx: Ctx) -> dict[str, Any]:
    return _record(ctx, member_id).as_dict()


@router.get(
    "/by-id/{member_id}/chart.svg",
    responses={200: {"content": {"image/svg+xml": {}}}},
    summary="A member's running net (owners)",
)
def record_chart(
    member_id: MemberId,
    owner: Owner,
    ctx: Ctx,
    lang: Annotated[Literal["zh", "en"], Query()] = "zh",
) -> Response:
    return _chart(_record(ctx, member_id), lang)


def link_maker(account: Account, ctx: Ctx) -> OwnerRecord:
    """An owner, or staff at their table (who hand the member the link at the cash-out)."""
    if account.role == "owner" or (not ctx.settings.hub and account.acts_on(ctx.settings.table)):
        return account
    raise HTTPException(status.HTTP_403_FORBIDDEN, f"{account.name} may not make links here")


@router.post("/by-id/{member_id}/link", summary="A new personal link (the old one stops working)")
def make_link(
    member_id: MemberId, _maker: Annotated[OwnerRecord, Depends(link_maker)], ctx: Ctx
) -> dict[str, str]:
    token = new_link(ctx.store.engine, member_id)
    if token is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no member {member_id}")
    return {"token": token, "url": f"/m/{token}", "qr": f"{mine.prefix}/{token}/qr.svg"}


@router.post(
    "/by-id/{member_id}/link/revocation",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Revoke the member's personal link",
)
def drop_link(member_id: MemberId, owner: Owner, ctx: Ctx) -> Response:
    if not revoke_link(ctx.store.engine, member_id):
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no member {member_id}")
    return Response(status_code=status.HTTP_204_NO_CONTENT)


class LeaderboardSetting(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    enabled: bool


@router.get("/leaderboards", summary="The top members (when the owners switched them on)")
def get_leaderboard(
    account: Account,
    ctx: Ctx,
    by: Annotated[
        Literal["net", "wins", "self_draws", "deguo", "big_hands", "hands"], Query()
    ] = "net",
    period: Annotated[str | None, Query(pattern=r"^\d{4}-(W\d{2}|\d{2})$")] = None,
) -> list[dict[str, Any]]:
    if not ctx.owners.leaderboards()[0].enabled:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, "the owners have not switched leaderboards on"
        )
    return leaderboard(all_records(ctx.store.engine), by, period)


owner_router = APIRouter(route_class=ApiRoute, prefix="/api/v1/owner", tags=["owners"])


@owner_router.put(
    "/leaderboards",
    responses=WITH_BODY,
    summary="Switch the members' leaderboards on or off",
)
def put_leaderboards(body: LeaderboardSetting, owner: Owner, ctx: Ctx) -> LeaderboardSetting:
    ctx.owners.set_leaderboards(Leaderboards(enabled=body.enabled), owner.name)
    return body


# --- the member's own, by their link ---------------------------------------------------


def _mine(ctx: WebContext, token: str) -> Record:
    member_id = member_of_link(ctx.store.engine, token)
    found = None if member_id is None else member_record(ctx.store.engine, member_id)
    if found is None:  # (the same answer for a wrong token and a revoked one)
        raise HTTPException(status.HTTP_404_NOT_FOUND, "no such link")
    return found


@mine.get("/{token}", summary="A member's own record, through their personal link")
def my_record(token: Token, ctx: Ctx, response: Response) -> dict[str, Any]:
    response.headers["Cache-Control"] = "no-store"  # (no referrer leaves: SecurityHeaders)
    return _mine(ctx, token).as_dict()


@mine.get(
    "/{token}/chart.svg",
    responses={200: {"content": {"image/svg+xml": {}}}},
    summary="A member's own running net, through their personal link",
)
def my_chart(
    token: Token, ctx: Ctx, lang: Annotated[Literal["zh", "en"], Query()] = "zh"
) -> Response:
    return _chart(_mine(ctx, token), lang)


@mine.get(
    "/{token}/qr.svg",
    responses={200: {"content": {"image/svg+xml": {}}}},
    summary="The personal link as a QR code, for the member's phone",
)
def my_qr(token: Token, ctx: Ctx, request: Request) -> Response:
    _mine(ctx, token)  # a revoked or unknown link has no code either
    url = f"{str(request.base_url).rstrip('/')}/m/{token}"
    return Response(qr_svg(url), media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


def qr_svg(text: str) -> bytes:
    """``text`` as a QR code, a standalone SVG (an image of its own: with its namespace)."""
    import segno  # here: with its SVG writer (xml.sax) ~0.8 MB resident, for a page seldom shown

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False)
    return out.getvalue()
