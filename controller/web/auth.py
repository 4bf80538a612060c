"""Owner login: ``POST /api/v1/auth/login`` gives a signed token, as an HttpOnly cookie for
the pages and in the body for scripts (``Authorization: Bearer``). Owner routes depend on
``current_owner``; nothing else is served without one except the public display data.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Response, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import Request

from controller.store.owners import OwnerRecord
from controller.web.context import WebContext, context
from controller.web.passwords import DUMMY_HASH, verify_password
from controller.web.schemas import LoginIn, LoginOut, OwnerOut, Problem
from controller.web.tokens import fingerprint

COOKIE = "mjtable_owner"
bearer = HTTPBearer(auto_error=False, description="The token from /api/v1/auth/login")

router = APIRouter(prefix="/api/v1/auth", tags=["auth"])

UNAUTHORISED = HTTPException(
    status.HTTP_401_UNAUTHORIZED,
    "log in first: POST /api/v1/auth/login, then send the cookie or 'Authorization: Bearer'",
    headers={"WWW-Authenticate": "Bearer"},
)


def current_owner(
    request: Request,
    ctx: Annotated[WebContext, Depends(context)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> OwnerRecord:
    token = credentials.credentials if credentials is not None else request.cookies.get(COOKIE)
    if not token:
        raise UNAUTHORISED
    claims = ctx.signer.verify(token)
    if claims is None:
        raise UNAUTHORISED
    owner = ctx.owners.get(claims.owner)
    # A changed password (or a removed owner) ends the logins made before.
    if owner is None or fingerprint(owner.password_hash) != claims.fingerprint:
        raise UNAUTHORISED
    return owner


Owner = Annotated[OwnerRecord, Depends(current_owner)]


@router.post(
    "/login",
    responses={400: {"model": Problem}, 401: {"model": Problem}, 429: {"model": Problem}},
    summary="Log in as an owner",
)
def login(
    body: LoginIn, response: Response, ctx: Annotated[WebContext, Depends(context)]
) -> LoginOut:
    wait = ctx.throttle.wait(body.name)
    if wait > 0:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            f"too many failed logins for {body.name!r}; try again in {int(wait) + 1} s",
            headers={"Retry-After": str(int(wait) + 1)},
        )
    owner = ctx.owners.get(body.name)
    # Check a hash even for an unknown name: the answer takes as long either way.
    ok = verify_password(body.password, owner.password_hash if owner else DUMMY_HASH)
    if owner is None or not ok:
        ctx.throttle.failed(body.name)
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "wrong name or password")
    ctx.throttle.succeeded(body.name)
    token, expires = ctx.signer.issue(owner.name, owner.password_hash, ctx.settings.login_ttl)
    response.set_cookie(
        COOKIE,
        token,
        max_age=int(ctx.settings.login_ttl),
        httponly=True,
        samesite="strict",
        secure=ctx.settings.cookie_secure,
        path="/",
    )
    return LoginOut(owner=owner.name, token=token, expires_at=datetime.fromtimestamp(expires, UTC))


@router.post("/logout", status_code=204, summary="Forget the login cookie")
def logout() -> Response:
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response


@router.get("/me", responses={401: {"model": Problem}}, summary="Who is logged in")
def me(owner: Owner) -> OwnerOut:
    return OwnerOut(name=owner.name)
