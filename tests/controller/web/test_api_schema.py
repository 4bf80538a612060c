"""Schemathesis against the OpenAPI document, in-process over ASGI: whatever it sends, the
API answers 4xx, never 5xx, and its answers match the schema. Bounded to stay quick."""

from __future__ import annotations

from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings

from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from controller.web.tokens import TokenSigner
from tests.controller.web.helpers import fill_store

SECRET = b"s" * 32


def _make_app() -> tuple[object, str]:
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="mjtable-schema-"))
    store = EventStore.open(f"sqlite:///{folder / 'db.sqlite'}")
    fill_store(store, hands=2, seed=11)
    hashed = hash_password("schema password")
    OwnerAccounts(store).add("boss", hashed)
    hub = LiveHub()
    hub.publish("status", {"state": "online"})
    app = create_app(store, hub, WebAppSettings(table="t1", secret_key=SECRET))
    token, _ = TokenSigner(SECRET).issue("boss", hashed, 3600)
    return app, token


APP, TOKEN = _make_app()
schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", APP)
# The live stream never ends by design; its framing is tested in test_browser and test_live_hub.
schema = schema.exclude(path="/api/v1/public/live")
# A logout ends the login every other case uses (tested in test_api_auth).
schema = schema.exclude(path="/api/v1/auth/logout")
# A body over its route's limit is refused before it is read (limits.py): a rejection too.
schema.config.checks.negative_data_rejection.expected_statuses.append("413")


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_no_server_errors_and_answers_match_the_schema(case: schemathesis.Case) -> None:
    # Requests the schema cannot rule out but the API refuses on purpose (until before since)
    # get a 422; what matters is 4xx, not 5xx.
    # Every case is sent logged in: a negative case whose mutations take the login away is
    # sent with it anyway, so its being accepted is no fault of the API.
    excluded = [schemathesis.checks.positive_data_acceptance]
    if _login_mutated(case):
        excluded.append(schemathesis.checks.negative_data_rejection)
    case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"}, excluded_checks=excluded)


def _login_mutated(case: schemathesis.Case) -> bool:
    data = case.meta.phase.data if case.meta is not None else None
    mutations = getattr(data, "mutations", None) or ()
    named = [getattr(data, "parameter", None), *(getattr(m, "parameter", None) for m in mutations)]
    return any(isinstance(n, str) and n.lower() == "authorization" for n in named)
