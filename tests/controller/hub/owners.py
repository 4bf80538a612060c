"""The hub's owners' web app in a test, logged in: for the hub tests that read what the
owners see."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fastapi.testclient import TestClient

from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password


@contextmanager
def owners_api(hub: EventStore) -> Iterator[TestClient]:
    """The hub's web app (as ``mjtable hub`` serves it), logged in as an owner."""
    OwnerAccounts(hub).add("boss", hash_password("correct horse"))
    app = create_app(
        hub, LiveHub(), WebAppSettings(parlour="p1", table="hub", secret_key=b"k" * 32)
    )
    with TestClient(app) as client:
        r = client.post("/api/v1/auth/login", json={"name": "boss", "password": "correct horse"})
        client.headers["Authorization"] = f"Bearer {r.json()['token']}"
        yield client


def dice_flags(client: TestClient, table: str) -> dict[int, tuple[str | None, str | None]]:
    """The owners' hand list of ``table``: each hand's dice verdict and problem, by number."""
    listed = client.get(f"/api/v1/tables/{table}/hands").json()
    return {h["hand_no"]: (h["dice_check"], h["dice_problem"]) for h in listed}
