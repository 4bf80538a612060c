"""The hub's MQTT side: every table's handlogs in, stored in batches, acknowledged after
the commit.

The hub keeps a persistent session (clean_session false, a fixed client id): while it is
down the broker queues the tables' handlogs for it (up to Mosquitto's
``max_queued_messages``); anything lost beyond that the tables re-send, unacknowledged.
Messages are stored in batches of whatever has arrived while the previous batch was being
written, so a burst (tables re-sending after an outage) costs few commits.

A message the hub will not store (not a bounded, valid handlog; a value the database
refuses) is quarantined with the reason, logged as an error, and
acknowledged as rejected (``{"hand_id": …, "rejected": reason}``, when it named a hand) so
the table stops re-sending it. It never holds up the others: a batch the database refuses
for anything but being unreachable is stored hand by hand, and only the refused hand goes
to the quarantine. A session or hand id another table holds is stored under the sender's
own alias (``controller.hub.ingest``), not refused.

From its start the hub also checks, in the background, the dice of hands it stored before
it checked dice (``controller.hub.dice_backfill``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import aiomqtt
import structlog
from sqlalchemy import Engine
from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from controller.config import ID_PATTERN, MqttSettings
from controller.hub.dice_backfill import BATCH as DICE_BATCH
from controller.hub.dice_backfill import check_unchecked
from controller.hub.house_sync import (
    HouseSyncError,
    build_house,
    hub_ack_filter,
    hub_house_topic,
    parse_ack,
)
from controller.hub.ingest import Refused, StoreResult, quarantine, store_handlogs
from controller.hub.member_sync import (
    MembersError,
    apply_members,
    hub_members_filter,
    parse_members,
)
from controller.hub.restore import RestoreAnswers
from controller.mqtt.client import make_client
from controller.mqtt.reconnect import Backoff, keep_connected
from controller.mqtt.topics import HOUSE_ACK_NAME, MEMBERS_NAME, REQUEST_NAME, encode
from controller.process.software import SOFTWARE
from controller.store import EventStore
from controller.store.house_rules import HouseRules
from controller.table.handlog import (
    Handlog,
    HandlogError,
    ack_topic_for,
    build_ack,
    hub_filter,
    parse_handlog,
    request_filter,
)

log = structlog.get_logger(__name__)

BATCH_MAX = 500  # hands per transaction
ACKS_IN_FLIGHT = 8
DB_RETRY_MAX = 30.0  # seconds between attempts while the database is down
# The database cannot be reached (retry the batch), as opposed to refusing a value in it.
UNREACHABLE = (OperationalError, InterfaceError, DisconnectionError, PoolTimeout, OSError)

Rows = TypeVar("Rows")
Out = TypeVar("Out")
Accepted = tuple[str, Handlog]  # (topic, handlog)
Item = Accepted | Refused


@dataclass
class HubCounters:
    received: int = 0
    stored: int = 0
    duplicates: int = 0
    rejected: int = 0  # quarantined
    batches: int = 0
    db_failures: int = 0
    dice_checked: int = 0  # stored hands given their dice verdict since the start


class HubIngest:
    """``run()`` until ``stop()``; share nothing else with it."""

    def __init__(
        self,
        store: EventStore,
        settings: MqttSettings,
        *,
        parlour: str,
        client_id: str | None = None,
        batch_max: int = BATCH_MAX,
        dice_batch: int = DICE_BATCH,
    ) -> None:
        self.store = store
        self.settings = settings
        self.parlour = parlour
        self.filter = hub_filter(parlour, settings.topic_root)
        self.client_id = client_id or f"mjtable-hub-{parlour}"
        self.batch_max = batch_max
        self.dice_batch = dice_batch
        self.counters = HubCounters()
        # Each table's last retained status ("online" / "offline", its will), for the owners'
        # list of tables; read by the web app on the same event loop.
        self.statuses: dict[str, str] = {}
        self.status_filter = f"{settings.topic_root}/{parlour}/+/status"
        # A table that lost hands asks for them back (controller.hub.restore).
        self.request_filter = request_filter(parlour, settings.topic_root)
        self.restores = RestoreAnswers(store)
        # Each table's member registry (retained; controller.hub.member_sync).
        self.members_filter = hub_members_filter(parlour, settings.topic_root)
        # Each table's house ruleset out (retained), its answer in (controller.hub.house_sync).
        self.house_ack_filter = hub_ack_filter(parlour, settings.topic_root)
        self._house_sent: dict[str, str] = {}  # table -> the payload published this connection
        self.software: dict[str, str] = {}  # table -> the mjtable version it said it runs
        self.house_wake = asyncio.Event()
        self.connected = asyncio.Event()
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        """Subscribe, store and acknowledge, reconnect with backoff; returns after ``stop()``.
        Meanwhile, once: the dice check of hands stored without one."""
        s = self.settings
        backfill = asyncio.create_task(self.check_stored_dice())
        try:
            await keep_connected(
                lambda: make_client(s, self.client_id, clean_session=False),
                self._session,
                self._stop,
                Backoff(s.reconnect_min, s.reconnect_max),
                name=f"hub {self.parlour}",
                connected=self.connected,
                on_connect=self._subscribe,
            )
        finally:
            backfill.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await backfill

    async def check_stored_dice(self) -> int:
        """Give every stored hand without a dice verdict its verdict, a batch per
        transaction (``controller.hub.dice_backfill``); returns how many it checked."""
        done = 0
        try:
            while n := await self._retrying(check_unchecked, self.dice_batch):
                done += n
                self.counters.dice_checked = done
        except Exception as err:  # never the end of the hub: the next start carries on
            log.error("hub: the dice check of stored hands stopped", error=str(err), n=done)
            return done
        if done:
            log.info("hub: dice checked of hands stored before the check", n=done)
        return done

    async def _subscribe(self, client: aiomqtt.Client) -> None:
        await client.subscribe(self.filter, qos=1)
        await client.subscribe(self.status_filter, qos=1)
        await client.subscribe(self.request_filter, qos=1)
        await client.subscribe(self.members_filter, qos=1)
        await client.subscribe(self.house_ack_filter, qos=1)
        self._house_sent.clear()  # (retained: once more on each connection is cheap)
        log.info("hub subscribed", filter=self.filter)

    def _session(self, client: aiomqtt.Client) -> tuple[Coroutine[Any, Any, None], ...]:
        # Bounded: while the database is slow, the broker holds the rest (QoS 1 flow control).
        queue: asyncio.Queue[Item] = asyncio.Queue(maxsize=2 * self.batch_max)
        return self._receive(client, queue), self._write(client, queue), self._house(client)

    async def _receive(self, client: aiomqtt.Client, queue: asyncio.Queue[Item]) -> None:
        async for message in client.messages:
            topic = message.topic.value
            raw = message.payload if isinstance(message.payload, bytes) else b""
            if topic.endswith("/status"):
                self._status(topic, raw)
                continue
            if topic.endswith("/" + REQUEST_NAME):
                await self.restores.answer(client, topic, raw)
                continue
            if topic.endswith("/" + MEMBERS_NAME):
                await self._members(topic, raw)
                continue
            if topic.endswith("/" + HOUSE_ACK_NAME):
                await self._house_ack(topic, raw)
                continue
            self.counters.received += 1
            await queue.put(self._parse(topic, raw))

    async def _members(self, topic: str, raw: bytes) -> None:
        table = topic.split("/")[-2]
        try:
            snapshot = parse_members(raw)
            await self._retrying(partial(apply_members, table=table), snapshot)
        except MembersError as err:
            log.warning("member registry refused", table=table, error=str(err))
        except Exception as err:  # never the end of the hub
            log.error("member registry not stored", table=table, error=str(err))

    async def _house(self, client: aiomqtt.Client) -> None:
        """Each table's assigned house ruleset, retained, whenever it changed (a save or an
        assignment on the owners' page; ``house_wake`` looks at once)."""
        rules = HouseRules(self.store)
        root = self.settings.topic_root
        while True:
            try:
                found = await asyncio.to_thread(_assigned_rules, rules)
            except Exception as err:  # the database away: the next look
                log.warning("hub: house rulesets not read", error=str(err))
                found = []
            for table, payload in found:
                text = encode(payload)
                if self._house_sent.get(table) == text:
                    continue
                topic = hub_house_topic(self.parlour, table, root)
                await client.publish(topic, text, qos=1, retain=True)
                self._house_sent[table] = text
                log.info("house ruleset sent", table=table, name=payload["name"])
            self.house_wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.house_wake.wait(), 1.0)

    async def _house_ack(self, topic: str, raw: bytes) -> None:
        table = topic.split("/")[-2]
        try:
            applied, problem, software = parse_ack(raw)
            if software is not None and re.fullmatch(ID_PATTERN, table):
                self.software[table] = software
            rules = HouseRules(self.store)
            await asyncio.to_thread(rules.report_applied, table, applied, problem)
        except HouseSyncError as err:
            log.warning("house ruleset answer refused", table=table, error=str(err))
        except Exception as err:  # never the end of the hub
            log.error("house ruleset answer not stored", table=table, error=str(err))

    def _status(self, topic: str, raw: bytes) -> None:
        table = topic.split("/")[-2]
        state = version = None
        if len(raw) <= 256:
            with contextlib.suppress(ValueError):
                data = json.loads(raw)
                state = data.get("state") if isinstance(data, dict) else None
                version = data.get("version") if isinstance(data, dict) else None
        if state in ("online", "offline") and re.fullmatch(ID_PATTERN, table):
            self.statuses[table] = state
            if isinstance(version, str) and SOFTWARE.fullmatch(version):
                self.software[table] = version  # (also in its house_rules_ack)

    @staticmethod
    def _parse(topic: str, raw: bytes) -> Item:
        try:
            return topic, parse_handlog(raw, topic=topic)
        except HandlogError as err:
            return Refused.of(topic, str(err), raw, err.hand_id)
        except Exception as err:  # a bug of ours must not end the hub: keep the message
            return Refused.of(topic, f"unexpected: {type(err).__name__}: {err}", raw)

    async def _write(self, client: aiomqtt.Client, queue: asyncio.Queue[Item]) -> None:
        while True:
            batch = [await queue.get()]
            while len(batch) < self.batch_max and not queue.empty():
                batch.append(queue.get_nowait())
            accepted = [item for item in batch if not isinstance(item, Refused)]
            refused = [item for item in batch if isinstance(item, Refused)]
            result = await self._store(accepted)
            # (two tables may send the same id: each is acked on its own topic)
            topics: dict[str, set[str]] = {}
            for topic, sent in accepted:
                topics.setdefault(sent.hand_id, set()).add(topic)
            logs = {sent.hand_id: sent for _, sent in accepted}
            refused += [
                Refused.whole(min(topics[hid]), reason, logs[hid])
                for hid, reason in result.rejected.items()
            ]
            await self._quarantine(refused)
            self.counters.batches += 1
            self.counters.stored += len(result.stored)
            self.counters.duplicates += len(result.duplicates)
            if result.stored:
                log.info(
                    "hands stored",
                    n=len(result.stored),
                    tables=sorted({log.table for _, log in accepted}),
                )
            acks = [
                (ack_topic_for(topic), build_ack(hid))
                for hid in result.acked
                for topic in sorted(topics[hid])
            ]
            acks += [
                (ack_topic_for(r.topic), build_ack(r.hand_id) | {"rejected": r.reason})
                for r in refused
                if r.hand_id is not None
            ]
            await self._ack(client, list({(t, a["hand_id"]): (t, a) for t, a in acks}.values()))

    async def _ack(self, client: aiomqtt.Client, acks: list[tuple[str, dict[str, Any]]]) -> None:
        # QoS 1 acks, a few in flight at a time (the client warns beyond ten pending);
        # a lost one only means a re-send.
        for start in range(0, len(acks), ACKS_IN_FLIGHT):
            await asyncio.gather(
                *(
                    client.publish(topic, encode(ack), qos=1)
                    for topic, ack in acks[start : start + ACKS_IN_FLIGHT]
                )
            )

    async def _quarantine(self, refused: list[Refused]) -> None:
        if not refused:
            return
        for r in refused:
            log.error("handlog quarantined", topic=r.topic, hand_id=r.hand_id, reason=r.reason)
        self.counters.rejected += len(refused)
        try:
            await self._retrying(quarantine, refused)
        except Exception as err:  # never in the way of the next batch
            log.error("hub: quarantine not written", error=str(err), n=len(refused))

    async def _store(self, batch: list[Accepted]) -> StoreResult:
        """Store the batch; if the database refuses it (not merely unreachable), hand by hand,
        so that only the hand it refuses is rejected."""
        logs = [log for _, log in batch]
        if not logs:
            return StoreResult([], [])
        try:
            started = time.perf_counter()
            result = await self._retrying(store_handlogs, logs)
            log.debug(
                "handlogs written", n=len(logs), ms=round(1000 * (time.perf_counter() - started), 1)
            )
            return result
        except Exception as err:
            if len(logs) == 1:
                reason = f"the database refused it: {type(err).__name__}: {err}"
                return StoreResult([], [], {logs[0].hand_id: reason})
        parts = [await self._store([one]) for one in batch]
        return StoreResult(
            [h for r in parts for h in r.stored],
            [h for r in parts for h in r.duplicates],
            {h: why for r in parts for h, why in r.rejected.items()},
        )

    async def _retrying(self, write: Callable[[Engine, Rows], Out], rows: Rows) -> Out:
        """``write(engine, rows)`` in a thread, again and again while the database is
        unreachable; any other error is raised."""
        delay = 0.5
        while True:
            try:
                return await asyncio.to_thread(write, self.store.engine, rows)
            except UNREACHABLE as err:  # the database is down: keep the batch
                self.counters.db_failures += 1
                log.warning("hub: storing failed, will retry", error=str(err), retry_in=delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, DB_RETRY_MAX)


def _assigned_rules(rules: HouseRules) -> list[tuple[str, dict[str, Any]]]:
    """(table, the house_rules message) for every assigned table."""
    saved = {r.name: r for r in rules.all()}
    return [
        (a.table_id, build_house(saved[a.name], a)) for a in rules.assignments() if a.name in saved
    ]
