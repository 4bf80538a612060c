"""A table service wired for alerts only (its alert sink's store, outlet and gate are real),
on the tracker harness of test_tracker."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from controller.mqtt.topics import Topics
from controller.process.metrics import Metrics
from controller.store import EventStore
from controller.table.alert_sink import AlertSink
from controller.table.publication import LiveSink, Outlet
from controller.table.service import TableService
from controller.table.tags import TagBook
from firmware_bridge.registry import TagRegistry
from tests.controller.tracking.test_tracker import Table

HAND_ID = "h1"


def alert_table(
    store: EventStore,
    registry: TagRegistry,
    *,
    live: LiveSink | None = None,
    window: float = 10.0,
    metrics: Metrics | None = None,
    wall_seed: int = 1,
) -> tuple[Table, TableService]:
    """The tracker harness, its alerts going the service's way (gate, store, outbox, live)."""
    holder: dict[str, Any] = {}
    # a hand is in progress (the service's stuck-hand check asks)
    # (no session: the service's daily cut-off check has none to close)
    keeper = SimpleNamespace(
        store=store,
        hand_id=HAND_ID,
        in_progress=True,
        playing=True,
        parlour="demo",
        table="t1",
        session_id=None,
        state=None,
    )
    outlet = Outlet(Topics("demo", "t1"), live=live)
    sink = AlertSink(
        keeper,  # type: ignore[arg-type]  # its store, hand id, in_progress, playing, parlour, table
        outlet,
        window=window,
        metrics=metrics,
        clock=lambda: holder["table"].now,
    )
    table = Table(registry, wall_seed=wall_seed, sink=sink)
    holder["table"] = table
    service = TableService(
        keeper,  # type: ignore[arg-type]
        board=None,  # type: ignore[arg-type]
        book=TagBook(registry),
        outlet=outlet,
        tracker=table.tracker,
        alerts=sink,
        clock=lambda: table.now,
    )
    return table, service
