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
from controller.table.staff_notice import WAITING, StaffNotice
from controller.table.tags import TagBook
from firmware_bridge.registry import TagRegistry
from tests.controller.tracking.test_tracker import Table

HAND_ID = "h1"


class HoldingKeeper(SimpleNamespace):
    """A hand in progress (the stuck-hand check asks): held as ``HandKeeper.hold`` holds
    one (stored, said on status), taken back as the commit that ends it does."""

    notice: StaffNotice | None = None
    _in_progress = True

    @property
    def in_progress(self) -> bool:
        return self._in_progress

    @in_progress.setter
    def in_progress(self, value: bool) -> None:
        self._in_progress = value
        if not value and self.notice is not None:
            self.outlet.status(None)  # (the screens of the commit that ends the hand)

    @property
    def waiting(self) -> StaffNotice | None:
        n = self.notice
        return n if n is not None and self.in_progress and n.hand_id == self.hand_id else None

    def hold(self, why_zh: str, why_en: str) -> StaffNotice:
        self.notice = StaffNotice(self.hand_id, why_zh, why_en)
        self.store.record_alert(self.hand_id, WAITING, None, why_zh, why_en)
        self.outlet.status(self.notice.status())
        return self.notice


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
    outlet = Outlet(Topics("demo", "t1"), live=live)
    keeper = HoldingKeeper(
        store=store,
        outlet=outlet,
        hand_id=HAND_ID,
        in_progress=True,
        playing=True,
        parlour="demo",
        table="t1",
        session_id=None,
        state=None,
    )
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
