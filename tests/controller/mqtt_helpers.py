"""Subscribers and waits for the MQTT tests (asyncio.run inside each test)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiomqtt

from controller.config import MqttSettings
from controller.mqtt import Publisher, Topics
from controller.mqtt.flat import PREFIX as FLAT_PREFIX
from controller.process.metrics import Metrics
from controller.process.software import software_version
from controller.store import EventStore

T = TypeVar("T")
GUARD = 30.0  # seconds before a wait gives up: a hang guard, never a measured expectation
TOPICS = Topics("demo", "t1")
ONLINE = {"state": "online", "version": software_version()}  # a publisher's status
OFFLINE = {"state": "offline", "version": software_version()}  # … and its will


async def until(condition: Callable[[], bool], what: str) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.02)

    try:
        await asyncio.wait_for(poll(), GUARD)
    except TimeoutError:
        raise AssertionError(f"gave up waiting for {what}") from None


async def guarded(awaitable: Awaitable[T], what: str) -> T:
    try:
        return await asyncio.wait_for(awaitable, GUARD)
    except TimeoutError:
        raise AssertionError(f"gave up waiting for {what}") from None


def settings(url: str, **overrides: Any) -> MqttSettings:
    # Short backoff: the tests restart brokers and should not sit in a 30 s sleep.
    base: dict[str, Any] = {
        "url": url,
        "embedded": False,
        "reconnect_min": 0.05,
        "reconnect_max": 0.2,
        "keepalive": 5,
    }
    return MqttSettings(**(base | overrides))


def make_publisher(
    store: EventStore, url: str, metrics: Metrics | None = None, **overrides: Any
) -> Publisher:
    return Publisher(
        store, settings(url, **overrides), TOPICS, client_id="mjtable-demo-t1", metrics=metrics
    )


def payload(message: aiomqtt.Message) -> Any:
    """JSON, except the flat display topics' plain text (docs/displays.md)."""
    assert isinstance(message.payload, bytes)
    text = message.payload.decode("utf-8")
    return text if f"/{FLAT_PREFIX}" in message.topic.value else json.loads(text)


async def collect(
    port: int,
    topic_filter: str | None,
    done: Callable[[list[aiomqtt.Message]], bool],
    *,
    subscribed: asyncio.Event | None = None,
    **client: Any,
) -> list[aiomqtt.Message]:
    """Messages until ``done(messages)``; ``topic_filter`` None: a persistent session's
    subscription is already on the broker."""
    out: list[aiomqtt.Message] = []
    async with aiomqtt.Client("127.0.0.1", port, **client) as c:
        if topic_filter is not None:
            await c.subscribe(topic_filter, qos=1)
        if subscribed is not None:
            subscribed.set()
        async for m in c.messages:
            out.append(m)
            if done(out):
                break
    return out


async def retained_state(port: int, **client: Any) -> dict[str, Any]:
    """What a display connecting now is given: every retained payload of the table.

    A sentinel published after subscribing marks the end: the broker hands out retained
    messages at subscribe time, before anything published later."""
    sentinel = TOPICS.prefix + "zz-test/" + uuid.uuid4().hex
    state: dict[str, Any] = {}
    async with aiomqtt.Client("127.0.0.1", port, **client) as c:
        await c.subscribe(TOPICS.all, qos=1)
        await c.publish(sentinel, b"", qos=1)
        async for m in c.messages:
            if m.topic.value == sentinel:
                return state
            assert m.retain, f"a live message arrived while reading state: {m.topic}"
            state[m.topic.value.removeprefix(TOPICS.prefix)] = payload(m)
    raise AssertionError("disconnected before the sentinel")
