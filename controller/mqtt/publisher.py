"""Publishing through the store's outbox: nothing is lost while the broker is away.

``publish()`` writes the message to the outbox table (committed) and returns; the task
``run()`` keeps a connection to the broker and drains the outbox in id order, deleting each
row only once the broker has acknowledged it (QoS 1 PUBACK). A batch of rows goes out
without waiting for each PUBACK before the next PUBLISH (``publish_in_order``): one round
trip for a hand's move and its flat topics, not one each; a backlog goes one at a time.
(The broker wants TCP_NODELAY, Mosquitto's ``set_tcp_nodelay true`` as
deploy/mosquitto/mjtable.conf sets it: with Nagle it holds the later PUBACKs until this
side's delayed ACK, ~40 ms.) A crash or a lost connection between publish and ack leaves
the row (and those after it), which is sent again: delivery is at least once, in order;
events carry ``hand_id`` and ``seq`` so subscribers drop duplicates. (The broker's
acknowledgement is the publisher's end: a broker killed before it saved loses what it
acknowledged but had not passed on yet; a hand's log reaches the hub by its own
acknowledged sync.)

For an event and its messages to be stored together, build the messages with
``message()``/``event_message()`` and pass them to ``EventStore.append(..., outbox=…)``, then
call ``wake()``.

A row the broker acknowledged whose deletion the store refuses (a full disk) is not sent
again: its id is held in memory (``_AckHolder``) and the drain reads past it; the deletion
is tried again with a backoff, and the session stays up. Two log lines say it: when acks
start failing and when they are stored again.

On every connect the publisher sets ``status`` to online (retained; the will says offline;
both with the ``version`` of mjtable the table runs, which /floor compares with the hub's),
republishes the last retained values it sent (a broker restarted without persistence gets
current state back), then drains. ``stop()`` drains what it can, says offline, disconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import aiomqtt
import structlog

from controller.config import MqttSettings
from controller.mqtt.client import make_client
from controller.mqtt.reconnect import Backoff, keep_connected
from controller.mqtt.topics import OFFLINE, ONLINE, Topics, encode
from controller.process.metrics import Metrics
from controller.process.software import software_version
from controller.store import EventStore, OutboxEntry, OutboxMessage

log = structlog.get_logger(__name__)

BATCH = 100
UNSTORED_MAX = 100  # messages held in memory while the store refuses them
IDLE_POLL = 1.0  # seconds; also picks up rows another process or thread wrote
M = TypeVar("M", OutboxMessage, OutboxEntry)
ACK_RETRY_MIN = 0.5  # seconds before a refused ack deletion is tried again, doubling
ACK_RETRY_MAX = 30.0


class _AckHolder:
    """Rows the broker acknowledged whose deletion the store refused: held in memory (so
    that they are not sent again, on this connection or the next) until a deletion
    succeeds, tried again after a backoff. One log line when acks start failing, one when
    they are stored again."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.ids: list[int] = []
        self.clock = clock
        self._wait = ACK_RETRY_MIN
        self._next_try = 0.0

    @property
    def after_id(self) -> int:
        """Where the next read of the outbox starts: past every row held here."""
        return max(self.ids, default=0)

    def due(self) -> bool:
        return bool(self.ids) and self.clock() >= self._next_try

    def wait_left(self, idle: float) -> float:
        """How long the drain may wait: ``idle``, or less when a deletion is due sooner."""
        if not self.ids:
            return idle
        return max(0.0, min(idle, self._next_try - self.clock()))

    def hold(self, ids: Sequence[int]) -> None:
        self.ids = sorted(set(self.ids) | set(ids))

    def refused(self, ids: Sequence[int], err: Exception) -> None:
        if not self.ids:
            log.error(
                "the outbox cannot record acknowledgements: held in memory, tried again",
                error=f"{type(err).__name__}: {err}",
            )
        else:
            self._wait = min(self._wait * 2, ACK_RETRY_MAX)
        self.hold(ids)
        self._next_try = self.clock() + self._wait

    def stored(self) -> None:
        if self.ids:
            log.warning("the outbox records acknowledgements again", held=len(self.ids))
        self.ids, self._wait, self._next_try = [], ACK_RETRY_MIN, 0.0


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
        self._version = {"version": software_version()}
        self._status: dict[str, Any] = ONLINE | self._version  # and what the table says now
        self._unstored: list[OutboxMessage] = []  # what the store refused (a full disk)
        self._drain_timeout = 5.0
        self._held = _AckHolder()  # acknowledged rows the store would not delete yet

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

    def set_status(self, extra: Mapping[str, Any] | None) -> None:
        """``status`` is online plus ``extra`` (a hand waiting for staff, say) until the next
        call; said now through the outbox, and again on every connect."""
        self._status = ONLINE | self._version | dict(extra or {})
        status = OutboxMessage(self.topics.status, encode(self._status), qos=1, retain=True)
        self.publish_messages([status])

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

    def send_unstored(self, messages: Sequence[OutboxMessage]) -> None:
        """Messages the store could not keep (a full disk: the alert that says so), sent
        from memory before the outbox: at most once, lost if the service stops first."""
        self._unstored.extend(messages[: max(0, UNSTORED_MAX - len(self._unstored))])
        self.wake()

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
        """Connect, drain, reconnect with backoff (``controller.mqtt.reconnect``); returns
        after ``stop()`` (also when stop() came first). One run per Publisher."""
        self._loop = asyncio.get_running_loop()
        s = self.settings
        await keep_connected(
            lambda: make_client(s, self.client_id, will=self._will()),
            lambda client: (self._watch(client), self._drain(client)),
            self._stop,
            Backoff(s.reconnect_min, s.reconnect_max),
            name=f"publisher {s.host}:{s.port}",
            on_connect=self._connected,
            on_stop=self._goodbye,
            on_cancel=self._say_offline,
            on_down=lambda: self._set_connected(False),
            on_failure=lambda _err: self._count_failure(),
        )

    def stop(self, drain_timeout: float = 5.0) -> None:
        """Ask ``run()`` to finish: drain for up to ``drain_timeout``, then say offline."""
        self._drain_timeout = drain_timeout
        self._stop.set()

    def _will(self) -> aiomqtt.Will:
        return aiomqtt.Will(self.topics.status, encode(OFFLINE | self._version), qos=1, retain=True)

    async def _connected(self, client: aiomqtt.Client) -> None:
        again = [OutboxMessage(self.topics.status, encode(self._status), retain=True)]
        again += [OutboxMessage(t, p, retain=True) for t, p in list(self._retained.items())]
        await publish_in_order(client, again)
        self._set_connected(True)
        if self.metrics is not None:
            self.metrics.mqtt_connects.inc()

    async def _goodbye(self, client: aiomqtt.Client) -> None:
        """After stop(): drain what the time allows, then say offline ourselves."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._drain(client, until_empty=True), self._drain_timeout)
        await self._say_offline(client)
        log.info("mqtt disconnecting", outbox=self.store.outbox_depth())

    async def _say_offline(self, client: aiomqtt.Client) -> None:
        # A clean DISCONNECT fires no will: without this, displays would think we are up.
        offline = encode(OFFLINE | self._version)
        await client.publish(self.topics.status, offline, qos=1, retain=True)

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
            if self._unstored:
                unstored, self._unstored = self._unstored, []
                await publish_in_order(client, unstored)
            if self._held.due():
                await self._ack([])
            entries = self.store.outbox_peek(BATCH, self._held.after_id)
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
                async with asyncio.timeout(self._held.wait_left(IDLE_POLL)):
                    await self._wake.wait()

    async def _send_batch(self, client: aiomqtt.Client, entries: list[OutboxEntry]) -> None:
        sent: list[OutboxEntry] = []
        # Live play (what a move stored): all at once. A backlog (a full batch, after an
        # outage) one at a time, as fast as the broker acks: all at once would outrun a
        # display with a persistent session, and the broker drops what overflows its queue
        # for it (Mosquitto: max_queued_messages; test_broker_outage saw it).
        step = 1 if len(entries) == BATCH else len(entries)
        try:
            for start in range(0, len(entries), step):
                await publish_in_order(client, entries[start : start + step], sent.append)
        finally:
            # One transaction for the batch: acking row by row waited for the store's
            # write lock once per message. If the link dies mid-batch, the acknowledged
            # prefix is forgotten and the rest is sent again (at least once, in order).
            if sent:
                for entry in sent:
                    if entry.retain:
                        self._retained[entry.topic] = entry.payload
                self._sent(sent)
                await self._ack([e.id for e in sent])

    async def _ack(self, ids: list[int]) -> None:
        """Delete the acknowledged rows ``ids`` (and any held before); a store that refuses
        (a full disk) keeps the session: the ids are held, tried again later."""
        if ids and self._held.ids and not self._held.due():
            self._held.hold(ids)  # (the store refused the last try: wait for the next)
            return
        held = self._held.ids
        try:
            await asyncio.to_thread(self.store.outbox_ack, held + ids)
        except Exception as err:  # (OperationalError: database or disk is full)
            self._held.refused(ids, err)
        else:
            self._held.stored()

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


async def publish_in_order(
    client: aiomqtt.Client, messages: Sequence[M], acked: Callable[[M], None] | None = None
) -> None:
    """Publish ``messages`` without waiting for each PUBACK before the next PUBLISH (one
    round trip for a batch, not one per message); ``acked(m)`` for each acknowledged one,
    in order, up to the first failure, which is raised (the rest are abandoned).

    The order holds: each task hands its message to paho on its first step, before any
    await, and asyncio runs new tasks in the order they were created; paho sends in that
    order (beyond its in-flight window, 20, it queues them, in order) and the broker
    forwards and acknowledges a client's QoS 1 messages in the order it received them.
    """
    # (aiomqtt warns above this many awaited PUBACKs, as if they leaked: here they are meant)
    client.pending_calls_threshold = max(client.pending_calls_threshold, len(messages))
    sending = [
        asyncio.create_task(client.publish(m.topic, m.payload, qos=m.qos, retain=m.retain))
        for m in messages
    ]
    try:
        for message, task in zip(messages, sending, strict=True):
            await task  # (raises if the link died first, or at publish_timeout)
            if acked is not None:
                acked(message)
    finally:
        for task in sending:
            task.cancel()
        # (collects the errors of tasks already failed, so that none is reported unread)
        await asyncio.gather(*sending, return_exceptions=True)
