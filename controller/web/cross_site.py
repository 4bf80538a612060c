"""No state change from another site's page: a browser's POST, PUT, PATCH or DELETE that
another site sent (``Sec-Fetch-Site`` other than ``same-origin`` or ``none``; from a
browser too old to send it, an ``Origin`` that is not the request's own host and port) is
refused with 403 before a route reads it, so a login cookie never acts for a page it did
not come from (OWASP ASVS 4.0 V13.2.3).

The login cookie is SameSite=Strict already and the API reads JSON only; this holds even
where a browser would send the cookie anyway. A client that sends neither header (a
script with ``Authorization: Bearer``, curl) is not a browser on another site: served.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from controller.web.limits import problem

UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
REFUSED = "refused: sent from another site's page; only this site's own pages change anything"
DEFAULT_PORTS = {"http": 80, "https": 443}


def _host_port(netloc: str, scheme: str) -> tuple[str, int | None] | None:
    """(host, port) of ``host[:port]``, the scheme's port when none is written."""
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname, port if port is not None else DEFAULT_PORTS.get(scheme)


def same_origin(origin: str, host: str) -> bool:
    """Is ``origin`` (the Origin header) the site the request was sent to (its Host)?"""
    try:
        sent_from = urlsplit(origin)
    except ValueError:
        return False
    if sent_from.scheme not in DEFAULT_PORTS or sent_from.path or sent_from.query:
        return False  # "null" (a sandboxed frame, a file), or not an origin at all
    page = _host_port(sent_from.netloc, sent_from.scheme)
    return page is not None and page == _host_port(host, sent_from.scheme)


def cross_site(headers: dict[bytes, bytes]) -> bool:
    """Did another site's page send this? A browser's own word (``Sec-Fetch-Site``: it
    holds behind a proxy that rewrites Host) when it sends one, else its ``Origin``."""
    site = headers.get(b"sec-fetch-site")
    if site is not None:
        return site.decode("latin-1").lower() not in ("same-origin", "none")
    origin = headers.get(b"origin")
    if origin is None:
        return False
    return not same_origin(origin.decode("latin-1"), headers.get(b"host", b"").decode("latin-1"))


class CrossSiteGuard:
    """Refuses a state change another site's page sent with 403 (an ASGI wrapper)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in UNSAFE:
            headers = {k.lower(): v for k, v in scope.get("headers", ())}
            if cross_site(headers):
                await problem(send, 403, REFUSED)
                return
        await self.app(scope, receive, send)
