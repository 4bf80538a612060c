"""Every API route shares its additional responses' schema fields (controller.web.routes):
FastAPI would build one pydantic TypeAdapter per route and status, ~1.2 MB for a table."""

from __future__ import annotations

from unittest.mock import MagicMock

from fastapi.routing import APIRoute

from controller.web import LiveHub, create_app
from controller.web.routes import ApiRoute
from controller.web.schemas import Problem


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
