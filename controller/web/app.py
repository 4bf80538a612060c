"""The web app: ``create_app(store, live, settings)`` gives the ASGI app the service serves.

    app = create_app(store, hub, WebAppSettings.from_config(config), metrics=metrics)
    uvicorn.Server(uvicorn.Config(app, host=config.web.host, port=config.web.port))

At shutdown call ``hub.close()`` first: it ends the pages' live streams, so the server need
not wait for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from controller.process.metrics import Metrics
from controller.store import EventStore, StoreInputError
from controller.store.owners import OwnerAccounts
from controller.store.phone_records import PhoneRecords
from controller.web import (
    auth,
    house_api,
    members_api,
    owner_api,
    pages,
    play_api,
    public,
    records_api,
    staff_api,
)
from controller.web.context import StaffDesk, WebContext, dealer_now
from controller.web.cross_site import CrossSiteGuard
from controller.web.limits import BodyLimit, HashGate, LoginThrottle, StreamSlots
from controller.web.live import LiveHub
from controller.web.phone_seats import PhoneSeats
from controller.web.settings import WebAppSettings
from controller.web.tokens import TokenSigner
from controller.words import Words, refusal
from controller.words.refusals import validation

API_DESCRIPTION = """\
The table's hand logs for owners (login required) and its public display data.

Public, no login: `/api/v1/public/*` (the live state and the live stream).
Everything else: log in with `POST /api/v1/auth/login`, then send the cookie it sets or
`Authorization: Bearer <token>`. Seats are absolute, 0-3. Tiles are written as kinds
(`5m`, `E`, `C`). A hand's concealed tiles are shown only once it is finished.
"""


def _validation_problem(request: Request, exc: Exception) -> JSONResponse:
    """pydantic's problems in words (controller.words), its own beside them for programs."""
    assert isinstance(exc, RequestValidationError)
    # Not the input itself: it may be bytes, or a password.
    errors = [{k: err[k] for k in ("type", "loc", "msg") if k in err} for err in exc.errors()]
    words = validation(exc.errors(), exc.body, dealer_now(request.app.state.ctx))
    return JSONResponse(words.body() | {"errors": errors}, status_code=422)


def _store_input_problem(_request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse(refusal(str(exc)).body(), status_code=422)


def _http_problem(_request: Request, exc: Exception) -> JSONResponse:
    """Every refusal in words: a ``Words`` detail as it is, any other through the catalogue."""
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail
    words = detail if isinstance(detail, Words) else refusal(str(detail))
    return JSONResponse(words.body(), status_code=exc.status_code, headers=exc.headers)


def _openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """FastAPI's document, with the 422 body as ``_validation_problem`` writes it."""

    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            schema.setdefault("components", {}).setdefault("schemas", {})["HTTPValidationError"] = {
                "title": "HTTPValidationError",
                "type": "object",
                "properties": {
                    "detail": {"type": "string", "description": "Each problem, in words"},
                    "en": {"type": "string", "description": "The same in English: 'field: why'"},
                    "errors": {"type": "array", "items": {"type": "object"}},
                },
                "required": ["detail"],
            }
            app.openapi_schema = schema
        return app.openapi_schema

    return build


def serve_routes(app: FastAPI, *routers: APIRouter) -> None:
    """The app serves each router's routes as the router built them at import (its prefix,
    tags, responses and dependencies already in each). ``include_router`` would have FastAPI
    build every route's dependency tree, validators and handler a second time, for the
    inclusion, at the first request that reaches the router: ~300 more validators and ~3 MB
    resident for a table (docs/bench-log.md)."""
    for router in routers:
        app.router.routes.extend(router.routes)


def create_app(
    store: EventStore,
    live: LiveHub,
    settings: WebAppSettings | None = None,
    *,
    metrics: Metrics | None = None,
    keepalive: float = 15.0,
    table_status: Callable[[str], str | None] | None = None,
    table_software: Callable[[str], str | None] | None = None,
    staff_desk: StaffDesk | None = None,
) -> FastAPI:
    settings = settings or WebAppSettings()
    app = FastAPI(
        title="mjtable",
        version="1",
        description=API_DESCRIPTION,
        openapi_url="/api/v1/openapi.json",
        # No Swagger UI: it loads its scripts from a CDN, which the CSP (rightly) blocks, so
        # the page was blank. The document itself is served; any OpenAPI viewer reads it.
        docs_url=None,
        redoc_url=None,
    )
    app.state.ctx = WebContext(
        store=store,
        live=live,
        settings=settings,
        owners=OwnerAccounts(store),
        signer=TokenSigner(settings.secret_key),
        throttle=LoginThrottle(
            settings.login_attempts,
            settings.login_window,
            per_client=settings.login_attempts_per_client,
        ),
        hashing=HashGate(settings.hash_slots),
        streams=StreamSlots(settings.live_streams, settings.live_streams_per_client),
        keepalive=keepalive,
        table_status=table_status,
        table_software=table_software,
        staff_desk=staff_desk,
    )
    if not settings.hub:  # a table's phones, kept in its store (docs/play.md)
        app.state.ctx.phones = PhoneSeats(records=PhoneRecords(store.engine, settings.table))
    app.add_exception_handler(RequestValidationError, _validation_problem)
    app.add_exception_handler(StoreInputError, _store_input_problem)
    app.add_exception_handler(StarletteHTTPException, _http_problem)
    serve_routes(
        app,
        public.router,
        auth.router,
        owner_api.router,
        house_api.router,
        staff_api.router,
        staff_api.owner_router,
        members_api.router,
        records_api.router,
        records_api.owner_router,
        records_api.mine,
        play_api.router,
        play_api.staff_router,
        pages.router,
    )
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    if metrics is not None:
        app.mount("/metrics", metrics.asgi_app())
    app.add_middleware(BodyLimit)
    app.add_middleware(CrossSiteGuard)  # outside BodyLimit: refused before a byte is read
    app.add_middleware(
        pages.SecurityHeaders, brokers=settings.brokers, broker_port=settings.broker_port
    )
    app.openapi = _openapi(app)  # type: ignore[method-assign]
    return app
