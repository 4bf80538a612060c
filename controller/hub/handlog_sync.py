"""The table's side of the hub's acknowledgements: record acks, re-send what is not acked.

The service publishes each finished hand's handlog through the outbox as it settles. This
task keeps its own connection, subscribed to ``…/handlog_ack``: each ack is recorded with
``store.mark_handlog_acked``. On every (re)connect it sends again every finished hand the hub
has not acknowledged, and then, while connected, any that stays unacknowledged
``resend_after`` seconds after it finished or was last sent (the hub was down, or a broker
restart lost the message), each further copy of a hand waiting twice as long as the one
before, up to ``RESEND_MAX``: a hub down for days would otherwise get every hand played
meanwhile again each minute (queued for it on the broker). The hub stores by hand id, so
a copy too many is harmless.

    sync = HandlogSync(store, config.mqtt, topics)
    task = asyncio.create_task(sync.run())
    ...
    sync.stop(); await task
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Coroutine
from typing import Any

import aiomqtt
import structlog

from controller.config import MqttSettings
from controller.hub.house_sync import (
    HouseSyncError,
    ack_state,
    house_ack_topic,
    house_topic,
    parse_house,
    take_house,
)
from controller.hub.member_sync import build_members, members_topic, registry_version
from controller.mqtt.client import make_client
from controller.mqtt.reconnect import Backoff, keep_connected
from controller.mqtt.topics import Topics, encode
from controller.store import EventStore, UnknownHand
from controller.store.members import Members, hand_seat_acts
from controller.table.handlog import (
    HandlogError,
    ack_topic,
    build_handlog,
    handlog_topic,
    parse_ack,
    topics_identity,
)

log = structlog.get_logger(__name__)

RESEND_LIMIT = 10_000  # unacked hands looked at per pass (a week offline is ~2,000)
RESEND_MAX = 3600.0  # s: the longest wait between two copies of a hand
HOUSE_LOOK = 1.0  # s: how often the answer about house rules is looked at


class HandlogSync:
    def __init__(
        self,
        store: EventStore,
        settings: MqttSettings,
        topics: Topics,
        *,
        client_id: str | None = None,
        resend_after: float = 60.0,
    ) -> None:
        self.store = store
        self.settings = settings
        self.topics = topics
        self.parlour, self.table = topics_identity(topics)
        self.client_id = client_id or f"mjtable-{self.parlour}-{self.table}-handlog"
        self.resend_after = resend_after
        self.connected = asyncio.Event()
        self.sent = 0  # handlogs this task (re-)sent
        self.acked = 0  # acks recorded for the first time
        # hand id -> (time.monotonic() of our last send, copies sent since connecting)
        self._last_sent: dict[str, tuple[float, int]] = {}
        # hand id -> time.monotonic() it was first seen unacked (never the wall clock: a
        # table's clock that moved back would hold a hand back until it caught up)
        self._first_seen: dict[str, float] = {}
        self._stop = asyncio.Event()
        self._wake = asyncio.Event()
        self._members_sent: tuple[int, str] | None = None  # the registry version sent
        self._house_refused: str | None = None  # why the hub's house ruleset was refused
        self._house_answered: dict[str, Any] | None = None  # the answer sent
        self._house_looked = 0.0  # time.monotonic() the answer was last looked at

    def stop(self) -> None:
        self._stop.set()

    def wait_after(self, copies: int) -> float:
        """How long a hand sent ``copies`` times since connecting waits for its ack before
        the next copy: ``resend_after``, doubling with each copy, at most ``RESEND_MAX``."""
        return min(
            self.resend_after * 2.0 ** max(copies - 1, 0), max(RESEND_MAX, self.resend_after)
        )

    def wake(self) -> None:
        """Look for unacknowledged hands now (from the event loop's thread)."""
        self._wake.set()

    async def run(self) -> None:
        """Connect, sync, reconnect with backoff; returns after ``stop()``."""
        s = self.settings
        await keep_connected(
            lambda: make_client(s, self.client_id),
            self._session,
            self._stop,
            Backoff(s.reconnect_min, s.reconnect_max),
            name=f"handlog sync {self.table}",
            connected=self.connected,
            on_connect=self._subscribe,
        )

    async def _subscribe(self, client: aiomqtt.Client) -> None:
        await client.subscribe(ack_topic(self.topics), qos=1)
        await client.subscribe(house_topic(self.topics), qos=1)
        self._house_answered = None
        self._last_sent.clear()  # after an outage, everything unacked goes again

    def _session(self, client: aiomqtt.Client) -> tuple[Coroutine[Any, Any, None], ...]:
        return self._receive_acks(client), self._resend_loop(client)

    async def _receive_acks(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            if message.topic.value == house_topic(self.topics):
                await self._take_house(message.payload)
                continue
            try:
                hand_id = parse_ack(message.payload if isinstance(message.payload, bytes) else b"")
            except HandlogError as err:
                log.warning("bad handlog ack", error=str(err))
                continue
            try:
                first = await asyncio.to_thread(self.store.mark_handlog_acked, hand_id)
            except UnknownHand:
                log.warning("handlog ack for a hand this table does not have", hand_id=hand_id)
                continue
            self._last_sent.pop(hand_id, None)
            self._first_seen.pop(hand_id, None)
            if first:
                self.acked += 1

    async def _take_house(self, payload: Any) -> None:
        """The hub's house ruleset for this table: kept for the next session, or refused
        (the table keeps its rules) and the reason answered."""
        raw = payload if isinstance(payload, bytes) else b""
        try:
            message = parse_house(raw)
        except HouseSyncError as err:
            self._house_refused = f"{err}；本桌继续用原来的规则"
            log.warning("house ruleset refused", error=str(err))
        else:
            refused = await asyncio.to_thread(take_house, self.store, self.table, message)
            self._house_refused = refused
            log.info("house ruleset received", name=message.name, refused=refused)
        self._house_looked = 0.0  # answer at once
        self._wake.set()

    async def _answer_house(self, client: aiomqtt.Client) -> None:
        """This table's answer to the hub, retained, whenever it changed: looked at on
        connecting, on a message from the hub, else every ``HOUSE_LOOK`` seconds (a session's
        start applies an assignment)."""
        now = time.monotonic()
        if self._house_answered is not None and now - self._house_looked < HOUSE_LOOK:
            return
        self._house_looked = now
        answer = await asyncio.to_thread(ack_state, self.store, self.table, self._house_refused)
        if answer == self._house_answered:
            return
        await client.publish(house_ack_topic(self.topics), encode(answer), qos=1, retain=True)
        self._house_answered = answer

    async def _resend_loop(self, client: aiomqtt.Client) -> None:
        first = True
        self._members_sent = None  # (retained: once more on each connection is cheap)
        while True:
            await self._answer_house(client)
            await self._sync_members(client)
            await self._resend(client, everything=first)
            first = False
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(self.resend_after / 4, 0.05))

    async def _sync_members(self, client: aiomqtt.Client) -> None:
        """The member registry to the hub, retained, whenever it changed."""
        version = await asyncio.to_thread(registry_version, self.store.engine)
        if version == self._members_sent:
            return
        members = Members(self.store.engine, table_id=self.table, parlour=self.parlour)
        payload = await asyncio.to_thread(build_members, members)
        await client.publish(members_topic(self.topics), encode(payload), qos=1, retain=True)
        self._members_sent = version
        log.info("member registry sent", members=len(payload["members"]), table=self.table)

    async def _resend(self, client: aiomqtt.Client, *, everything: bool) -> None:
        hands = await asyncio.to_thread(self.store.unacked_handlogs, RESEND_LIMIT)
        now = time.monotonic()
        topic = handlog_topic(self.topics)
        for hand in hands:
            copies = 0
            if not everything:
                last = self._last_sent.get(hand.id)
                if last is not None:
                    at, copies = last
                    if now - at < self.wait_after(copies):
                        continue
                seen = self._first_seen.setdefault(hand.id, now)
                if last is None and now - seen < self.resend_after:
                    continue  # just published by the service: give the hub time to ack
            stored = await asyncio.to_thread(self.store.load_hand, hand.id)
            acts = await asyncio.to_thread(hand_seat_acts, self.store.engine, hand.id)
            payload = build_handlog(stored, parlour=self.parlour, table=self.table, seat_acts=acts)
            await client.publish(topic, encode(payload), qos=1)
            self._last_sent[hand.id] = (time.monotonic(), copies + 1)
            self.sent += 1
        if hands and everything:
            log.info("handlogs re-sent", count=len(hands), table=self.table)
