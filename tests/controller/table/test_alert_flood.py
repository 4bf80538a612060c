"""An alert storm: 56,440 unknown tags in 60 s must not make 56,440 alerts, a publisher
draining for 45 s after, or a negative ``mjtable_outbox_depth``.

A flood is summed up per kind and place (``AlertGate``), nothing is lost from the count,
and the outbox gauge is kept by the store, exact whoever writes the rows.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from controller.process.metrics import Metrics
from controller.store import EventStore, OutboxMessage
from controller.table.alerts import Alert, AlertGate, AlertKind, PublicAlert
from controller.tracking.problems import MAX_ONCE
from engine.round.state import Phase
from engine.tiles import KIND_LABELS
from firmware_bridge.rfid.inventory import TagIn
from firmware_bridge.rfid.zones import Zone, ZoneKind
from firmware_bridge.sim import TileSet
from tests.controller.alert_helpers import alert_table
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, make_publisher
from tests.controller.tracking.test_tracker import discards, hand

FLOOD = 20_000
SECONDS = 60.0
WINDOW = 10.0
ZONES = (Zone(ZoneKind.DISCARDS, 0), Zone(ZoneKind.DISCARDS, 1), Zone(ZoneKind.POOL))


def _gauge(metrics: Metrics) -> float:
    value = metrics.registry.get_sample_value("mjtable_outbox_depth")
    assert value is not None
    return value


def test_a_flood_of_unknown_tags_is_summed_up_and_play_goes_on(tmp_path: Path) -> None:
    store = EventStore.open(f"sqlite:///{tmp_path / 'mjtable.db'}")
    metrics = Metrics()
    t, service = alert_table(
        store, TileSet(0, KIND_LABELS).registry(), window=WINDOW, metrics=metrics
    )
    t.to_play()
    start = t.now
    for i in range(FLOOD):  # every tag a new one: once-per-tag does not stop them
        uid = b"\xe0\x99" + i.to_bytes(6, "big")
        t.now = start + SECONDS * i / FLOOD
        t.tracker.observe(TagIn(ZONES[i % len(ZONES)], uid, t.now), t.now)
        if i % 50 == 0:
            service.tick(t.now)  # the service ticks a few times a second
    t.now = start + SECONDS + WINDOW
    service.tick(t.now)  # the last windows end: their summaries go out

    outbox = store.outbox_peek(100_000)
    sent = [json.loads(e.payload) for e in outbox if e.topic.endswith("/alerts")]
    # The flat alert topics (docs/displays.md) move with each alert sent, no more.
    assert len(outbox) - len(sent) <= 3 * len(sent)
    assert all(m["kind"] == "unknown_tag" for m in sent)
    # At most the first one and one summary per window, per zone.
    assert len(sent) <= len(ZONES) * (2 + SECONDS / WINDOW)
    # Nothing is lost from the count: each summary says how many it stands for.
    assert sum(m.get("repeats", 1) for m in sent) == FLOOD
    assert (
        metrics.registry.get_sample_value("mjtable_alerts_total", {"kind": "unknown_tag"}) == FLOOD
    )
    assert len(store.alerts_of("h1")) == len(sent)  # the store is spared the flood too
    assert len(t.tracker.alerts._once) <= MAX_ONCE  # and the tracker's memory

    # The table goes on: the dealer's discard is taken as at any time.
    tile = t.state.hands[0][0]
    t.move(tile, hand(0), discards(0))
    assert t.state.phase is Phase.CLAIM and t.state.discards[0] == [tile]
    store.close()


def test_the_gate_sends_the_first_at_once_and_a_summary_per_window() -> None:
    out: list[Alert] = []
    gate = AlertGate(out.append, window=10.0)
    silent = Alert(PublicAlert(AlertKind.READER_SILENT, zones=(ZONES[0],), reader=3), "r3")
    other = Alert(PublicAlert(AlertKind.READER_SILENT, zones=(ZONES[1],), reader=4), "r4")
    gate.offer(silent, 0.0)
    gate.offer(other, 0.5)  # another place: its own window
    for k in range(7):
        gate.offer(silent, 1.0 + k)
    assert [a.detail for a in out] == ["r3", "r4"]
    gate.flush(9.9)
    assert len(out) == 2  # the window is not over
    gate.flush(10.0)
    assert out[-1].public.repeats == 7 and "（又出现7次）" in out[-1].public.message
    gate.flush(20.0)  # quiet since: nothing more, and the next one goes out at once
    gate.offer(silent, 21.0)
    assert len(out) == 4 and out[-1].public.repeats == 0


@given(
    st.lists(
        st.tuples(st.integers(0, 2), st.floats(0, 5, allow_nan=False), st.booleans()),
        max_size=200,
    )
)
def test_the_gate_loses_no_count_and_sends_a_bounded_number(
    steps: list[tuple[int, float, bool]],
) -> None:
    """Any run of alerts (three places, any gaps, flushes or not): every alert is sent or
    counted in a summary, and a place sends at most one message per window."""
    window = 10.0
    now = 0.0
    out: list[tuple[Alert, float]] = []
    gate = AlertGate(lambda a: out.append((a, now)), window=window)
    places = [Alert(PublicAlert(AlertKind.UNKNOWN_TAG, zones=(z,)), z.kind.value) for z in ZONES]
    for place, gap, flush in steps:
        now += gap
        gate.offer(places[place], now)
        if flush:
            gate.flush(now)
    for _ in range(2):  # the last windows end, and the ones they opened
        now += window
        gate.flush(now)
    assert sum(a.public.repeats or 1 for a, _ in out) == len(steps)
    for z in ZONES:
        times = [t for a, t in out if a.public.zones == (z,)]
        assert all(b - a >= window - 1e-9 for a, b in itertools.pairwise(times)), times


def test_the_outbox_gauge_counts_every_writer_and_never_goes_below_zero(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'mjtable.db'}"
    metrics = Metrics()
    store = EventStore.open(url, metrics=metrics)
    message = OutboxMessage(topic="mahjong/demo/t1/alerts", payload="{}", qos=1, retain=False)
    ids = store.enqueue([message] * 5)  # as the service stores an alert, not the publisher
    store.record_alert(None, "unknown_tag", None, "m", "d", outbox=[message])
    assert _gauge(metrics) == store.outbox_depth() == 6
    store.outbox_ack(ids[:3])
    store.outbox_ack(ids[:3])  # acknowledged twice (a resend): deleted once, counted once
    assert _gauge(metrics) == store.outbox_depth() == 3
    store.close()
    again = Metrics()
    reopened = EventStore.open(url, metrics=again)  # a restart: the rows left are counted
    assert _gauge(again) == 3
    reopened.close()


def test_the_gauge_stays_true_while_a_backlog_drains(tmp_path: Path, mosquitto: Mosquitto) -> None:
    async def main() -> None:
        metrics = Metrics()
        store = EventStore.open(f"sqlite:///{tmp_path / 'mjtable.db'}", metrics=metrics)
        publisher = make_publisher(store, mosquitto.url, metrics)
        seen: list[float] = []

        async def watch() -> None:
            while True:
                seen.append(_gauge(metrics))
                await asyncio.sleep(0)

        watcher = asyncio.create_task(watch())
        runner = asyncio.create_task(publisher.run())
        message = OutboxMessage(topic="mahjong/demo/t1/alerts", payload="{}", qos=1, retain=False)
        for _ in range(3):  # written by the store's callers, not through the publisher
            store.enqueue([message] * 400)
            publisher.wake()
            await asyncio.sleep(0.05)
        await guarded(publisher.wait_drained(), "the outbox to drain")
        publisher.stop()
        await guarded(runner, "the publisher to stop")
        watcher.cancel()
        assert min(seen) >= 0 and max(seen) > 0
        assert _gauge(metrics) == 0
        store.close()

    asyncio.run(main())
