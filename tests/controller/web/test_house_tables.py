"""The hub's list of tables shows each table's house ruleset (assigned, applied, why not)
and the software it runs; a table behind the hub's version is marked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from controller.process.software import behind, software_version
from controller.store import EventStore
from controller.store.house_rules import HouseRules
from controller.store.owners import OwnerAccounts
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from tests.controller.web.conftest import OWNER, PASSWORD, SECRET


def test_a_version_is_behind_by_its_release_numbers() -> None:
    assert behind("0.9.3", "0.10.0") and behind("1.2", "1.2.1")
    assert not behind("1.2.1", "1.2.1") and not behind("2.0", "1.9")
    assert not behind(None, "1.0") and not behind("garbage", "1.0")


@pytest.fixture
def hub_client(store: EventStore) -> Iterator[TestClient]:
    for table in ("t1", "t2", "t3"):
        store.start_session(ruleset="xingguo", parlour="p1", table_id=table)
    OwnerAccounts(store).add(OWNER, hash_password(PASSWORD))
    software = {"t1": "0.0.1", "t2": software_version()}
    settings = WebAppSettings(parlour="p1", table="hub", hub=True, secret_key=SECRET)
    app = create_app(store, LiveHub(), settings, table_software=software.get)
    with TestClient(app) as client:
        r = client.post("/api/v1/auth/login", json={"name": OWNER, "password": PASSWORD})
        assert r.status_code == 200, r.text
        yield client


def test_the_hub_lists_each_tables_house_ruleset_and_software(
    hub_client: TestClient, store: EventStore
) -> None:
    rules = HouseRules(store)
    rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 10}, "boss")
    rules.assign("t2", "本店兴国", "boss")
    rules.report_applied("t2", None, "「德国奖分」不能是 -5；本桌继续用原来的规则")
    got = hub_client.get("/api/v1/house/tables").json()
    assert got["software"] == software_version()
    by = {t["table_id"]: t for t in got["tables"]}
    assert sorted(by) == ["t1", "t2", "t3"]
    assert by["t1"]["behind"] and by["t1"]["house"] is None
    assert by["t1"]["own_ruleset"] == "兴国冲关麻将"  # (its own settings' ruleset, by name)
    assert not by["t2"]["behind"] and by["t2"]["house"] == "本店兴国"
    assert by["t2"]["version"] == 1 and "德国奖分" in by["t2"]["problem"]
    assert by["t3"]["software"] is None and not by["t3"]["behind"]
    # the hub assigns to several tables at once
    several = hub_client.post(
        "/api/v1/house/assign", json={"name": "本店兴国", "tables": ["t1", "t3"]}
    )
    assert several.status_code == 200 and [a["table_id"] for a in several.json()] == ["t1", "t3"]
    unknown = hub_client.post("/api/v1/house/assign", json={"name": "本店兴国", "tables": ["t9"]})
    assert unknown.status_code == 422
