"""An act sent with an ``Idempotency-Key`` is done once: the same key again returns the
first answer and stores nothing, even after the table's service started again (the keys
are in the store); the same key on another act is refused; without a key the hand's
``seen`` check alone stands (a second send with a fresh ``seen`` is a second act)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from controller.mqtt.topics import Topics
from controller.store import EventStore, request_keys
from controller.store.owners import OwnerAccounts
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.staff_acts import handle
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from engine.round.events import STAFF_ACT_TYPES
from tests.controller.service_helpers import play_at_keeper
from tests.controller.web.helpers import bearer

SECRET = b"s" * 32
PASSWORD = "long enough password"
ADJUST = "/api/v1/staff/adjustments"


def _keeper(store: EventStore) -> HandKeeper:
    keeper = HandKeeper(
        store, Outlet(Topics("demo", "t1")), parlour="demo", table="t1", ruleset="xingguo"
    )
    keeper.resume()
    return keeper


def _client(store: EventStore, keeper: HandKeeper) -> TestClient:
    async def desk(item: Any) -> dict[str, Any]:
        return handle(keeper, item)

    app = create_app(
        store, LiveHub(), WebAppSettings(table="t1", secret_key=SECRET), staff_desk=desk
    )
    return TestClient(app)


@pytest.fixture
def keeper(store: EventStore) -> HandKeeper:
    keeper = _keeper(store)
    play_at_keeper(keeper, random.Random(5), 30)
    OwnerAccounts(store).add("ann", hash_password(PASSWORD), "staff", ("t1",))
    return keeper


@pytest.fixture
def client(store: EventStore, keeper: HandKeeper) -> Iterator[TestClient]:
    with _client(store, keeper) as c:
        yield c


def _acts(store: EventStore, hand_id: str) -> int:
    return sum(1 for e in store.load_hand(hand_id).event_dicts() if e["type"] in STAFF_ACT_TYPES)


def _adjustment(client: TestClient, auth: dict[str, str], points: int = 3) -> dict[str, Any]:
    view = client.get("/api/v1/staff/hands/current", headers=auth).json()
    return {
        "hand_id": view["hand_id"],
        "seen": view["seen"],
        "from_seat": 0,
        "to_seat": 2,
        "points": points,
        "reason": "count fixed",
    }


def test_the_same_key_again_gets_the_first_answer_and_stores_nothing(
    client: TestClient, store: EventStore, keeper: HandKeeper
) -> None:
    auth = bearer(client, "ann", PASSWORD)
    keyed = auth | {"Idempotency-Key": "tap-0123456789"}
    first = client.post(ADJUST, json=_adjustment(client, auth), headers=keyed)
    assert first.status_code == 200, first.text
    hand_id = first.json()["hand_id"]
    assert _acts(store, hand_id) == 1
    # a second tap 3 s later: the page fetched a fresh seen, the form kept its values
    again = client.post(ADJUST, json=_adjustment(client, auth), headers=keyed)
    assert again.status_code == 200, again.text
    assert again.json() == first.json()
    assert _acts(store, hand_id) == 1
    # the same key on another act: refused, nothing done
    other = client.post(ADJUST, json=_adjustment(client, auth, points=5), headers=keyed)
    assert other.status_code == 422 and "Idempotency-Key" in other.json()["en"]
    assert "提交编号已用于别的操作" in other.json()["detail"]
    assert _acts(store, hand_id) == 1
    # the service starts again (the keeper resumed from the store): the key holds
    with _client(store, _keeper(store)) as after:
        auth = bearer(after, "ann", PASSWORD)
        once_more = after.post(ADJUST, json=_adjustment(after, auth), headers=keyed)
        assert once_more.status_code == 200 and once_more.json() == first.json()
    assert _acts(store, hand_id) == 1


def test_an_act_is_never_stored_without_its_key(
    store: EventStore, keeper: HandKeeper, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The power goes as the key's answer is written: the act is not stored either (one
    transaction), so the retry with the same key after the restart does it once."""

    def power_cut() -> None:
        raise OSError("the power went")

    keyed = {"Idempotency-Key": "cut-0123456789"}
    with _client(store, keeper) as client:
        auth = bearer(client, "ann", PASSWORD)
        body = _adjustment(client, auth)
        monkeypatch.setattr(request_keys, "utcnow", power_cut)
        with TestClient(client.app, raise_server_exceptions=False) as cut:
            assert cut.post(ADJUST, json=body, headers=auth | keyed).status_code == 500
        monkeypatch.undo()
    assert _acts(store, body["hand_id"]) == 0
    with _client(store, _keeper(store)) as after:  # the service starts again
        auth = bearer(after, "ann", PASSWORD)
        again = after.post(ADJUST, json=_adjustment(after, auth), headers=auth | keyed)
        assert again.status_code == 200, again.text
        assert after.post(ADJUST, json=_adjustment(after, auth), headers=auth | keyed).json() == (
            again.json()
        )
    assert _acts(store, body["hand_id"]) == 1


def test_without_a_key_a_fresh_seen_is_a_second_act_and_a_stale_one_is_refused(
    client: TestClient, store: EventStore
) -> None:
    auth = bearer(client, "ann", PASSWORD)
    body = _adjustment(client, auth)
    first = client.post(ADJUST, json=body, headers=auth)
    assert first.status_code == 200, first.text
    assert client.post(ADJUST, json=body, headers=auth).status_code == 409  # (seen: stale)
    second = client.post(ADJUST, json=_adjustment(client, auth), headers=auth)
    assert second.status_code == 200
    assert _acts(store, first.json()["hand_id"]) == 2


@pytest.mark.parametrize("key", ["short", "x" * 65, "has space in it", "tab\tin-the-key"])
def test_a_key_is_8_to_64_printable_ascii_characters(client: TestClient, key: str) -> None:
    auth = bearer(client, "ann", PASSWORD)
    r = client.post(ADJUST, json=_adjustment(client, auth), headers=auth | {"Idempotency-Key": key})
    assert r.status_code == 422
