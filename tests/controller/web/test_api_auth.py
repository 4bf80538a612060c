"""Owner routes need a login; the public display data does not; passwords and tokens."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from controller.store import EventStore
from controller.store.members import Members
from controller.store.owners import OwnerAccounts
from controller.web.auth import COOKIE
from controller.web.passwords import hash_password, verify_password
from controller.web.tokens import TokenSigner
from tests.controller.web.conftest import OWNER, PASSWORD
from tests.controller.web.helpers import Filled

# The public pages, the login, and a member's own record, whose random token is its key.
# (the players' phones act by their seat's token, not a login: tests/controller/play)
NO_LOGIN = ("/api/v1/public", "/api/v1/auth/login", "/api/v1/my-record", "/api/v1/play")
PUBLIC = ("/api/v1/public/table", "/api/v1/public/state", "/", "/display", "/dealer", "/owner")


@pytest.fixture
def member_id(store: EventStore) -> str:
    return Members(store.engine, table_id="t1").add("王五").member_id


def _owner_paths(app: FastAPI, filled: Filled, member_id: str) -> list[str]:
    values = {
        "table_id": "t1",
        "hand_id": filled.finished[0],
        "session_id": filled.session_id,
        "chart": "seats",
        "member_id": member_id,
        "base": "xingguo",  # a built-in ruleset an owner's house rules start from
        "name": "本店兴国",  # a house ruleset
    }
    paths = []
    for path, item in app.openapi()["paths"].items():
        if "get" in item and not path.startswith(NO_LOGIN):
            paths.append(path.format(**values))
    return paths


def test_every_owner_route_needs_a_login(
    client: TestClient, app: FastAPI, filled: Filled, member_id: str
) -> None:
    paths = _owner_paths(app, filled, member_id)
    assert len(paths) >= 14
    for path in paths:
        r = client.get(path)
        assert r.status_code == 401, path
        assert r.headers["www-authenticate"] == "Bearer"
        r = client.get(path, headers={"Authorization": "Bearer forged.token"})
        assert r.status_code == 401, path


def test_public_data_needs_no_login(client: TestClient) -> None:
    for path in PUBLIC:
        assert client.get(path).status_code == 200, path
    assert client.get("/api/v1/public/table").json()["table"] == "t1"


def test_login_by_cookie_and_by_bearer(
    client: TestClient, app: FastAPI, filled: Filled, member_id: str
) -> None:
    r = client.post("/api/v1/auth/login", json={"name": OWNER, "password": PASSWORD})
    assert r.status_code == 200
    cookie = r.headers["set-cookie"]
    assert f"{COOKIE}=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    # (the staff's live hand needs a table loop, which this app has not: docs/staff.md)
    live = "/api/v1/staff/hands/"
    on = client.put("/api/v1/owner/leaderboards", json={"enabled": True})
    assert on.status_code < 300, on.text  # (off, the leaderboards answer 403 to owners too)
    house = {"base": "xingguo", "options": {}, "expected_version": 0}
    saved = client.put("/api/v1/house/saves/本店兴国", json=house)  # (its route reads one)
    assert saved.status_code == 200, saved.text
    for path in [
        p for p in _owner_paths(app, filled, member_id) if not p.startswith(live)
    ]:  # the cookie
        assert client.get(path).status_code == 200, path
    assert client.get("/api/v1/auth/me").json() == {"name": OWNER, "role": "owner", "tables": []}
    token = r.json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/v1/tables", headers=bearer).status_code == 200
    assert client.post("/api/v1/auth/logout").status_code == 204
    client.cookies.clear()
    assert client.get("/api/v1/auth/me").status_code == 401
    # A logout ends every login of that owner, the copied token too.
    assert client.get("/api/v1/tables", headers=bearer).status_code == 401


def test_wrong_password_unknown_name_and_throttle(client: TestClient) -> None:
    bad = {"name": OWNER, "password": "wrong password"}
    r = client.post("/api/v1/auth/login", json=bad)
    assert r.status_code == 401
    assert r.json() == {"detail": "名字或密码不对", "en": "wrong name or password"}
    assert (
        client.post("/api/v1/auth/login", json={"name": "nobody", "password": "x"}).status_code
        == 401
    )
    for _ in range(4):
        client.post("/api/v1/auth/login", json=bad)
    r = client.post("/api/v1/auth/login", json={"name": OWNER, "password": PASSWORD})
    assert r.status_code == 429 and "Retry-After" in r.headers
    assert client.post("/api/v1/auth/login", json={"name": OWNER}).status_code == 422


def test_a_new_password_ends_old_logins(client: TestClient, store: EventStore, token: str) -> None:
    bearer = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/v1/tables", headers=bearer).status_code == 200
    OwnerAccounts(store).set_password(OWNER, hash_password("another password"))
    assert client.get("/api/v1/tables", headers=bearer).status_code == 401


def test_expired_and_tampered_tokens() -> None:
    now = [1000.0]
    signer = TokenSigner(b"s" * 32, clock=lambda: now[0])
    token, _ = signer.issue("boss", "hash", ttl=60)
    assert signer.verify(token) is not None
    body, sig = token.split(".")
    assert signer.verify(body + "x." + sig) is None
    assert TokenSigner(b"t" * 32).verify(token) is None
    now[0] += 61
    assert signer.verify(token) is None


def test_password_hashes() -> None:
    stored = hash_password("a long password")
    assert stored.startswith("scrypt$") and "a long password" not in stored
    assert verify_password("a long password", stored)
    assert not verify_password("a long passwork", stored)
    assert not verify_password("x", "garbage")
    with pytest.raises(ValueError):
        hash_password("short")
