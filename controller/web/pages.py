"""The HTML pages and their static files (written by hand, no build step, nothing from a CDN).

``/`` and ``/display``: the table display (from the web app's live stream, or with
``?broker=`` straight from the parlour's broker); ``/dealer``: the dealer's view;
``/floor``: every table of the parlour live, from the broker (docs/displays.md);
``/owner``: the owners' app (it logs in through the API); ``/m/<token>``: a member's own
record, through their personal link; ``/t/<table>``: a player's phone (docs/play.md);
``/cashout``: a session's printable cash-out (staff and owners, through the API). The
pages are public; owner data comes only through the API, which checks the login.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.table.alerts import ADVICE
from controller.web.routes import ApiRoute

STATIC = Path(__file__).with_name("static")
router = APIRouter(route_class=ApiRoute, include_in_schema=False)

# Only this origin: a page here never loads a script, font, style or image from the internet,
# and no style in the page itself (a hostile field can never lay a box over the screen). The
# display and the floor may open a WebSocket to the parlour's broker: on the page's own host
# at the broker's port (mqtt.ws_port), or one the config names (web.brokers); the account in
# the link goes nowhere else (another port of the same host is another program's).
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; "
    "connect-src 'self'{brokers}; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
_HOST = re.compile(rb"([A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(:[0-9]{1,5})?")


def csp(host: bytes | None, brokers: Iterable[str] = (), broker_port: int | None = None) -> str:
    """The CSP for a page asked for at ``host`` (the request's Host header)."""
    allowed = list(brokers)
    found = _HOST.fullmatch(host or b"")
    if found and broker_port is not None:
        name = found.group(1).decode()
        allowed = [f"ws://{name}:{broker_port}", f"wss://{name}:{broker_port}", *allowed]
    return CSP.format(brokers="".join(f" {origin}" for origin in allowed))


def _page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html; charset=utf-8")


@router.get("/")
@router.get("/display")
def display() -> FileResponse:
    return _page("display.html")


@router.get("/dealer")
def dealer() -> FileResponse:
    return _page("dealer.html")


@router.get("/floor")
def floor() -> FileResponse:
    return _page("floor.html")


@router.get("/floor/alerts.json")
def alert_titles() -> dict[str, dict[str, str]]:
    """What the floor calls each alert kind (controller.table.alerts)."""
    return {kind: {"zh": zh, "en": en} for kind, (zh, en, _, _) in ADVICE.items()}


@router.get("/cashout")
def cashout_sheet() -> FileResponse:
    return _page("cashout.html")


@router.get("/owner")
def owner() -> FileResponse:
    return _page("owner.html")


@router.get("/t/{table}")
def play(table: str) -> FileResponse:
    """A player's phone at ``table``: join a seat (the join code in the link), then play it
    (docs/play.md); the page reads everything through ``/api/v1/play``."""
    return _page("play.html")


@router.get("/m/{token}")
def member(token: str) -> FileResponse:
    """A member's own record: the page reads it through the API with the token in its URL."""
    return _page("member.html")


class SecurityHeaders:
    """Adds CSP and friends to every response (a plain ASGI wrapper: streams stay streams)."""

    def __init__(
        self, app: ASGIApp, brokers: Iterable[str] = (), broker_port: int | None = None
    ) -> None:
        self.app = app
        self.brokers = tuple(brokers)
        self.broker_port = broker_port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v for k, v in scope.get("headers", ()) if k == b"host"), None)
        policy = csp(host, self.brokers, self.broker_port).encode()

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                for key, value in (
                    (b"content-security-policy", policy),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                ):
                    if key not in names:
                        headers.append((key, value))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)
