"""The web app: ``create_app(store, live, settings)`` gives the ASGI app the service serves.

    app = create_app(store, hub, WebAppSettings.from_config(config), metrics=metrics)
    uvicorn.Server(uvicorn.Config(app, host=config.web.host, port=config.web.port))

At shutdown call ``hub.close()`` first: it ends the pages' live streams, so the server need
not wait for them.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from controller.metrics import Metrics
from controller.store import EventStore, StoreInputError
from controller.store.owners import OwnerAccounts
from controller.web import auth, owner_api, pages, public
from controller.web.context import LoginThrottle, WebContext
from controller.web.live import LiveHub
from controller.web.settings import WebAppSettings
from controller.web.tokens import TokenSigner

API_DESCRIPTION = """\
The table's hand logs for owners (login required) and its public display data.

Public, no login: `/api/v1/public/*` (the live state and the live stream).
Everything else: log in with `POST /api/v1/auth/login`, then send the cookie it sets or
`Authorization: Bearer <token>`. Seats are absolute, 0-3. Tiles are written as kinds
(`5m`, `E`, `C`). A hand's concealed tiles are shown only once it is finished.
"""


def _validation_problem(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()) if p not in ("query", "path", "body"))
        problems.append(f"{where or 'request'}: {err.get('msg', 'invalid')}")
    return JSONResponse({"detail": "; ".join(problems), "errors": exc.errors()}, status_code=422)


def _store_input_problem(_request: Request, exc: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(exc)}, status_code=422)


def create_app(
    store: EventStore,
    live: LiveHub,
    settings: WebAppSettings | None = None,
    *,
    metrics: Metrics | None = None,
    keepalive: float = 15.0,
) -> FastAPI:
    settings = settings or WebAppSettings()
    app = FastAPI(
        title="mjtable",
        version="1",
        description=API_DESCRIPTION,
        openapi_url="/api/v1/openapi.json",
        docs_url="/api/v1/docs",
        redoc_url=None,
    )
    app.state.ctx = WebContext(
        store=store,
        live=live,
        settings=settings,
        owners=OwnerAccounts(store),
        signer=TokenSigner(settings.secret_key),
        throttle=LoginThrottle(settings.login_attempts, settings.login_window),
        keepalive=keepalive,
    )
    app.add_exception_handler(RequestValidationError, _validation_problem)
    app.add_exception_handler(StoreInputError, _store_input_problem)
    app.include_router(public.router)
    app.include_router(auth.router)
    app.include_router(owner_api.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    if metrics is not None:
        app.mount("/metrics", metrics.asgi_app())
    app.add_middleware(pages.SecurityHeaders)
    return app
