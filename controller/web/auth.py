"""Owner login: ``POST /api/v1/auth/login`` gives a signed token, as an HttpOnly cookie for
the pages and in the body for scripts (``Authorization: Bearer``). Owner routes depend on
``current_owner``; nothing else is served without one except the public display data.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Response, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import Request

from controller.store.owners import OwnerRecord
from controller.web.context import WebContext, context
from controller.web.limits import Busy, client_address
from controller.web.passwords import DUMMY_HASH, verify_password
from controller.web.routes import ApiRoute
from controller.web.schemas import LoginIn, LoginOut, OwnerOut, Problem
from controller.web.tokens import fingerprint
from controller.words import say

COOKIE = "mjtable_owner"
bearer = HTTPBearer(auto_error=False, description="The token from /api/v1/auth/login")

router = APIRouter(route_class=ApiRoute, prefix="/api/v1/auth", tags=["auth"])

UNAUTHORISED = HTTPException(
    status.HTTP_401_UNAUTHORIZED,
    say("auth.log_in"),
    headers={"WWW-Authenticate": "Bearer"},
)


def current_owner(
    request: Request,
    ctx: Annotated[WebContext, Depends(context)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> OwnerRecord:
    token = credentials.credentials if credentials is not None else request.cookies.get(COOKIE)
    account = _account(ctx, token)
    if account.role != "owner":
        raise HTTPException(status.HTTP_403_FORBIDDEN, say("auth.owners_only"))
    return account


def _account(ctx: WebContext, token: str | None) -> OwnerRecord:
    """The account a token names, owner or staff, while its login stands."""
    if not token:
        raise UNAUTHORISED
    claims = ctx.signer.verify(token)
    if claims is None:
        raise UNAUTHORISED
    account = ctx.owners.get(claims.owner)
    # A changed password, a logout (a newer generation), a removed account or a changed
    # role ends the logins made before.
    if (
        account is None
        or fingerprint(account.password_hash) != claims.fingerprint
        or account.token_generation != claims.generation
        or account.role != claims.role
    ):
        raise UNAUTHORISED
    return account


def current_account(
    request: Request,
    ctx: Annotated[WebContext, Depends(context)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> OwnerRecord:
    """Staff or an owner (the staff routes, ``/me``)."""
    token = credentials.credentials if credentials is not None else request.cookies.get(COOKIE)
    return _account(ctx, token)


Owner = Annotated[OwnerRecord, Depends(current_owner)]
Account = Annotated[OwnerRecord, Depends(current_account)]


def _secure(request: Request, ctx: WebContext) -> bool:
    """Secure cookies when configured, or when the request came over HTTPS (uvicorn's own
    TLS, or a proxy's X-Forwarded-Proto from an address in ``--forwarded-allow-ips``)."""
    return ctx.settings.cookie_secure or request.url.scheme == "https"


@router.post(
    "/login",
    responses={
        400: {"model": Problem},
        401: {"model": Problem},
        413: {"model": Problem},
        429: {"model": Problem},
        503: {"model": Problem},
    },
    summary="Log in as an owner or staff",
)
async def login(
    body: LoginIn,
    request: Request,
    response: Response,
    ctx: Annotated[WebContext, Depends(context)],
) -> LoginOut:
    # Counted before the check, atomically: concurrent guesses cannot slip past the limit.
    wait = ctx.throttle.begin(body.name, client_address(request.client))
    if wait > 0:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            say("auth.too_many_failures", name=body.name, wait=int(wait) + 1),
            headers={"Retry-After": str(int(wait) + 1)},
        )
    owner = await asyncio.to_thread(ctx.owners.get, body.name)
    # Check a hash even for an unknown name: the answer takes as long either way. Off the
    # event loop, a few at a time (each takes 16 MiB and a core for ~0.1 s).
    stored = owner.password_hash if owner else DUMMY_HASH
    try:
        ok = await ctx.hashing.run(lambda: verify_password(body.password, stored))
    except Busy:
        raise HTTPException(
            status.HTTP_503_SERVICE_UNAVAILABLE,
            say("auth.busy"),
            headers={"Retry-After": "2"},
        ) from None
    if owner is None or not ok:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, say("auth.wrong_password"))
    ctx.throttle.succeeded(body.name)
    staff = owner.role == "staff"
    ttl = ctx.settings.staff_login_ttl if staff else ctx.settings.login_ttl
    token, expires = ctx.signer.issue(
        owner.name, owner.password_hash, ttl, owner.token_generation, owner.role
    )
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(ttl),
        httponly=True,
        samesite="strict",
        secure=_secure(request, ctx),
        path="/",
    )
    return LoginOut(
        owner=owner.name,
        role=owner.role,
        tables=list(owner.tables),
        token=token,
        expires_at=datetime.fromtimestamp(expires, UTC),
    )


@router.post(
    "/logout",
    status_code=204,
    summary="Log out everywhere: every token of this owner stops working",
)
def logout(request: Request, ctx: Annotated[WebContext, Depends(context)]) -> Response:
    """Also answers 204 without a valid login (only the cookie is forgotten then)."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    credentials = (
        HTTPAuthorizationCredentials(scheme=scheme, credentials=token)
        if scheme.lower() == "bearer" and token
        else None
    )
    try:
        owner: OwnerRecord | None = current_account(request, ctx, credentials)
    except HTTPException:
        owner = None
    if owner is not None:
        ctx.owners.end_logins(owner.name)
    response = Response(status_code=204)
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="strict", secure=_secure(request, ctx)
    )
    return response


@router.get("/me", responses={401: {"model": Problem}}, summary="Who is logged in")
def me(account: Account) -> OwnerOut:
    return OwnerOut(name=account.name, role=account.role, tables=list(account.tables))
