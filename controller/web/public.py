"""What anyone at the table may see, without a login: the table's name, the live state and
the live stream (Server-Sent Events). Everything here comes from the live hub, which only
carries public data."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from controller.process.software import software_version
from controller.web.context import WebContext, context
from controller.web.limits import TooManyStreams, client_address
from controller.web.live import RESYNC, TIMEOUT, TOPICS, LiveMessage
from controller.web.routes import ApiRoute
from controller.web.schemas import PublicTable

router = APIRouter(route_class=ApiRoute, prefix="/api/v1/public", tags=["public"])
Ctx = Annotated[WebContext, Depends(context)]


@router.get("/table", summary="Which table this is")
def table(ctx: Ctx) -> PublicTable:
    settings = ctx.settings
    return PublicTable(
        parlour=settings.parlour,
        table=settings.table,
        topics=list(TOPICS),
        brokers=list(settings.brokers),
        broker_port=settings.broker_port,
        hub=settings.hub,
        software=software_version(),
    )


@router.get("/state", summary="The current public state: the last value of each live topic")
def state(ctx: Ctx) -> dict[str, Any]:
    return ctx.live.snapshot()


async def _events(ctx: WebContext) -> AsyncIterator[str]:
    async with ctx.live.subscription() as sub:
        yield "retry: 2000\n\n"  # EventSource reconnects after 2 s
        for message in sub.snapshot:
            yield message.sse()
        yield "event: ready\ndata: {}\n\n"
        while True:
            item = await sub.get(ctx.keepalive)
            if item is TIMEOUT:
                yield ": keepalive\n\n"
            elif item is None:
                return  # the hub ends the stream (shutdown, or pages told to reconnect)
            elif item is RESYNC:  # the page fell behind: the current state instead
                for message in ctx.live.resync():
                    yield message.sse()
            elif isinstance(item, LiveMessage):
                yield item.sse()


class _HeldStream(StreamingResponse):
    """A stream that gives its slot back when it ends, however it ends."""

    def __init__(self, content: AsyncIterator[str], release: Callable[[], None]) -> None:
        super().__init__(
            content,
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()


@router.get(
    "/live",
    summary="Live stream (text/event-stream): one event per message, named by its topic",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "SSE stream"},
        429: {"description": "This client has as many streams open as it may"},
        503: {"description": "The server has as many streams open as it may"},
    },
)
async def live(ctx: Ctx, request: Request) -> StreamingResponse:
    """First the retained state (``replayed: true``), then ``ready``, then each message as
    it is published: ``event: <topic>``, ``data: {"payload", "at", "replayed"}``. A client
    may hold a few streams, the server a few hundred (each costs a file descriptor)."""
    client = client_address(request.client)
    try:
        ctx.streams.take(client)
    except TooManyStreams as err:
        raise HTTPException(err.status, err.reason, headers={"Retry-After": "10"}) from None
    return _HeldStream(_events(ctx), lambda: ctx.streams.give_back(client))
