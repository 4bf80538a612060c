"""The HTML pages and their static files (written by hand, no build step, nothing from a CDN).

``/`` and ``/display``: the table display; ``/dealer``: the dealer's view; ``/owner``: the
owners' app (it logs in through the API). The pages are public; owner data comes only
through the API, which checks the login.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

STATIC = Path(__file__).with_name("static")
router = APIRouter(include_in_schema=False)

# Only this origin: a page here never loads a script, font or image from the internet.
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)


def _page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html; charset=utf-8")


@router.get("/")
@router.get("/display")
def display() -> FileResponse:
    return _page("display.html")


@router.get("/dealer")
def dealer() -> FileResponse:
    return _page("dealer.html")


@router.get("/owner")
def owner() -> FileResponse:
    return _page("owner.html")


class SecurityHeaders:
    """Adds CSP and friends to every response (a plain ASGI wrapper: streams stay streams)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                for key, value in (
                    (b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                ):
                    if key not in names:
                        headers.append((key, value))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)
