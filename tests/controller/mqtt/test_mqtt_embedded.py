"""The embedded (amqtt) broker: publish and subscribe through it, then a clean shutdown."""

from __future__ import annotations

import asyncio
import socket

import aiomqtt
import pytest
from pydantic import ValidationError

from controller.config import MqttSettings, NotLoopback
from controller.mqtt import EmbeddedBroker
from controller.store import EventStore
from tests.controller.mqtt_helpers import (
    ONLINE,
    TOPICS,
    collect,
    guarded,
    make_publisher,
    payload,
    retained_state,
)


def test_embedded_broker_round_trip(store: EventStore) -> None:
    async def main() -> None:
        async with EmbeddedBroker(port=0) as broker:
            assert broker.port != 0 and broker.url == f"mqtt://127.0.0.1:{broker.port}"
            ready = asyncio.Event()
            live = asyncio.create_task(
                collect(broker.port, TOPICS.prefix + "alerts", lambda ms: True, subscribed=ready)
            )
            await guarded(ready.wait(), "the subscriber")
            publisher = make_publisher(store, broker.url)
            runner = asyncio.create_task(publisher.run())
            publisher.publish("scores", {"scores": [1, -1, 0, 0]})
            publisher.publish("alerts", {"kind": "zhahu", "seat": 2, "text": "诈胡"})
            (alert,) = await guarded(live, "the alert")
            assert payload(alert) == {"kind": "zhahu", "seat": 2, "text": "诈胡"}
            await guarded(publisher.wait_drained(), "the outbox to drain")
            state = await guarded(retained_state(broker.port), "retained state")
            assert state == {"status": ONLINE, "scores": {"scores": [1, -1, 0, 0]}}
            publisher.stop()
            await guarded(runner, "the publisher to stop")
            port = broker.port
        with socket.socket() as s:  # the listener is closed: the port is free again
            s.bind(("127.0.0.1", port))

    asyncio.run(main())


def test_mqtt_over_websocket_reaches_tcp_subscribers() -> None:
    """The pages fed from the broker (/floor, /display?broker=) speak MQTT over WebSocket."""

    async def main() -> None:
        async with EmbeddedBroker(port=0, ws_port=0) as broker:
            assert broker.ws_port not in (None, 0)
            assert broker.ws_url == f"ws://127.0.0.1:{broker.ws_port}"
            ready = asyncio.Event()
            sub = asyncio.create_task(
                collect(broker.port, "x/#", lambda ms: True, subscribed=ready)
            )
            await guarded(ready.wait(), "the subscriber")
            async with aiomqtt.Client(
                "127.0.0.1", broker.ws_port, transport="websockets"
            ) as client:
                await client.publish("x/y", b'{"over":"ws"}', qos=1)
            (message,) = await guarded(sub, "the message")
            assert payload(message) == {"over": "ws"}

    asyncio.run(main())


def test_no_websocket_listener_unless_asked() -> None:
    async def main() -> None:
        async with EmbeddedBroker(port=0) as broker:
            assert broker.ws_url is None
            assert set(broker._broker._servers) == {"default"}

    asyncio.run(main())


def test_plain_aiomqtt_through_embedded_broker() -> None:
    async def main() -> None:
        broker = EmbeddedBroker()
        await broker.start()
        try:
            ready = asyncio.Event()
            sub = asyncio.create_task(
                collect(broker.port, "x/#", lambda ms: True, subscribed=ready)
            )
            await guarded(ready.wait(), "the subscriber")
            async with aiomqtt.Client("127.0.0.1", broker.port) as client:
                await client.publish("x/y", b'{"ok":true}', qos=1)
            (message,) = await guarded(sub, "the message")
            assert payload(message) == {"ok": True}
        finally:
            await broker.stop()
        await broker.stop()  # idempotent

    asyncio.run(main())


def test_a_client_gets_only_the_retained_messages_its_own_filter_matches() -> None:
    """amqtt sends a connecting client the retained messages of every other client's filter
    unless patched: a display of t1 would get t2's retained topics."""

    async def main() -> None:
        async with EmbeddedBroker(port=0) as broker:
            port = broker.port
            async with aiomqtt.Client("127.0.0.1", port, identifier="pub") as pub:
                for topic in ("m/p/t1/scores", "m/p/t1/hand", "m/p/t2/hand"):
                    await pub.publish(topic, b"secret-ish", qos=1, retain=True)
            async with (
                aiomqtt.Client("127.0.0.1", port, identifier="wide") as wide,
                aiomqtt.Client("127.0.0.1", port, identifier="pub2") as pub,
            ):
                await wide.subscribe("m/p/#", qos=1)
                async with aiomqtt.Client("127.0.0.1", port, identifier="display") as display:
                    await display.subscribe("m/p/t1/scores", qos=1)
                    await pub.publish("m/p/t1/scores", b"marker", qos=1)
                    seen = []
                    async for message in display.messages:
                        seen.append((message.topic.value, message.payload))
                        if message.payload == b"marker":
                            break
                    assert {topic for topic, _ in seen} == {"m/p/t1/scores"}, seen

    asyncio.run(asyncio.wait_for(main(), 30))


def test_the_embedded_broker_listens_on_loopback_only() -> None:
    """It has no accounts: on an address the LAN reaches it would hand every table's topics
    to anyone and take retained messages from anyone. It refuses, saying what to do."""
    for host in ("0.0.0.0", "192.168.1.20", "::", "table-7.local"):
        with pytest.raises(NotLoopback, match="broker-acl"):
            EmbeddedBroker(host)
    with pytest.raises(ValidationError, match="loopback only"):
        MqttSettings(embedded=True, url="mqtt://0.0.0.0:1883")
    MqttSettings(embedded=False, url="mqtt://0.0.0.0:1883")  # a parlour's Mosquitto: its own
    for host in ("127.0.0.1", "127.0.0.2", "localhost", "[::1]"):
        MqttSettings(embedded=True, url=f"mqtt://{host}:1883")


HANDLOG = "mahjong/p1/t1/handlog"


def test_an_anonymous_client_gets_no_hand_log_and_writes_only_its_tables_topics() -> None:
    """A hand log holds the concealed hands and the wall order: no anonymous subscriber gets
    it, by a wildcard, by name, or retained; and nobody writes under another table."""

    async def main() -> None:
        async with EmbeddedBroker(port=0, writable="mahjong/p1/t1/") as broker:
            port = broker.port
            async with (
                aiomqtt.Client("127.0.0.1", port, identifier="wide") as wide,
                aiomqtt.Client("127.0.0.1", port, identifier="named") as named,
            ):
                await wide.subscribe("#", qos=1)
                granted = await named.subscribe(HANDLOG, qos=1)
                assert [int(getattr(g, "value", g)) for g in granted] == [0x80], granted
                async with aiomqtt.Client("127.0.0.1", port, identifier="table") as table:
                    await table.publish(HANDLOG, b'{"wall": "secret"}', qos=1)
                    await table.publish(HANDLOG, b'{"wall": "secret"}', qos=1, retain=True)
                    await table.publish("mahjong/p1/t2/scores", b"forged", qos=1, retain=True)
                    await table.publish("mahjong/p1/t1/scores", b"marker", qos=1, retain=True)
                seen = []
                async for message in wide.messages:
                    seen.append((message.topic.value, message.payload))
                    if message.payload == b"marker":
                        break
                assert seen == [("mahjong/p1/t1/scores", b"marker")], seen
            async with aiomqtt.Client("127.0.0.1", port, identifier="late") as late:
                await late.subscribe("mahjong/#", qos=1)
                retained = []
                async for message in late.messages:
                    retained.append(message.topic.value)
                    if message.payload == b"marker":
                        break
                assert retained == ["mahjong/p1/t1/scores"], retained

    asyncio.run(asyncio.wait_for(main(), 30))
