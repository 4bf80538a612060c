"""The fairness report through the owners' API: JSON, CSV and the charts, over a table's
finished hands only, for owners only."""

from __future__ import annotations

from fastapi.testclient import TestClient

from controller.store import EventStore
from controller.table.fairness import TESTS
from tests.controller.web.helpers import Filled, fill_store


def test_the_report_counts_every_roll_of_the_finished_hands(
    store: EventStore, filled: Filled, authed: TestClient
) -> None:
    fill_store(store, hands=40, seed=3, open_hand=False)  # enough hands to count
    r = authed.get("/api/v1/tables/t1/fairness")
    assert r.status_code == 200, r.text
    rep = r.json()
    finished = store.list_hands(status="finished", limit=1000)
    assert rep["hands"] == len(finished) == 43
    rolls = sum(
        1
        for h in finished
        for e in store.load_hand(h.id).event_dicts()
        if e["type"] == "dice_rolled"
    )
    assert rep["rolls"] == rolls and rep["dice"] == 2 * rolls
    assert sum(rep["faces"].values()) == 2 * rolls and sum(rep["sums"].values()) == rolls
    assert [t["name"] for t in rep["tests"]] == list(TESTS)
    assert rep["alpha_each"] == rep["alpha"] / len(TESTS)
    assert sum(rep["streaks"][k] * int(k) for k in rep["streaks"]) == rep["hands"]

    since = authed.get("/api/v1/tables/t1/fairness", params={"since": "2999-01-01"}).json()
    assert since["hands"] == 0 and not since["flagged"]

    csv = authed.get("/api/v1/tables/t1/fairness.csv")
    assert csv.status_code == 200 and csv.headers["content-type"].startswith("text/csv")
    assert csv.text.lstrip("\ufeff").startswith("table,section,key,count,expected,p,flagged")

    for chart in ("faces", "sums", "seats", "streaks"):
        svg = authed.get(f"/api/v1/tables/t1/fairness/{chart}.svg", params={"lang": "en"})
        assert svg.status_code == 200 and svg.text.startswith("<svg"), chart
    assert authed.get("/api/v1/tables/t1/fairness/wall.svg").status_code == 422


def test_the_report_needs_a_login(client: TestClient) -> None:
    assert client.get("/api/v1/tables/t1/fairness").status_code == 401
    assert client.get("/api/v1/tables/t1/fairness.csv").status_code == 401
