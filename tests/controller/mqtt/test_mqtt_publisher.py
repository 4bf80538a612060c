"""The outbox publisher against a real Mosquitto: retained state, ordering, outages, will."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import aiomqtt
import pytest
from sqlalchemy import create_engine, text

from controller.process.metrics import Metrics
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import (
    OFFLINE,
    ONLINE,
    TOPICS,
    collect,
    guarded,
    make_publisher,
    payload,
    retained_state,
    until,
)
from tests.controller.mqtt_proxy import MqttProxy

ROOT = Path(__file__).resolve().parents[3]


def test_retained_state_and_events_through_the_outbox(
    mosquitto: Mosquitto, store: EventStore
) -> None:
    async def main() -> None:
        metrics = Metrics()
        publisher = make_publisher(store, mosquitto.url, metrics)
        runner = asyncio.create_task(publisher.run())
        live_ready = asyncio.Event()
        live = asyncio.create_task(
            collect(
                mosquitto.port,
                TOPICS.prefix + "events",
                lambda ms: len(ms) == 3,
                subscribed=live_ready,
            )
        )
        await guarded(live_ready.wait(), "the live subscriber")
        publisher.publish("jing", {"zheng_jing": "5m", "fu_jing": "6m", "name": "五万"})
        publisher.publish("scores", {"scores": [0, 0, 0, 0]})
        for seq in range(3):
            publisher.publish_messages(
                [publisher.event_message("h1", seq, {"type": "discard", "tile": "东"})]
            )
        publisher.publish("scores", {"scores": [12, -4, -4, -4]})  # absolute, replaces
        await guarded(publisher.wait_drained(), "the outbox to drain")
        events = await guarded(live, "three events")
        assert [payload(m)["seq"] for m in events] == [0, 1, 2]
        assert all(not m.retain and m.qos == 1 for m in events)
        assert "东".encode() in events[0].payload  # type: ignore[operator]  # UTF-8, not \\u

        state = await guarded(retained_state(mosquitto.port), "retained state")
        assert state == {
            "status": ONLINE,
            "jing": {"zheng_jing": "5m", "fu_jing": "6m", "name": "五万"},
            "scores": {"scores": [12, -4, -4, -4]},
        }  # no events: a late display gets state, not history
        assert metrics.registry.get_sample_value("mjtable_event_publish_latency_seconds_count") == 6
        assert metrics.registry.get_sample_value("mjtable_mqtt_connected") == 1

        publisher.stop()
        await guarded(runner, "the publisher to stop")
        state = await guarded(retained_state(mosquitto.port), "retained state")
        assert state["status"] == OFFLINE  # a clean stop says so itself

    asyncio.run(main())


async def register_display(port: int) -> None:
    """A display with a persistent session: the broker queues its QoS 1 messages."""
    async with aiomqtt.Client(
        "127.0.0.1", port, identifier="display", clean_session=False
    ) as client:
        await client.subscribe(TOPICS.prefix + "events", qos=1)


async def saved_display_and_proxy(broker: Mosquitto) -> MqttProxy:
    """The display's session saved to disk (it outlives a SIGKILL), and a proxy to the
    broker for the publisher (MqttProxy: PUBACKs held back at will)."""
    await register_display(broker.port)
    broker.stop()
    broker.start()
    proxy = MqttProxy(broker.port)
    await proxy.start()
    return proxy


def display_messages(port: int, done: Callable[[list[aiomqtt.Message]], bool]) -> object:
    return collect(port, None, done, identifier="display", clean_session=False)


def outbox_rows(url: str) -> list[str]:
    """Read the outbox with a separate connection: what is on disk, in order."""
    engine = create_engine(url)
    with engine.connect() as c:
        rows = [r[0] for r in c.execute(text("SELECT payload FROM outbox ORDER BY id"))]
    engine.dispose()
    return rows


def test_broker_down_messages_wait_in_the_outbox(
    mosquitto_factory: Callable[..., Mosquitto], store: EventStore, store_url: str
) -> None:
    broker = mosquitto_factory(persistence=True)

    async def main() -> None:
        await register_display(broker.port)
        broker.stop()  # a clean stop saves the display's session

        metrics = Metrics()
        publisher = make_publisher(store, broker.url, metrics)
        runner = asyncio.create_task(publisher.run())
        for seq in range(30):
            publisher.publish_messages([publisher.event_message("h1", seq, {"type": "draw"})])
        await until(
            lambda: (
                (metrics.registry.get_sample_value("mjtable_mqtt_connect_failures_total") or 0) >= 2
            ),
            "the publisher to fail connecting",
        )
        queued = outbox_rows(store_url)
        assert [int(p.split('"seq":')[1].split(",")[0]) for p in queued] == list(range(30))

        broker.start()
        received = await guarded(
            display_messages(broker.port, lambda ms: len(ms) >= 30), "30 events"
        )
        assert [payload(m)["seq"] for m in received] == list(range(30))  # in order
        assert [m.payload.decode() for m in received] == queued  # type: ignore[union-attr]
        await guarded(publisher.wait_drained(), "the outbox to drain")
        assert outbox_rows(store_url) == []
        publisher.stop()
        await guarded(runner, "the publisher to stop")

    asyncio.run(main())


def test_broker_killed_mid_stream_reconnects_and_drains(
    mosquitto_factory: Callable[..., Mosquitto], store: EventStore, store_url: str
) -> None:
    """The broker is SIGKILLed while the publisher streams, with PUBACKs outstanding. The
    publisher talks through a proxy that, just before the kill, holds the broker's PUBACKs
    back and waits until the display has what the broker had acknowledged: a broker killed
    without saving loses what it acknowledged but had not yet passed on (its queue for a
    slower display), which no publisher can bring back. Everything else arrives, in order,
    duplicates only of what was unacknowledged at the kill."""
    broker = mosquitto_factory(persistence=True)
    total = 120

    async def main() -> None:
        proxy = await saved_display_and_proxy(broker)
        seen: list[int] = []

        def record(ms: list[aiomqtt.Message]) -> bool:
            seen.append(payload(ms[-1])["seq"])
            return set(seen) == set(range(total))

        display = asyncio.create_task(display_messages(broker.port, record))
        metrics = Metrics()
        publisher = make_publisher(store, proxy.url, metrics)
        runner = asyncio.create_task(publisher.run())

        async def produce() -> None:
            for seq in range(total):
                publisher.publish_messages([publisher.event_message("h1", seq, {"type": "d"})])
                await asyncio.sleep(0)

        producer = asyncio.create_task(produce())
        await until(lambda: len(seen) >= 20, "the first events")
        proxy.hold_acks_after(0)
        passed = proxy.published.count(TOPICS.prefix + "events")  # all it may have acked
        await until(lambda: len(seen) >= passed, "the display to have those")
        broker.kill()  # SIGKILL mid-stream
        done, _ = await asyncio.wait([display], timeout=5)  # the display sees it drop
        if not done:
            display.cancel()
        await asyncio.gather(display, return_exceptions=True)
        await guarded(producer, "the producer")
        await until(lambda: len(outbox_rows(store_url)) > 0, "messages queued while down")

        proxy.release()
        broker.start()
        await guarded(display_messages(broker.port, record), "every event after the restart")
        await guarded(publisher.wait_drained(), "the outbox to drain")
        # At least once, in order: duplicates only of messages in flight at the kill.
        first_seen = list(dict.fromkeys(seen))
        assert first_seen == list(range(total))
        assert (metrics.registry.get_sample_value("mjtable_mqtt_connects_total") or 0) >= 2
        publisher.stop()
        await guarded(runner, "the publisher to stop")
        await proxy.close()

    asyncio.run(main())


WILL_CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from controller.process.logs import configure_logging
    from controller.store import EventStore
    from tests.controller.mqtt_helpers import make_publisher

    async def main():
        configure_logging("warning")  # stderr: stdout is for "connected"
        store = EventStore.open(sys.argv[2])
        publisher = make_publisher(store, sys.argv[1])
        task = asyncio.create_task(publisher.run())
        await publisher.connected.wait()
        print("connected", flush=True)
        await task

    asyncio.run(main())
    """
)


def test_last_will_says_offline_when_the_publisher_dies(
    mosquitto: Mosquitto, store_url: str
) -> None:
    async def main() -> None:
        ready = asyncio.Event()

        def states(ms: list[aiomqtt.Message]) -> list[str]:
            return [payload(m)["state"] for m in ms]

        watcher = asyncio.create_task(
            collect(
                mosquitto.port,
                TOPICS.status,
                lambda ms: states(ms)[-2:] == ["online", "offline"],
                subscribed=ready,
            )
        )
        await guarded(ready.wait(), "the watcher")
        child = subprocess.Popen(
            [sys.executable, "-c", WILL_CHILD, mosquitto.url, store_url],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=os.environ | {"PYTHONPATH": str(ROOT)},
        )
        try:
            assert child.stdout is not None
            line = await guarded(asyncio.to_thread(child.stdout.readline), "the child")
            assert line.strip() == "connected"
            child.send_signal(signal.SIGKILL)  # no goodbye: only the will can say offline
        finally:
            child.kill()
            child.wait()
            if child.stdout is not None:
                child.stdout.close()
        messages = await guarded(watcher, "online then offline")
        assert states(messages)[-2:] == ["online", "offline"]
        assert messages[-1].retain is False  # live delivery of the retained will
        state = await guarded(retained_state(mosquitto.port), "retained state")
        assert state["status"] == OFFLINE

    asyncio.run(main())


def test_broker_restarted_without_persistence_gets_state_back(
    mosquitto: Mosquitto, store: EventStore
) -> None:
    async def main() -> None:
        metrics = Metrics()
        publisher = make_publisher(store, mosquitto.url, metrics)
        runner = asyncio.create_task(publisher.run())
        publisher.publish("dice", {"values": [3, 5]})
        publisher.publish("events", {"hand_id": "h1", "seq": 0, "event": {"type": "x"}})
        await guarded(publisher.wait_drained(), "the outbox to drain")
        mosquitto.kill()
        mosquitto.start()  # retained messages are gone with it
        await until(
            lambda: (
                metrics.registry.get_sample_value("mjtable_mqtt_connects_total") == 2
                and publisher.connected.is_set()
            ),
            "the reconnect",
        )
        state = await guarded(retained_state(mosquitto.port), "retained state")
        assert state == {"status": ONLINE, "dice": {"values": [3, 5]}}
        publisher.stop()
        await guarded(runner, "the publisher to stop")

    asyncio.run(main())


def test_cancelled_publisher_still_says_offline(mosquitto: Mosquitto, store: EventStore) -> None:
    async def main() -> None:
        publisher = make_publisher(store, mosquitto.url)
        runner = asyncio.create_task(publisher.run())
        await guarded(publisher.connected.wait(), "the connection")
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        state = await guarded(retained_state(mosquitto.port), "retained state")
        assert state["status"] == OFFLINE

    asyncio.run(main())


def test_stop_before_run_returns(store: EventStore) -> None:
    async def main() -> None:
        publisher = make_publisher(store, "mqtt://127.0.0.1:1")
        publisher.stop()
        await guarded(publisher.run(), "run() to return")
        message = publisher.message("jing", {"tile": "5m"})
        assert message.retain and message.qos == 1

    asyncio.run(main())


@pytest.mark.parametrize(
    ("name", "body", "words"),
    [
        ("status", {"state": "online"}, "belongs to the connection"),
        ("gossip", {}, "unknown topic 'gossip'"),
        ("events", {"tiles": {1, 2}}, "not JSON-serialisable"),
    ],
)
def test_messages_are_checked_before_they_are_stored(
    store: EventStore, name: str, body: object, words: str
) -> None:
    publisher = make_publisher(store, "mqtt://127.0.0.1:1")
    with pytest.raises(ValueError, match=words):
        publisher.publish(name, body)
    assert store.outbox_depth() == 0


def test_a_large_backlog_arrives_exactly_in_order(mosquitto: Mosquitto, store: EventStore) -> None:
    """Batches are published without waiting for each PUBACK: 250 rows (two and a half
    batches, many times paho's in-flight window) arrive once each, in the outbox's order,
    retained and plain messages interleaved."""
    total = 250

    async def main() -> None:
        publisher = make_publisher(store, mosquitto.url)
        messages = []
        for seq in range(total):
            messages.append(publisher.event_message("h1", seq, {"type": "draw"}))
            if seq % 10 == 9:
                messages.append(publisher.message("scores", {"scores": [seq, 0, 0, 0]}))
        publisher.publish_messages(messages)  # all stored before the publisher runs

        ready = asyncio.Event()
        live = asyncio.create_task(
            collect(
                mosquitto.port,
                TOPICS.prefix + "+",
                lambda ms: len(ms) == len(messages) + 1,  # and status online
                subscribed=ready,
            )
        )
        await guarded(ready.wait(), "the subscriber")
        runner = asyncio.create_task(publisher.run())
        got = await guarded(live, f"{len(messages)} messages")
        assert got[0].topic.value == TOPICS.status
        assert [(m.topic.value, m.payload.decode()) for m in got[1:]] == [  # type: ignore[union-attr]
            (m.topic, m.payload) for m in messages
        ]
        await guarded(publisher.wait_drained(), "the outbox to drain")
        state = await guarded(retained_state(mosquitto.port), "retained state")
        assert state["scores"] == {"scores": [total - 1, 0, 0, 0]}
        publisher.stop()
        await guarded(runner, "the publisher to stop")

    asyncio.run(main())


def test_a_batch_goes_out_before_its_acks_and_a_kill_mid_batch_loses_nothing(
    mosquitto_factory: Callable[..., Mosquitto], store: EventStore, store_url: str
) -> None:
    """Through a proxy that holds the broker's PUBACKs back after the 5th: the batch goes
    out anyway (pipelined, not one round trip a message: paho's window is 20). The broker
    is killed with those acknowledgements outstanding: only acknowledged rows may have
    left the outbox, the rest stay, in order, and reach the display once it is back."""
    broker = mosquitto_factory(persistence=True)
    total, acked = 60, 5

    async def main() -> None:
        proxy = await saved_display_and_proxy(broker)
        seen: list[int] = []

        def record(ms: list[aiomqtt.Message]) -> bool:
            seen.append(payload(ms[-1])["seq"])
            return seen[-1] == total - 1

        display = asyncio.create_task(display_messages(broker.port, record))
        publisher = make_publisher(store, proxy.url)
        runner = asyncio.create_task(publisher.run())
        await guarded(publisher.connected.wait(), "the connection")
        before = len(proxy.published)
        proxy.hold_acks_after(acked)
        publisher.publish_messages(
            [publisher.event_message("h1", seq, {"type": "d"}) for seq in range(total)]
        )
        await until(lambda: len(proxy.published) - before >= 20, "20 sent with 5 acknowledged")
        await until(lambda: len(seen) >= 20, "the display to get them")

        broker.kill()  # SIGKILL mid-batch, acknowledgements outstanding
        await until(lambda: not publisher.connected.is_set(), "the publisher to see it")
        await asyncio.gather(display, return_exceptions=True)  # (the display saw it drop)
        queued = [json.loads(p)["seq"] for p in outbox_rows(store_url)]
        assert queued == list(range(total - len(queued), total))  # a suffix, in order
        assert len(queued) >= total - acked  # (the acked may still be there: at least once)

        proxy.release()
        broker.start()
        await guarded(display_messages(broker.port, record), "the rest after the restart")
        assert list(dict.fromkeys(seen)) == list(range(total))  # first seen: in order
        assert seen[-len(queued) :] == queued  # what was left, resent in order
        await guarded(publisher.wait_drained(), "the outbox to drain")
        publisher.stop()
        await guarded(runner, "the publisher to stop")
        await proxy.close()

    asyncio.run(main())
