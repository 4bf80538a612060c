"""What every route needs (store, live hub, settings, owners, token signer), on ``app.state``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request

from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.web.limits import HashGate, LoginThrottle, Rate, StreamSlots
from controller.web.live import LiveHub
from controller.web.phone_seats import PhoneSeats
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
    # The players' phones: the join code and who holds each seat (docs/play.md), and the
    # joins let through per client address and in all.
    phones: PhoneSeats = field(default_factory=PhoneSeats)
    join_rate: Rate = field(default_factory=lambda: Rate(10, 60.0))
    join_rate_all: Rate = field(default_factory=lambda: Rate(120, 60.0))
    claim_rate: Rate = field(default_factory=lambda: Rate(30, 60.0))  # claims and answers


# an act of staff (or a look at the hand) in, what the table loop made of it out
StaffDesk = Callable[[Any], Awaitable[dict[str, Any]]]


def context(request: Request) -> WebContext:
    ctx: WebContext = request.app.state.ctx
    return ctx


def dealer_now(ctx: WebContext) -> int | None:
    """The dealer of the hand the table shows (its retained ``hand`` topic), so that a
    message names a seat with its wind as the console does; None where none is known."""
    hand = ctx.live.last("hand")
    dealer = hand.get("dealer") if isinstance(hand, dict) else None
    return dealer if type(dealer) is int and 0 <= dealer <= 3 else None


def own_table(ctx: WebContext) -> str | None:
    """The table this service is (hands outside any session are listed under it); the hub
    is none."""
    return None if ctx.settings.hub else ctx.settings.table
