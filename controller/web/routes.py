"""The API's route class: FastAPI's ``APIRoute``, built at its first request, with one schema
field per additional response's model (``responses={404: {"model": Problem}}``) shared by
every route.

A route is matched by its path and methods alone; the rest (its dependency tree, the
pydantic fields of its parameters, body and response, its handler) FastAPI builds when the
route is first asked for anything else: its first request, or the OpenAPI document. A table
whose owners never look holds none of the owners' routes: ~2 MB resident for the ~100
routes (docs/bench-log.md).

FastAPI builds a serialization field, a pydantic TypeAdapter with its own validator and
serializer, for each route and status that names a model: ~370 for ``Problem`` alone, used
only to write the OpenAPI document, ~1.2 MB resident on a table. Every router here is made
with ``route_class=ApiRoute``; the document is the same.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fastapi._compat import ModelField
from fastapi.routing import APIRoute
from fastapi.utils import create_model_field
from starlette.routing import compile_path, get_name


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
        # What matching needs, as APIRoute sets it; the rest waits in ``_unbuilt``.
        self.path = path
        self.endpoint = endpoint
        name = kwargs.get("name")
        self.name = get_name(endpoint) if name is None else name
        self.methods = {method.upper() for method in kwargs.get("methods") or ["GET"]}
        self.path_regex, self.path_format, self.param_convertors = compile_path(path)
        self._unbuilt: tuple[dict[int | str, dict[str, Any]], dict[str, Any]] | None = (
            responses or {},
            kwargs,
        )

    def _build(self) -> None:
        unbuilt, self._unbuilt = self._unbuilt, None
        assert unbuilt is not None
        declared, kwargs = unbuilt
        # FastAPI makes a field for each "model"; the route is built without them, then
        # given the shared ones (the document reads the model from ``response_fields``).
        bare = {code: {k: v for k, v in r.items() if k != "model"} for code, r in declared.items()}
        super().__init__(self.path, self.endpoint, responses=bare, **kwargs)
        self.responses = declared
        self.response_fields = {
            code: _response_field(r["model"]) for code, r in declared.items() if r.get("model")
        }

    def __getattr__(self, name: str) -> Any:
        """Any attribute matching does not set (``app``, ``dependant`` …): built now."""
        if name.startswith("__") or self.__dict__.get("_unbuilt") is None:
            raise AttributeError(name)
        self._build()
        return getattr(self, name)
