"""The hub keeps, with each hand, the owners' house ruleset it was played under (the
handlog's ``house``, beside the values in its ``hand_started`` event), on PostgreSQL; the
owners' hand list and its export name it. A handlog whose ``house`` is not a name and a version is
refused, naming the field."""

from __future__ import annotations

import csv
import io

import pytest

from controller.hub.ingest import store_handlogs
from controller.store import EventStore
from controller.table.handlog import Handlog, HandlogError, build_handlog, parse_handlog
from tests.controller.hub.hands import played_hands, record_hand
from tests.controller.hub.owners import owners_api

HOUSE = {"name": "本店兴国", "version": 2}


def _sent(table: str, house: dict[str, object] | None) -> list[Handlog]:
    """Two hands of one session of ``table`` as it sends them, played under ``house``."""
    source = EventStore.open("sqlite://")
    try:
        sid = source.start_session(ruleset="xingguo", parlour="p1", table_id=table, house=house)
        out = []
        for i, events in enumerate(played_hands(2, seed=5)):
            hid = record_hand(source, events, session_id=sid, hand_no=i + 1, house=house)
            out.append(
                parse_handlog(build_handlog(source.load_hand(hid), parlour="p1", table=table))
            )
        return out
    finally:
        source.close()


def test_the_hub_keeps_and_shows_the_house_ruleset_each_hand_was_played_under(
    pg_url: str,
) -> None:
    house, own = _sent("t2", HOUSE), _sent("t1", None)
    assert all(log.house == HOUSE for log in house) and all(log.house is None for log in own)
    hub = EventStore.open(pg_url)
    try:
        stored = store_handlogs(hub.engine, [*house, *own]).stored
        assert len(stored) == 4
        for log in house:
            assert hub.load_hand(log.hand_id).hand.house == HOUSE
        assert hub.get_session(house[0].session_id or "").house == HOUSE
        assert all(hub.load_hand(log.hand_id).hand.house is None for log in own)
        with owners_api(hub) as api:
            listed = api.get("/api/v1/tables/t2/hands").json()
            assert [h["house"] for h in listed] == [HOUSE, HOUSE]
            assert [h["house"] for h in api.get("/api/v1/tables/t1/hands").json()] == [None] * 2
            detail = api.get(f"/api/v1/hands/{house[0].hand_id}").json()
            assert detail["hand"]["house"] == HOUSE
            exported = api.get("/api/v1/tables/t2/export.csv").text.lstrip("\ufeff")
            rows = list(csv.DictReader(io.StringIO(exported)))
            assert [(r["house"], r["house_version"]) for r in rows] == [("本店兴国", "2")] * 2
    finally:
        hub.close()


@pytest.mark.parametrize(
    "house",
    [
        {"name": "本店兴国"},
        {"name": "本店兴国", "version": 0},
        {"name": "", "version": 1},
        {"name": "x" * 65, "version": 1},
        {"name": "本店兴国", "version": True},
        "本店兴国",
    ],
)
def test_a_handlog_whose_house_is_not_a_name_and_a_version_is_refused(house: object) -> None:
    source = EventStore.open("sqlite://")
    try:
        hid = record_hand(source, played_hands(1, seed=5)[0])
        payload = build_handlog(source.load_hand(hid), parlour="p1", table="t1")
    finally:
        source.close()
    with pytest.raises(HandlogError, match=r"handlog\.house"):
        parse_handlog(payload | {"house": house})
