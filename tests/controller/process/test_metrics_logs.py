"""Metrics over HTTP (bridge counters read at scrape time) and structured log lines."""

from __future__ import annotations

import io
import json
import logging
import threading
import urllib.request

import structlog
import uvicorn

from controller.process.logs import bind_table, bound_hand, configure_logging
from controller.process.metrics import Metrics, MetricsServer
from firmware_bridge.protocol.link import LinkCounters
from firmware_bridge.rfid.codec import CodecStats


def test_metrics_served_over_http() -> None:
    metrics = Metrics()
    link = LinkCounters(frames_rx=10, retransmits=2, bad_crc=1)
    metrics.watch_link("board", lambda: link)
    metrics.watch_reader("hands", lambda: CodecStats(frames=5, bad_checksums=3))
    metrics.watch_reader("broken", lambda: 1 / 0)  # a failing source does not break scrapes
    metrics.events_appended.inc(3)
    metrics.alerts.labels("unknown_tag").inc()
    metrics.publish_latency.observe(0.02)
    link.bad_crc = 4  # read live at each scrape
    with MetricsServer(metrics, "127.0.0.1", 0) as server:
        url = f"http://127.0.0.1:{server.port}/metrics"
        with urllib.request.urlopen(url) as response:
            body = response.read().decode()
    assert 'mjtable_link_frames_rx_total{link="board"} 10.0' in body
    assert 'mjtable_link_bad_crc_total{link="board"} 4.0' in body
    assert 'mjtable_link_retransmits_total{link="board"} 2.0' in body
    assert 'mjtable_reader_bad_checksums_total{reader="hands"} 3.0' in body
    assert "mjtable_events_appended_total 3.0" in body
    assert 'mjtable_alerts_total{kind="unknown_tag"} 1.0' in body
    assert "mjtable_event_publish_latency_seconds_count 1.0" in body
    assert "mjtable_outbox_depth 0.0" in body


def test_json_log_lines_carry_context() -> None:
    stream = io.StringIO()
    configure_logging("info", "json", stream=stream)
    try:
        bind_table("demo", "t1")
        with bound_hand("h42"):
            structlog.get_logger("test").info("discard", seat=2, tile="东")
        logging.getLogger("aiomqtt").warning("from the standard library")
        structlog.get_logger("test").debug("hidden at info")
    finally:
        structlog.contextvars.clear_contextvars()
        configure_logging("warning", "console")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert len(lines) == 2
    first, second = lines
    assert first["event"] == "discard" and first["tile"] == "东" and first["seat"] == 2
    assert (first["hand_id"], first["table"], first["parlour"]) == ("h42", "t1", "demo")
    assert first["level"] == "info" and "timestamp" in first
    assert second["event"] == "from the standard library" and second["logger"] == "aiomqtt"
    assert "hand_id" not in second


class _Recorder(io.StringIO):
    """A stream that remembers which threads wrote to it."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[str] = set()

    def write(self, text: str) -> int:
        self.threads.add(threading.current_thread().name)
        return super().write(text)


def test_tracebacks_are_plain_and_rendered_off_the_callers_thread() -> None:
    """A 500 logged with its traceback must not stall the event loop:
    no locals rendered, and the rendering happens in the log writer's thread."""
    stream = _Recorder()
    configure_logging("info", "console", stream=stream)
    try:
        big_local = ["LOCAL-VALUE"] * 10_000  # noqa: F841 (what a locals-rendering would show)
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            structlog.get_logger("test").exception("request failed")
            logging.getLogger("uvicorn.error").exception("Exception in ASGI application")
    finally:
        configure_logging("warning", "console")  # flushes the writer
    text = stream.getvalue()
    assert text.count("RuntimeError: boom") == 2 and "LOCAL-VALUE" not in text
    assert threading.current_thread().name not in stream.threads


def test_uvicorns_lines_reach_the_writer_after_a_uvicorn_with_its_own_log_config() -> None:
    """Any uvicorn in the process started with uvicorn's default log config (which gives
    its loggers their own handlers and stops them propagating) must not take the web's
    lines past the log writer once logging is configured."""
    uvicorn.Config(lambda: None, log_level="warning")  # applies uvicorn's LOGGING_CONFIG
    test_tracebacks_are_plain_and_rendered_off_the_callers_thread()


def test_a_storm_of_accept_errors_is_logged_once_a_minute() -> None:
    stream = io.StringIO()
    configure_logging("info", "json", stream=stream)
    try:
        for _ in range(1000):
            logging.getLogger("asyncio").error("socket.accept() out of system resource")
    finally:
        configure_logging("warning", "console")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and "accept" in lines[0]
