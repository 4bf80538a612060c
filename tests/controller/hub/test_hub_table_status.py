"""The hub reads each table's retained ``status``: online or offline, and the software it
runs (shown on the owners' list of tables), before any other answer from it; whatever
else a table's account puts there is ignored."""

from __future__ import annotations

from controller.hub.service import HubIngest
from controller.mqtt import Topics, encode
from controller.store import EventStore
from tests.controller.mqtt_helpers import settings


def test_the_hub_learns_a_tables_state_and_version_from_its_status(store: EventStore) -> None:
    hub = HubIngest(store, settings("mqtt://127.0.0.1:1883"), parlour="p1")
    said = {
        "t1": {"state": "online", "version": "0.1.0"},
        "t2": {"state": "offline", "version": "0.0.9"},
        "t3": {"state": "online", "version": "<b>" * 20},
        "t4": {"state": "online", "version": 7},
        "t5": {"state": "asleep", "version": "0.1.0"},
    }
    for table, status in said.items():
        hub._status(Topics("p1", table).status, encode(status).encode())
    hub._status(Topics("p1", "t6").status, b"{not json")
    assert hub.statuses == {"t1": "online", "t2": "offline", "t3": "online", "t4": "online"}
    assert hub.software == {"t1": "0.1.0", "t2": "0.0.9"}
