"""The API's route class: FastAPI's ``APIRoute``, with one schema field per additional
response's model (``responses={404: {"model": Problem}}``) shared by every route.

FastAPI builds a serialization field, a pydantic TypeAdapter with its own validator and
serializer, for each route and status that names a model: ~370 for ``Problem`` alone, used
only to write the OpenAPI document, ~1.2 MB resident on a table (docs/bench-log.md). Every
router here is made with ``route_class=ApiRoute``; the document is the same.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi._compat import ModelField
from fastapi.routing import APIRoute
from fastapi.utils import create_model_field


@cache
def _response_field(model: type[Any]) -> ModelField:
    return create_model_field(name=f"Response_{model.__name__}", type_=model, mode="serialization")


class ApiRoute(APIRoute):
    def __init__(
        self,
        path: str,
        endpoint: Any,
        *,
        responses: dict[int | str, dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        declared = responses or {}
        # FastAPI makes a field for each "model"; the route is built without them, then
        # given the shared ones (the document reads the model from ``response_fields``).
        bare = {code: {k: v for k, v in r.items() if k != "model"} for code, r in declared.items()}
        super().__init__(path, endpoint, responses=bare, **kwargs)
        self.responses = declared
        self.response_fields = {
            code: _response_field(r["model"]) for code, r in declared.items() if r.get("model")
        }
