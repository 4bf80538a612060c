"""Schemathesis against the staff routes of a table with a hand in progress: whatever a
staff login sends, the API answers 2xx or 4xx, never 5xx, and matches its schema. The desk
points every act at the hand in progress (as if the sender had just looked), so random
winners, tiles, melds and seats reach the engine's checks instead of stopping at 409."""

from __future__ import annotations

import dataclasses
import random
import tempfile
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings

from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.staff_acts import handle
from controller.table.staff_requests import HandAct
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from controller.web.tokens import TokenSigner
from tests.controller.service_helpers import play_at_keeper

SECRET = b"s" * 32


def _make_app() -> tuple[object, str]:
    folder = Path(tempfile.mkdtemp(prefix="mjtable-staff-schema-"))
    store = EventStore.open(f"sqlite:///{folder / 'db.sqlite'}")
    keeper = HandKeeper(
        store, Outlet(Topics("demo", "t1")), parlour="demo", table="t1", ruleset="xingguo"
    )
    keeper.resume()
    hashed = hash_password("schema password")
    OwnerAccounts(store).add("ann", hashed, "staff", ("t1",))

    async def desk(item: Any) -> dict[str, Any]:
        if not keeper.in_progress:  # a finish or a void ended it: the next hand
            play_at_keeper(keeper, random.Random(len(keeper.log)), 30)
        if isinstance(item, HandAct):
            item = dataclasses.replace(item, hand_id=keeper.hand_id or "", seen=len(keeper.log))
        return handle(keeper, item)

    app = create_app(
        store, LiveHub(), WebAppSettings(table="t1", secret_key=SECRET), staff_desk=desk
    )
    token, _ = TokenSigner(SECRET).issue("ann", hashed, 3600, role="staff")
    return app, token


APP, TOKEN = _make_app()
schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", APP).include(
    path_regex="^/api/v1/staff/"
)


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_staff_acts_never_answer_5xx(case: schemathesis.Case) -> None:
    case.call_and_validate(
        headers={"Authorization": f"Bearer {TOKEN}"},
        excluded_checks=[schemathesis.checks.positive_data_acceptance],
    )
