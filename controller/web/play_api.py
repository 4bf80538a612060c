"""The players' phones (docs/play.md): join a seat with the session's join code (the QR
code on the display), see the hand's public side from that seat, and act for that seat
only. Everything a phone may send is bounded: bodies (``limits.BODY_PREFIX_LIMITS``), joins
per address and in all (``limits.Rate``), and each refusal is a 4xx in words, Chinese
first, that stores nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import (
    APIRouter,
    Depends,
    Header,
    HTTPException,
    Path,
    Query,
    Request,
    Response,
    status,
)
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.store.member_records import member_of_link
from controller.store.members import NAME_MAX, MemberInputError, Members, UnknownMember, check_name
from controller.store.owners import OwnerRecord
from controller.table.seating import act_time
from controller.table.staff_requests import DiceButton, HandAct, Look, SeatRequest
from controller.web.context import WebContext, context
from controller.web.limits import Rate, client_address
from controller.web.phone_seats import (
    COOKIE,
    TOKEN_HEADER,
    PlayRefused,
    SeatSession,
    seat_words,
)
from controller.web.records_api import qr_svg
from controller.web.routes import ApiRoute
from controller.web.schemas import Problem
from controller.web.staff_api import HAND_ID, table_account
from controller.web.table_desk import ask_table
from engine.round.commands import (
    AnswerClaim,
    Audit,
    Claim,
    EnterFlip,
    MeldEntry,
    PassClaim,
    SeatEntry,
    StaffInputError,
    WinnerEntry,
)

router = APIRouter(
    route_class=ApiRoute,
    prefix="/api/v1/play",
    tags=["players"],
    responses={
        400: {"model": Problem},
        401: {"model": Problem},
        403: {"model": Problem},
        404: {"model": Problem},
        409: {"model": Problem},
        413: {"model": Problem},
        422: {"model": Problem},
        429: {"model": Problem},
        503: {"model": Problem},
    },
)
staff_router = APIRouter(route_class=ApiRoute, prefix="/api/v1/staff/phones", tags=["staff"])
Ctx = Annotated[WebContext, Depends(context)]
SeatNo = Annotated[int, Path(ge=0, le=3, description="0-based (the page says 1号位–4号位)")]
Code = Annotated[str, Field(min_length=1, max_length=16)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class JoinIn(_In):
    table: Annotated[str, Field(min_length=1, max_length=64)]
    code: Code
    name: Annotated[str, Field(min_length=1, max_length=NAME_MAX * 2)] | None = Field(
        default=None, description="A guest's name"
    )
    member_link: Annotated[str, Field(min_length=16, max_length=64)] | None = Field(
        default=None, description="A member's personal link token (docs/players.md)"
    )

    @model_validator(mode="after")
    def _one(self) -> JoinIn:
        if (self.name is None) == (self.member_link is None):
            raise ValueError("give a name (a guest) or a member_link (a member), not both")
        return self


def refused(err: PlayRefused) -> HTTPException:
    return HTTPException(err.status, err.detail)


def session_key(view: dict[str, Any]) -> str:
    """The session a code and a seat belong to (a closed one: until the next hand)."""
    return str(view.get("session_id") or "closed")


def _token(request: Request, header: str | None) -> str | None:
    return header or request.cookies.get(COOKIE)


SeatToken = Annotated[str | None, Header(alias=TOKEN_HEADER, max_length=64)]


async def phone(
    ctx: Ctx, request: Request, token: SeatToken = None
) -> tuple[SeatSession, dict[str, Any]]:
    """The phone sending this request, and the hand as the table sees it now."""
    view = await ask_table(ctx, Look())
    try:
        return ctx.phones.of(_token(request, token), session_key(view)), view
    except PlayRefused as err:
        raise refused(err) from None


Phone = Annotated[tuple[SeatSession, dict[str, Any]], Depends(phone)]


def _join_url(ctx: WebContext, code: str) -> str:
    return f"/t/{ctx.settings.table}?code={code}"


@router.get("/join", summary="This session's join code and the phones' link (the display's)")
async def join_code(ctx: Ctx) -> dict[str, Any]:
    if ctx.staff_desk is None:  # no live table here (the hub's pages): nothing to join
        return {"table": ctx.settings.table, "code": None, "url": None}
    view = await ask_table(ctx, Look())
    code = ctx.phones.code(session_key(view))
    return {"table": ctx.settings.table, "code": code.code, "url": _join_url(ctx, code.code)}


@router.get(
    "/join/qr.svg",
    responses={200: {"content": {"image/svg+xml": {}}}},
    summary="The join link as a QR code (the display's idle and between-hands screens)",
)
async def join_qr(ctx: Ctx, request: Request) -> Response:
    view = await ask_table(ctx, Look())
    code = ctx.phones.code(session_key(view))
    url = str(request.base_url).rstrip("/") + _join_url(ctx, code.code)
    return Response(qr_svg(url), media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


@router.get("/seats", summary="Who holds each seat (names only)")
async def seats(ctx: Ctx) -> dict[str, Any]:
    view = await ask_table(ctx, Look())
    return {"table": ctx.settings.table, "seats": ctx.phones.taken(session_key(view))}


def _rate(ctx: WebContext, request: Request, rate: Rate | None = None, what: str = "入座") -> None:
    """Joins per client address and in all; a claim or an answer per address."""
    keys = [(client_address(request.scope.get("client")), rate or ctx.join_rate)]
    if rate is None:
        keys.append(("*", ctx.join_rate_all))
    for key, window in keys:
        wait = window.take(key)
        if wait > 0:
            raise HTTPException(
                status.HTTP_429_TOO_MANY_REQUESTS,
                f"{what}太频繁，请 {int(wait) + 1} 秒后再试 (too many: wait {int(wait) + 1} s)",
                headers={"Retry-After": str(int(wait) + 1)},
            )


@router.post(
    "/seats/{seat}/join",
    summary="Sit at a free seat with this phone: a guest (a name) or a member (their link)",
)
async def join(
    seat: SeatNo, body: JoinIn, ctx: Ctx, request: Request, response: Response
) -> dict[str, Any]:
    _rate(ctx, request)
    if body.table != ctx.settings.table:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND,
            f"这里是 {ctx.settings.table} 号桌，不是 {body.table} (not this table)",
        )
    view = await ask_table(ctx, Look())
    key = session_key(view)
    member_id = None
    try:
        ctx.phones.check_code(key, body.code)
        if body.member_link is not None:
            member_id, name = _member(ctx, body.member_link)
        else:
            name = _guest_name(body.name or "")
        token, held = ctx.phones.join(seat, name, member_id, key)
    except PlayRefused as err:
        raise refused(err) from None
    seated = False
    if member_id is not None and not view.get("in_progress"):
        audit = Audit(f"phone:{held.sid}", "player", act_time())
        try:  # a member's seat act, between hands (docs/players.md, "Sitting down")
            await ask_table(ctx, SeatRequest(seat, member_id, audit))
            seated = True
        except HTTPException as err:  # (a hand started meanwhile: the seats stay)
            if err.status_code != status.HTTP_409_CONFLICT:
                raise
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(ctx.phones.seat_ttl),
        path="/",
        httponly=True,
        samesite="strict",
        secure=ctx.settings.cookie_secure or request.url.scheme == "https",
    )
    return {
        "seat": seat,
        "name": name,
        "member": member_id is not None,
        "sid": held.sid,
        "token": token,
        "seated": seated,
    }


def _member(ctx: WebContext, link: str) -> tuple[str, str]:
    member_id = member_of_link(ctx.store.engine, link)
    members = Members(ctx.store.engine, table_id=ctx.settings.table)
    try:
        record = None if member_id is None else members.get(member_id)
    except UnknownMember:
        record = None
    if record is None or not record.active:
        raise PlayRefused(403, "会员链接无效 (the member link is not valid)")
    return record.member_id, record.name


def _guest_name(name: str) -> str:
    try:
        return check_name(name)
    except MemberInputError:
        raise PlayRefused(
            422, f"名字：1–{NAME_MAX} 个字，不含控制字符 (name: 1-{NAME_MAX} characters)"
        ) from None


@router.get("/me", summary="This phone's seat and the hand's public side")
async def me(held: Phone, ctx: Ctx) -> dict[str, Any]:
    session, view = held
    public = view.get("public") or {}
    return {
        "table": ctx.settings.table,
        "seat": session.seat,
        "seat_words": seat_words(session.seat),
        "name": session.name,
        "member": session.member_id is not None,
        "sid": session.sid,
        "hand_id": view.get("hand_id"),
        "seen": view.get("seen"),
        "in_progress": view.get("in_progress", False),
        "hand_no": public.get("hand_no"),
        "dealer": dealer_of(view),
        "jing": public.get("jing") or {},
        "flips": view.get("flips", False),
        # a 暗精 / 下精 no reader saw: the claim enters it with the result (which tile: never
        # here, it is concealed until the hand ends)
        "an_jing": view.get("an_jing", False),
        "xia_jing": view.get("xia_jing", False),
        # the dealer's phone rolls where the table has no button: the break roll, or the
        # next hand's after a settled one
        "dice_due": not view.get("in_progress") or not public.get("dice"),
        "totals": view.get("totals"),
        "seats": ctx.phones.taken(session_key(view)),
        "claim": view.get("claim"),
        # the hand waits for staff (a dispute, no answer in time): why, in words
        "staff_called": view.get("staff_called") if view.get("in_progress") else None,
        "needs": view.get("needs"),  # what a claim enters (the ruleset's, nothing concealed)
        "settlement": None if view.get("in_progress") else public.get("settlement"),
    }


class _Act(_In):
    hand_id: Annotated[str, Field(pattern=HAND_ID, description="From GET /api/v1/play/me")]
    seen: Annotated[int, Field(ge=0, le=100_000, description="Events of the hand seen")]


class FlipIn(_Act):
    indicator: Annotated[str, Field(min_length=1, max_length=4, description="e.g. 5s")]


def audit(session: SeatSession, reason: str = "") -> Audit:
    """Who (the seat, member or guest, the phone) and when, as a hand's events name it."""
    return Audit(session.who, "player", datetime.now(UTC).isoformat(timespec="seconds"), reason)


def dealer_of(view: dict[str, Any]) -> int | None:
    """Who deals now: the hand's dealer, and once it is settled, the next hand's."""
    public = view.get("public") or {}
    settled = public.get("settlement") if not view.get("in_progress") else None
    if isinstance(settled, dict) and isinstance(settled.get("next_dealer"), int):
        return int(settled["next_dealer"])
    dealer = public.get("dealer")
    return dealer if isinstance(dealer, int) else None


def dealer_only(session: SeatSession, view: dict[str, Any], what: str) -> None:
    dealer = dealer_of(view)
    if session.seat != dealer:
        who = "" if dealer is None else f"（{seat_words(dealer)}）"
        raise HTTPException(
            status.HTTP_403_FORBIDDEN, f"只有庄家{who}可以{what} (only the dealer's phone may)"
        )


@router.post("/flip", summary="The dealer's phone enters the turned-up 精 no reader saw")
async def flip(body: FlipIn, held: Phone, ctx: Ctx) -> dict[str, Any]:
    session, view = held
    dealer_only(session, view, "录入翻精")
    command = EnterFlip(audit(session), body.indicator)
    return await ask_table(ctx, HandAct(command, body.hand_id, body.seen))


class DiceIn(_In):
    hand_id: Annotated[str, Field(pattern=HAND_ID)] | None
    seen: Annotated[int, Field(ge=0, le=100_000)]


@router.post("/dice", summary="The dealer's phone rolls (a table without a dice button)")
async def dice(body: DiceIn, held: Phone, ctx: Ctx) -> dict[str, Any]:
    session, view = held
    dealer_only(session, view, "掷骰子")
    return await ask_table(ctx, DiceButton(body.hand_id, body.seen))


class MeldIn(_In):
    type: Literal["chow", "pung", "kong_exposed", "kong_concealed", "kong_added"]
    tiles: Annotated[str, Field(max_length=16)]
    from_: Annotated[int, Field(ge=0, le=3)] | None = Field(default=None, alias="from")
    claimed: Annotated[str, Field(max_length=4)] | None = None


class WinIn(_In):
    """The winning hand as the picker enters it: the concealed tiles with the winning tile,
    the melds, the winning tile, where it came from (``self``, ``kong_replacement`` (杠上花)
    or the seat that dealt in), the flags the ruleset reads (天胡 …)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)
    hand: Annotated[str, Field(min_length=1, max_length=64)]
    melds: list[MeldIn] = Field(default=[], max_length=4)
    tile: Annotated[str, Field(min_length=1, max_length=4)]
    from_: Literal[
        "self",
        "kong_replacement",
        0,
        1,
        2,
        3,
        "rob_kong:0",
        "rob_kong:1",
        "rob_kong:2",
        "rob_kong:3",
    ] = Field(alias="from")
    flags: list[Literal["tian", "di", "last_tile", "pao_long"]] = Field(default=[], max_length=4)
    robbed_from: Literal[0, 1, 2, 3] | None = Field(
        default=None,
        description="抢杠 (from rob_kong:<seat>, whose kong was robbed): the seat the robbed "
        "pung was claimed from",
    )


class SeatWinIn(WinIn):
    """One winner of several on one discard: its seat and its hand."""

    seat: Annotated[int, Field(ge=0, le=3, description="The winner's seat (0-based)")]


class ClaimIn(_Act):
    seat: Annotated[int, Field(ge=0, le=3, description="Your own seat (0-based)")]
    result: Literal["win", "exhausted"]
    win: WinIn | None = Field(default=None, description="Your win (one winner)")
    winners: list[SeatWinIn] | None = Field(
        default=None,
        min_length=2,
        max_length=3,
        description="Several winners of one discard (一炮多响, where the ruleset pays them "
        "all), your seat among them: each other winner confirms its own hand",
    )
    an_indicator: Annotated[str, Field(min_length=1, max_length=4)] | None = Field(
        default=None,
        description="lianhua's 暗精 no reader saw (/me's an_jing), turned up as the hand ends",
    )
    xia_indicator: Annotated[str, Field(min_length=1, max_length=4)] | None = Field(
        default=None,
        description="yongfeng's 下精 no reader saw (/me's xia_jing), turned up after the win",
    )

    @model_validator(mode="after")
    def _win(self) -> ClaimIn:
        given = (self.win is not None) + (self.winners is not None)
        if given != (self.result == "win"):
            raise ValueError(
                'a "win" (or "winners") with result "win" (胡), none for "exhausted" (流局)'
            )
        return self

    def entries(self) -> list[dict[str, Any]]:
        """The winners as the engine reads them, the claimer's own first."""
        drop = {"robbed_from"}
        if self.win is not None:
            own = self.win.model_dump(by_alias=True, exclude_none=True, exclude=drop)
            return [own | {"seat": self.seat}]
        listed = [
            w.model_dump(by_alias=True, exclude_none=True, exclude=drop) for w in self.winners or []
        ]
        return sorted(listed, key=lambda w: w["seat"] != self.seat)

    def robbed_from(self) -> int | None:
        """A 抢杠: whom the robbed pung was claimed from (the claimer's own win's)."""
        own = self.win or next((w for w in self.winners or [] if w.seat == self.seat), None)
        return None if own is None else own.robbed_from


def own_seat(session: SeatSession, seat: int) -> None:
    if seat != session.seat:
        raise HTTPException(
            status.HTTP_403_FORBIDDEN,
            f"只能为自己的座位（{seat_words(session.seat)}）操作，不能代{seat_words(seat)} "
            "(act for your own seat only)",
        )


@router.post("/claim", summary="Claim the hand for your seat: 胡 (自摸 or who dealt in), or 流局")
async def claim(body: ClaimIn, held: Phone, ctx: Ctx, request: Request) -> dict[str, Any]:
    session, view = held
    own_seat(session, body.seat)
    _rate(ctx, request, ctx.claim_rate, "申报")
    winners = body.entries()
    if winners and winners[0]["seat"] != body.seat:
        raise HTTPException(422, f"胡牌的几家里没有您（{seat_words(body.seat)}）(winners: yours)")
    for w in winners:
        if w["from"] == w["seat"]:
            raise HTTPException(422, "放炮的不能是自己：自摸请选自摸 (from: not your own seat)")
        if w["from"] == f"rob_kong:{w['seat']}":
            raise HTTPException(422, "抢杠抢的是别家的杠 (rob_kong: another seat's kong)")
    try:
        entries = [WinnerEntry.of(w, "winner") for w in winners]
    except StaffInputError as err:
        raise HTTPException(422, str(err)) from None
    own = entries[0] if entries else None
    command = Claim(
        audit(session),
        body.seat,
        own,
        tuple(entries[1:]),
        an_indicator=body.an_indicator,
        xia_indicator=body.xia_indicator,
        robbed_from=body.robbed_from(),
    )
    # another winner joining a pending claim (一炮多响) acts while the payers answer: it
    # names the hand, not the moment (the engine checks it joins the same discard)
    seen = int(view.get("seen") or 0) if view.get("claim") else body.seen
    return await ask_table(ctx, HandAct(command, body.hand_id, seen))


class HeldIn(_In):
    """A paying seat as a staff finish's partial seat (docs/staff.md, "Only what the
    settlement needs")."""

    hand: Annotated[str, Field(max_length=64, description="Your counted 精, e.g. 5s5s6s")] = ""
    melds: list[MeldIn] = Field(default=[], max_length=4)
    kongs: list[Literal["kong_exposed", "kong_concealed", "kong_added"]] = Field(
        default=[], max_length=4, description="Your kongs of kinds not counted"
    )

    def entry(self, seat: int) -> SeatEntry:
        melds = tuple(MeldEntry(m.type, m.tiles, m.from_, m.claimed) for m in self.melds)
        return SeatEntry(seat, self.hand, melds, None, True, tuple(self.kongs))


class AnswerIn(_Act):
    seat: Annotated[int, Field(ge=0, le=3, description="Your own seat (0-based)")]
    agree: bool
    jing: (
        Annotated[list[Annotated[int, Field(ge=0, le=4)]], Field(min_length=2, max_length=2)] | None
    ) = Field(default=None, description="[正精, 副精] your seat holds (the jing family)")
    held: HeldIn | None = Field(
        default=None,
        description="Instead of jing: all the settlement reads of your seat (the hand's "
        "needs.others): your counted 精 as tiles, your kongs, your melds that claimed one",
    )


def _answering(
    seat: int, held: tuple[SeatSession, dict[str, Any]], ctx: WebContext, request: Request
) -> tuple[SeatSession, int]:
    """An answer to the pending claim from the phone's own seat, rated: the phone's session
    and the moment it names. The other seats answer at the same time: each seat answers
    once (the engine refuses a second), so an answer names the hand, not the moment seen."""
    session, view = held
    own_seat(session, seat)
    _rate(ctx, request, ctx.claim_rate, "确认")
    return session, int(view.get("seen") or 0)


@router.post("/answer", summary="Answer the pending claim: 确认 (with your 精) or 有异议")
async def answer(body: AnswerIn, held: Phone, ctx: Ctx, request: Request) -> dict[str, Any]:
    session, seen = _answering(body.seat, held, ctx, request)
    jing = None if body.jing is None else (body.jing[0], body.jing[1])
    entry = None if body.held is None else body.held.entry(body.seat)
    command = AnswerClaim(audit(session), body.seat, body.agree, jing, entry)
    return await ask_table(ctx, HandAct(command, body.hand_id, seen))


class PassIn(_Act):
    seat: Annotated[int, Field(ge=0, le=3, description="Your own seat (0-based)")]


@router.post("/pass", summary="Say your seat did not win on the pending claim's discard (没胡)")
async def pass_claim(body: PassIn, held: Phone, ctx: Ctx, request: Request) -> dict[str, Any]:
    session, seen = _answering(body.seat, held, ctx, request)
    command = PassClaim(audit(session), body.seat)
    return await ask_table(ctx, HandAct(command, body.hand_id, seen))


@router.post("/leave", status_code=204, summary="This phone leaves its seat")
async def leave(held: Phone, ctx: Ctx) -> Response:
    session, _ = held
    ctx.phones.release(session.seat, "leave")
    out = Response(status_code=204)
    out.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return out


@staff_router.post(
    "/{seat}/release",
    responses={401: {"model": Problem}, 403: {"model": Problem}, 404: {"model": Problem}},
    summary="Free a seat held by a phone (the player left, or lost the phone)",
)
def release(
    seat: SeatNo, account: Annotated[OwnerRecord, Depends(table_account)], ctx: Ctx
) -> JSONResponse:
    held = ctx.phones.release(seat, "release", f"{account.role}:{account.name}")
    if held is None:
        raise HTTPException(
            status.HTTP_404_NOT_FOUND, f"{seat_words(seat)}没有手机入座 (no phone on that seat)"
        )
    return JSONResponse({"seat": seat, "released": held.name, "by": account.name})


@staff_router.get(
    "/joins",
    responses={401: {"model": Problem}, 403: {"model": Problem}},
    summary="The phones' latest joins, leaves and releases at this table (who, when)",
)
def joins(
    account: Annotated[OwnerRecord, Depends(table_account)],
    ctx: Ctx,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> dict[str, Any]:
    records = ctx.phones.records
    return {"table": ctx.settings.table, "joins": [] if records is None else records.joins(limit)}
