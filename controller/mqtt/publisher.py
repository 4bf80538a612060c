"""Publishing through the store's outbox: nothing is lost while the broker is away.

``publish()`` writes the message to the outbox table (committed) and returns; the task
``run()`` keeps a connection to the broker and drains the outbox in id order, deleting each
row only once the broker has acknowledged it (QoS 1 PUBACK). A crash or a lost connection
between publish and ack leaves the row, which is sent again: delivery is at least once,
in order; events carry ``hand_id`` and ``seq`` so subscribers drop duplicates.

For an event and its messages to be stored together, build the messages with
``message()``/``event_message()`` and pass them to ``EventStore.append(..., outbox=…)``, then
call ``wake()``.

On every connect the publisher sets ``status`` to online (retained; the will says offline),
republishes the last retained values it sent (a broker restarted without persistence gets
current state back), then drains. ``stop()`` drains what it can, says offline, disconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import ssl
import time
from collections.abc import Mapping
from typing import Any

import aiomqtt
import structlog

from controller.config import MqttSettings
from controller.metrics import Metrics
from controller.mqtt.topics import OFFLINE, ONLINE, Topics, encode
from controller.store import EventStore, OutboxEntry, OutboxMessage

log = structlog.get_logger(__name__)

BATCH = 100
IDLE_POLL = 1.0  # seconds; also picks up rows another process or thread wrote


class Publisher:
    def __init__(
        self,
        store: EventStore,
        settings: MqttSettings,
        topics: Topics,
        *,
        client_id: str,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.topics = topics
        self.client_id = client_id
        self.metrics = metrics
        self.connected = asyncio.Event()
        self._wake = asyncio.Event()
        self._stop = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._retained: dict[str, str] = {}  # topic -> last payload the broker acknowledged
        self._drain_timeout = 5.0

    # --- writing to the outbox (synchronous, durable on return) ----------------------------

    def message(self, name: str, payload: Any) -> OutboxMessage:
        """A message for topic ``name`` (retained or not by the topic's kind), not stored."""
        if name == "status":
            raise ValueError("status belongs to the connection (online on connect, will offline)")
        return OutboxMessage(
            topic=self.topics.topic(name),
            payload=encode(payload),
            qos=1,
            retain=Topics.retained(name),
        )

    def event_message(self, hand_id: str, seq: int, event: Mapping[str, Any]) -> OutboxMessage:
        """One public event: ``{"hand_id", "seq", "event"}`` (seq for de-duplication)."""
        return self.message("events", {"hand_id": hand_id, "seq": seq, "event": dict(event)})

    def publish(self, name: str, payload: Any) -> int:
        """Store one message for ``name`` and wake the drain; returns its outbox id."""
        (entry_id,) = self.publish_messages([self.message(name, payload)])
        return entry_id

    def publish_messages(self, messages: list[OutboxMessage]) -> list[int]:
        ids = self.store.enqueue(messages)  # (the store keeps the outbox gauge)
        self.wake()
        return ids

    def wake(self) -> None:
        """New rows in the outbox: drain now. Callable from any thread."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return  # not running: run() drains whatever it finds when it starts
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._wake.set()
        else:
            loop.call_soon_threadsafe(self._wake.set)

    # --- the connection ----------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, drain, reconnect with exponential backoff; returns after ``stop()``
        (also when stop() came first). One run per Publisher."""
        self._loop = asyncio.get_running_loop()
        delay = self.settings.reconnect_min
        while not self._stop.is_set():
            try:
                async with self._client() as client:
                    try:
                        await self._connected(client)
                        delay = self.settings.reconnect_min
                        await self._session(client)
                        return  # stop() was asked for and the session said goodbye
                    except asyncio.CancelledError:
                        # Cancelled instead of stop(): a clean DISCONNECT fires no will,
                        # so say offline ourselves, briefly, or displays think we are up.
                        with contextlib.suppress(Exception):
                            offline = client.publish(
                                self.topics.status, encode(OFFLINE), qos=1, retain=True
                            )
                            await asyncio.wait_for(offline, 1.0)
                        raise
            except (aiomqtt.MqttError, OSError) as err:  # ssl.SSLError is an OSError
                self._count_failure()
                log.warning(
                    "mqtt connection failed",
                    broker=f"{self.settings.host}:{self.settings.port}",
                    error=str(err) or type(err).__name__,
                    retry_in=round(delay, 2),
                )
            except Exception:
                # E.g. the database briefly locked: keep the rows, log, try again later.
                self._count_failure()
                log.exception("publisher error", retry_in=round(delay, 2))
            finally:
                self._set_connected(False)
            # Sleep the backoff unless stopped meanwhile; jitter keeps tables from
            # reconnecting in lockstep after the parlour's broker restarts.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay * random.uniform(0.8, 1.0))
            delay = min(delay * 2, self.settings.reconnect_max)

    def stop(self, drain_timeout: float = 5.0) -> None:
        """Ask ``run()`` to finish: drain for up to ``drain_timeout``, then say offline."""
        self._drain_timeout = drain_timeout
        self._stop.set()

    def _client(self) -> aiomqtt.Client:
        s = self.settings
        tls_context = None
        if s.tls:
            tls_context = ssl.create_default_context(
                cafile=str(s.ca_file) if s.ca_file is not None else None
            )
        return aiomqtt.Client(
            hostname=s.host,
            port=s.port,
            username=s.username,
            password=s.password.get_secret_value() if s.password is not None else None,
            identifier=self.client_id,
            keepalive=s.keepalive,
            timeout=s.publish_timeout,
            tls_context=tls_context,
            will=aiomqtt.Will(self.topics.status, encode(OFFLINE), qos=1, retain=True),
        )

    async def _connected(self, client: aiomqtt.Client) -> None:
        await client.publish(self.topics.status, encode(ONLINE), qos=1, retain=True)
        for topic, payload in list(self._retained.items()):
            await client.publish(topic, payload, qos=1, retain=True)
        self._set_connected(True)
        if self.metrics is not None:
            self.metrics.mqtt_connects.inc()
        log.info("mqtt connected", broker=f"{self.settings.host}:{self.settings.port}")

    async def _session(self, client: aiomqtt.Client) -> None:
        """Drain until the connection drops (raises) or stop() (returns after goodbye)."""
        watch = asyncio.create_task(self._watch(client))
        drain = asyncio.create_task(self._drain(client))
        stop = asyncio.create_task(self._stop.wait())
        tasks = (watch, drain, stop)
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for task in (watch, drain):
            if task in done:
                task.result()  # the MqttError that ended the session
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._drain(client, until_empty=True), self._drain_timeout)
        await client.publish(self.topics.status, encode(OFFLINE), qos=1, retain=True)
        log.info("mqtt disconnecting", outbox=self.store.outbox_depth())

    @staticmethod
    async def _watch(client: aiomqtt.Client) -> None:
        # No subscriptions: the iterator only ends, with MqttError, when the connection does.
        async for _ in client.messages:
            pass

    async def _drain(self, client: aiomqtt.Client, *, until_empty: bool = False) -> None:
        while True:
            self._wake.clear()  # before reading: a publish() after this read wakes us again
            # In the loop, not a worker thread: the read takes a fraction of a millisecond
            # (WAL: readers never wait for the writer), while a thread hop waits for the GIL
            # (up to 5 ms) whenever the loop is busy, on the path from a tile to a display.
            entries = self.store.outbox_peek(BATCH)
            if entries:
                await self._send_batch(client, entries)
                if len(entries) == BATCH:
                    continue  # a backlog: straight on
                # All there was is sent (a row stored since has set _wake again): no second
                # read, no count, before waiting.
            elif until_empty:
                return
            if until_empty:
                continue
            # asyncio.timeout, not wait_for: wait_for wraps the wait in a task of its own,
            # two more turns of the loop between a stored event and its publication.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(IDLE_POLL):
                    await self._wake.wait()

    async def _send_batch(self, client: aiomqtt.Client, entries: list[OutboxEntry]) -> None:
        sent: list[OutboxEntry] = []
        try:
            for entry in entries:
                await self._send(client, entry)
                sent.append(entry)
        finally:
            # One transaction for the batch: acking row by row waited for the store's
            # write lock once per message. If the link dies mid-batch, what was sent is
            # still forgotten and the rest is sent again (at least once, in order).
            if sent:
                await asyncio.to_thread(self.store.outbox_ack, [e.id for e in sent])
                self._sent(sent)

    async def _send(self, client: aiomqtt.Client, entry: OutboxEntry) -> None:
        # QoS 1: returns once the broker's PUBACK arrived; raises if the link died first.
        await client.publish(entry.topic, entry.payload, qos=entry.qos, retain=entry.retain)
        if entry.retain:
            self._retained[entry.topic] = entry.payload

    def _sent(self, entries: list[OutboxEntry]) -> None:
        if self.metrics is None:
            return
        now = time.time()
        for entry in entries:
            self.metrics.publish_latency.observe(max(0.0, now - entry.enqueued_at))
            self.metrics.published.labels(entry.topic.rsplit("/", 1)[-1]).inc()

    def _set_connected(self, up: bool) -> None:
        if up:
            self.connected.set()
        else:
            self.connected.clear()
        if self.metrics is not None:
            self.metrics.mqtt_connected.set(1 if up else 0)

    def _count_failure(self) -> None:
        if self.metrics is not None:
            self.metrics.mqtt_connect_failures.inc()

    async def wait_drained(self) -> None:
        """Until the outbox is empty (every message acknowledged); for tests and shutdown."""
        while await asyncio.to_thread(self.store.outbox_depth):
            self.wake()
            await asyncio.sleep(0.05)
