"""Where every alert goes: counted, gated, stored with its hand, published, beeped.

The sink is made before anything that raises alerts (the tracker, the service) and is
passed to them; they call it and know nothing of what happens next:

    tracker ─┐
    service ─┴─> AlertSink ─> metric ─> AlertGate ─> store (+ outbox) ─> live hub ─> beep

The gate (``controller.table.alerts.AlertGate``) lets the first alert of a kind at a place out
at once and sums a flood up; what it lets out is stored with the hand in progress and its
public form queued for MQTT in the same transaction, then shown live, then the panel's
buzzer beeps twice. An alert never takes the table down: a store that fails is logged.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Protocol

import structlog

from controller.process.metrics import Metrics
from controller.table.alerts import Alert, AlertGate
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet, alert_message
from controller.table.unit_of_work import UnitOfWork

log = structlog.get_logger(__name__)


class Beeper(Protocol):
    """The panel's buzzer (``firmware_bridge.gpio.TablePanel``)."""

    def beep(self, on_time: float = 0.1, off_time: float = 0.1, n: int = 1) -> None: ...


class AlertSink:
    """Call it with an alert; ``flush`` (on the service's tick) sends the floods' summaries."""

    def __init__(
        self,
        keeper: HandKeeper,
        outlet: Outlet,
        *,
        window: float = 10.0,
        metrics: Metrics | None = None,
        beeper: Beeper | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``window``: alerts of one kind at one place within this many seconds of the first
        go out as one summary with a count."""
        self.keeper = keeper
        self.outlet = outlet
        self.work = UnitOfWork(outlet)
        self.metrics = metrics
        self.beeper = beeper
        self.clock = clock
        self._gate = AlertGate(self._send, window)

    def __call__(self, alert: Alert) -> None:
        """Every alert is counted; the gate decides which go out."""
        if self.metrics is not None:
            self.metrics.alerts.labels(alert.kind.value).inc()
        self._gate.offer(alert, self.clock())

    def flush(self, now: float) -> None:
        """The summaries of the floods whose window ended."""
        self._gate.flush(now)

    def _send(self, alert: Alert) -> None:
        hand_id = self.keeper.hand_id
        public = alert.public
        log.warning("alert", kind=public.kind.value, seat=public.seat, detail=alert.detail)
        message = alert_message(public, hand_id)
        try:
            self.work.commit(
                lambda outbox: self.keeper.store.record_alert(
                    hand_id,
                    public.kind.value,
                    public.seat,
                    public.message,
                    alert.detail,
                    outbox=outbox,
                ),
                [message],
            )
        except Exception:  # an alert must not take the table down
            log.exception("could not store an alert", kind=public.kind.value)
            self.outlet.unstored([message])  # a full disk must still be said
        if self.beeper is not None:
            with contextlib.suppress(Exception):
                self.beeper.beep(n=2)
