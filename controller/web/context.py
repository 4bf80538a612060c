"""What every route needs (store, live hub, settings, owners, token signer), on ``app.state``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi import Request

from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.web.limits import HashGate, LoginThrottle, StreamSlots
from controller.web.live import LiveHub
from controller.web.settings import WebAppSettings
from controller.web.tokens import TokenSigner


@dataclass
class WebContext:
    store: EventStore
    live: LiveHub
    settings: WebAppSettings
    owners: OwnerAccounts
    signer: TokenSigner
    throttle: LoginThrottle
    hashing: HashGate
    streams: StreamSlots
    # The hub's: a table's status ("online" / "offline") from its broker, None if unheard.
    table_status: Callable[[str], str | None] | None = None
    # The hub's: the mjtable version a table said it runs (controller.hub.house_sync).
    table_software: Callable[[str], str | None] | None = None
    keepalive: float = 15.0  # seconds between SSE comments that keep proxies from closing
    # The table's: hands an act of staff (``controller.table.staff_acts``) to the table loop and
    # answers what it did; None at the hub, or with no table loop.
    staff_desk: StaffDesk | None = None


# an act of staff (or a look at the hand) in, what the table loop made of it out
StaffDesk = Callable[[Any], Awaitable[dict[str, Any]]]


def context(request: Request) -> WebContext:
    ctx: WebContext = request.app.state.ctx
    return ctx


def own_table(ctx: WebContext) -> str | None:
    """The table this service is (hands outside any session are listed under it); the hub
    is none."""
    return None if ctx.settings.hub else ctx.settings.table
