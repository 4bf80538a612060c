"""Every API route shares its additional responses' schema fields (controller.web.routes):
FastAPI would build one pydantic TypeAdapter per route and status, ~1.2 MB for a table."""

from __future__ import annotations

from unittest.mock import MagicMock

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from controller.web import LiveHub, create_app
from controller.web.app import serve_routes
from controller.web.routes import ApiRoute
from controller.web.schemas import LoginIn, OwnerOut, Problem


def test_every_route_shares_one_field_per_response_model() -> None:
    app = create_app(MagicMock(), LiveHub())
    routes = [r for r in app.routes if isinstance(r, APIRoute)]
    assert routes and all(isinstance(r, ApiRoute) for r in routes)
    fields = {
        id(field)
        for r in routes
        for code, field in r.response_fields.items()
        if r.responses[code].get("model") is Problem
    }
    assert len(fields) == 1
    # the document still names the model for each of them
    doc = app.openapi()
    login = doc["paths"]["/api/v1/auth/login"]["post"]["responses"]["401"]
    assert login["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Problem"
    }
    assert "Problem" in doc["components"]["schemas"]


def test_a_route_is_built_at_its_first_request_and_matched_before() -> None:
    """A route holds no dependencies, fields or handler until it is asked for: the owners'
    routes cost a table nothing while no owner looks (docs/bench-log.md)."""
    router = APIRouter(route_class=ApiRoute, prefix="/api", responses={404: {"model": Problem}})

    @router.get("/hands/{hand_id}")
    def hand(hand_id: str) -> OwnerOut:
        return OwnerOut(name=hand_id)

    @router.post("/hands")
    def add(body: LoginIn) -> LoginIn:
        return body

    app = FastAPI()
    serve_routes(app, router)
    routes = {r.path: r for r in app.routes if isinstance(r, ApiRoute)}
    assert not any("dependant" in vars(r) for r in routes.values())
    with TestClient(app) as client:
        assert client.get("/api/hands/h1").json()["name"] == "h1"
        assert client.delete("/api/hands/h1").status_code == 405  # matched, not built
        assert client.get("/api/hands").status_code == 405
    built = {path for path, r in routes.items() if "dependant" in vars(r)}
    assert built == {"/api/hands/{hand_id}"}
    doc = app.openapi()  # the document reads every route
    assert all("dependant" in vars(r) for r in routes.values())
    assert doc["paths"]["/api/hands"]["post"]["responses"]["404"]["content"]
