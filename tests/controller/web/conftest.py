from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from tests.controller.web.helpers import Filled, fill_store

OWNER, PASSWORD = "boss", "correct horse"
SECRET = b"k" * 32


@pytest.fixture
def filled(store: EventStore) -> Filled:
    """Three finished hands of xingguo and a fourth half-played, all at table t1."""
    filled = fill_store(store, hands=3)
    OwnerAccounts(store).add(OWNER, hash_password(PASSWORD))
    return filled


@pytest.fixture
def hub() -> LiveHub:
    return LiveHub()


@pytest.fixture
def app(store: EventStore, filled: Filled, hub: LiveHub) -> FastAPI:
    return create_app(store, hub, WebAppSettings(parlour="demo", table="t1", secret_key=SECRET))


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


@pytest.fixture
def token(client: TestClient) -> str:
    r = client.post("/api/v1/auth/login", json={"name": OWNER, "password": PASSWORD})
    assert r.status_code == 200, r.text
    client.cookies.clear()  # the tests choose how they authenticate
    return str(r.json()["token"])


@pytest.fixture
def authed(client: TestClient, token: str) -> TestClient:
    client.headers["Authorization"] = f"Bearer {token}"
    return client
