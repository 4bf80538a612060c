"""Prometheus metrics of one table service, on a registry of its own (tests stay isolated).

The bridge keeps its own counters (``LinkCounters``, ``CodecStats``); rather than copying
them on a timer, ``watch_link``/``watch_reader`` read a snapshot at each scrape. Serve them
with ``serve_metrics`` now, or mount ``metrics.asgi_app()`` in the web app later.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import structlog
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    make_asgi_app,
    make_wsgi_app,
)
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

log = structlog.get_logger(__name__)

# From a few ms (broker on the Pi) to minutes (queued in the outbox while it was down).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800)

Snapshot = Callable[[], Any]  # returns a dataclass of int counters


class _BridgeCollector(Collector):
    """Every int field of each watched snapshot becomes ``mjtable_<kind>_<field>_total``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watched: dict[tuple[str, str], Snapshot] = {}

    def watch(self, kind: str, name: str, snapshot: Snapshot) -> None:
        with self._lock:
            self._watched[(kind, name)] = snapshot

    def collect(self) -> Iterable[Metric]:
        with self._lock:
            watched = list(self._watched.items())
        families: dict[str, CounterMetricFamily] = {}
        for (kind, name), snapshot in watched:
            try:
                values = snapshot()
            except Exception:  # a scrape must not fail because one source did
                log.warning("metrics snapshot failed", source=f"{kind}:{name}", exc_info=True)
                continue
            if not dataclasses.is_dataclass(values):
                continue
            for f in dataclasses.fields(values):
                value = getattr(values, f.name)
                if isinstance(value, bool) or not isinstance(value, int):
                    continue
                key = f"mjtable_{kind}_{f.name}"
                family = families.get(key)
                if family is None:
                    help_text = f"{kind} counter {f.name} (from the bridge)"
                    family = families[key] = CounterMetricFamily(key, help_text, labels=[kind])
                family.add_metric([name], value)
        return list(families.values())


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.events_appended = Counter(
            "mjtable_events_appended", "Hand events committed to the store", registry=r
        )
        self.alerts = Counter("mjtable_alerts", "Alerts raised, by kind", ["kind"], registry=r)
        self.outbox_depth = Gauge(
            "mjtable_outbox_depth", "MQTT messages stored, not yet acknowledged", registry=r
        )
        self.published = Counter(
            "mjtable_mqtt_published",
            "Messages the broker acknowledged, by topic",
            ["topic"],
            registry=r,
        )
        self.publish_latency = Histogram(
            "mjtable_event_publish_latency_seconds",
            "From enqueue in the outbox to the broker's acknowledgement",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.mqtt_connected = Gauge(
            "mjtable_mqtt_connected", "1 while connected to the broker", registry=r
        )
        self.mqtt_connects = Counter(
            "mjtable_mqtt_connects", "Successful connections to the broker", registry=r
        )
        self.mqtt_connect_failures = Counter(
            "mjtable_mqtt_connect_failures", "Failed attempts and lost connections", registry=r
        )
        self.loop_lag = Gauge(
            "mjtable_event_loop_lag_seconds",
            "How late the event loop ran the latest one-second probe (a busy or stuck loop)",
            registry=r,
        )
        self.voice = Counter(
            "mjtable_voice_announcements",
            "The voice's announcements, by fate: said, failed, or dropped unsaid (quiet, "
            "stale, superseded, full)",
            ["fate"],
            registry=r,
        )
        self._bridge = _BridgeCollector()
        r.register(self._bridge)

    def watch_link(self, name: str, counters: Snapshot) -> None:
        """Export a link's counters (e.g. ``link.counters``: frames, bad_crc, retransmits)."""
        self._bridge.watch("link", name, counters)

    def watch_reader(self, name: str, stats: Snapshot) -> None:
        """Export a reader codec's stats (``lambda: codec.stats``)."""
        self._bridge.watch("reader", name, stats)

    def wsgi_app(self) -> Callable[..., Iterable[bytes]]:
        app: Callable[..., Iterable[bytes]] = make_wsgi_app(self.registry)
        return app

    def asgi_app(self) -> Callable[..., Any]:
        """For mounting under ``/metrics`` in the FastAPI app."""
        app: Callable[..., Any] = make_asgi_app(self.registry)
        return app


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # one line per scrape would drown the service's log


class MetricsServer:
    """A small HTTP server for the metrics in a daemon thread; ``close()`` stops it."""

    def __init__(self, metrics: Metrics, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = make_server(
            host,
            port,
            metrics.wsgi_app(),
            server_class=_ThreadingServer,
            handler_class=_QuietHandler,
        )
        self.host = host
        self.port: int = self._server.server_port
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="metrics-http", daemon=True
        )
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> MetricsServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve_metrics(metrics: Metrics, host: str, port: int) -> MetricsServer:
    return MetricsServer(metrics, host, port)
