"""Tables and the hub through a real Mosquitto into a real PostgreSQL: hands stored once,
acknowledged back to each table, re-sent after a table's, the hub's or the broker's outage."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable, Sequence

import aiomqtt
import pytest
from sqlalchemy import Engine

import controller.hub.service as service
from controller.hub.ingest import StoreResult, store_handlogs
from controller.mqtt import encode
from controller.store import EventStore
from controller.table.handlog import Handlog, build_handlog
from tests.controller.hub.tables import (
    PARLOUR,
    Table,
    hub_counts,
    start_hub,
    stop_hub,
    stored_ids,
)
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, until

pytestmark = pytest.mark.timeout(240)


def test_tables_to_hub_stored_once_and_acked(
    mosquitto: Mosquitto, hub_store: EventStore, make_table: Callable[..., Table]
) -> None:
    tables = [make_table(name, mosquitto.url) for name in ("t1", "t2")]

    async def main() -> None:
        hub, hub_task = start_hub(hub_store, mosquitto.url)
        await guarded(hub.connected.wait(), "the hub to subscribe")
        for i, table in enumerate(tables):
            table.start()
            table.play(3, seed=i)
        for table in tables:
            await until(table.all_acked, f"{table.name}'s hands acknowledged")
        assert stored_ids(hub_store) == sorted(h for t in tables for h in t.hands)

        # The same hand again (a re-send): acknowledged, not stored twice.
        first = tables[0].store.load_hand(tables[0].hands[0])
        payload = encode(build_handlog(first, parlour=PARLOUR, table="t1"))
        async with aiomqtt.Client("127.0.0.1", mosquitto.port) as client:
            await client.publish(tables[0].topics.topic("handlog"), payload, qos=1)
            await client.publish(tables[0].topics.topic("handlog"), payload, qos=1)
        await until(lambda: hub.counters.duplicates >= 2, "the duplicates to be seen")
        assert hub_counts(hub_store)[0] == 6 and hub.counters.stored == 6

        # A table cannot report another's hands; garbage is refused, never acknowledged.
        async with aiomqtt.Client("127.0.0.1", mosquitto.port) as client:
            await client.publish(tables[1].topics.topic("handlog"), payload, qos=1)
            await client.publish(tables[1].topics.topic("handlog"), b"{}", qos=1)
        await until(lambda: hub.counters.rejected >= 2, "the bad payloads to be refused")

        for table in tables:
            await table.stop()
        await stop_hub(hub, hub_task)
        # Every event of every hand, in order.
        for table in tables:
            for hid in table.hands:
                assert hub_store.load_hand(hid).event_dicts() == (
                    table.store.load_hand(hid).event_dicts()
                )

    asyncio.run(main())


def test_table_offline_then_back(
    mosquitto: Mosquitto, hub_store: EventStore, make_table: Callable[..., Table]
) -> None:
    table = make_table("t1", mosquitto.url)

    async def main() -> None:
        hub, hub_task = start_hub(hub_store, mosquitto.url)
        await guarded(hub.connected.wait(), "the hub to subscribe")
        table.start()
        table.play(2, seed=1)
        await until(table.all_acked, "the first hands acknowledged")

        await table.stop()  # offline: the network is down, or the Pi is off
        table.play(3, seed=2)  # the handlogs wait in the outbox
        table.play(1, seed=3, publish=False)  # cut off before its handlog was queued
        assert len(table.store.unacked_handlogs()) == 4

        table.start()  # back: the outbox drains and the sync re-sends every unacked hand
        await until(table.all_acked, "the offline hands acknowledged")
        await until(lambda: hub_counts(hub_store)[0] == 6, "all six hands stored")
        await table.stop()
        await stop_hub(hub, hub_task)
        assert stored_ids(hub_store) == sorted(table.hands)
        assert hub.counters.stored == 6  # each hand stored once, however often it came

    asyncio.run(main())


def test_hub_and_broker_outage(
    mosquitto_factory: Callable[..., Mosquitto],
    hub_store: EventStore,
    make_table: Callable[..., Table],
) -> None:
    broker = mosquitto_factory()
    table = make_table("t3", broker.url, resend_after=0.3)

    async def main() -> None:
        hub, hub_task = start_hub(hub_store, broker.url)
        await guarded(hub.connected.wait(), "the hub to subscribe")
        await stop_hub(hub, hub_task)  # down, with its persistent session on the broker

        table.start()
        table.play(2, seed=4)
        assert table.publisher is not None
        await guarded(table.publisher.wait_drained(), "the handlogs to reach the broker")
        hub, hub_task = start_hub(hub_store, broker.url)  # gets what the broker kept
        await until(table.all_acked, "the queued hands acknowledged")

        await stop_hub(hub, hub_task)
        table.play(2, seed=5)
        await guarded(table.publisher.wait_drained(), "the handlogs to reach the broker")
        broker.kill()  # no persistence: the hub's queue is gone with the broker
        broker.start()
        hub, hub_task = start_hub(hub_store, broker.url)
        # The table re-sends what stays unacknowledged, whoever reconnected first.
        await until(table.all_acked, "the lost hands re-sent and acknowledged")
        await table.stop()
        await stop_hub(hub, hub_task)
        assert stored_ids(hub_store) == sorted(table.hands)

    asyncio.run(main())


def test_database_outage_keeps_the_batch(
    mosquitto: Mosquitto,
    hub_store: EventStore,
    make_table: Callable[..., Table],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = make_table("t4", mosquitto.url)
    failures = 0

    def flaky(engine: Engine, logs: Sequence[Handlog]) -> StoreResult:
        nonlocal failures
        if failures < 2:
            failures += 1
            raise ConnectionError("database is down")
        return store_handlogs(engine, logs)

    monkeypatch.setattr(service, "store_handlogs", flaky)

    async def main() -> None:
        hub, hub_task = start_hub(hub_store, mosquitto.url)
        await guarded(hub.connected.wait(), "the hub to subscribe")
        table.start()
        table.play(2, seed=6)
        await until(table.all_acked, "the hands stored once the database is back")
        assert hub.counters.db_failures == 2
        await table.stop()
        await stop_hub(hub, hub_task)

    asyncio.run(main())
    assert stored_ids(hub_store) == sorted(table.hands)


def test_a_hub_down_gets_fewer_and_fewer_copies(
    mosquitto: Mosquitto, make_table: Callable[..., Table]
) -> None:
    """While nobody acks, each further copy of a hand waits twice as long: a hub down for
    days is not sent every hand played meanwhile again each minute."""
    table = make_table("t6", mosquitto.url, resend_after=0.2)
    copies: list[float] = []

    async def main() -> None:
        async with aiomqtt.Client("127.0.0.1", mosquitto.port) as watcher:
            await watcher.subscribe(table.topics.topic("handlog"), qos=1)
            table.start()
            assert table.sync is not None
            await guarded(table.sync.connected.wait(), "the table's sync to connect")
            table.play(1, seed=8)
            loop = asyncio.get_running_loop()
            start = loop.time()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(4.0):
                    async for _ in watcher.messages:
                        copies.append(loop.time() - start)
            await table.stop()

    asyncio.run(main())
    # the publisher's copy, then re-sends 0.2, 0.4, 0.8, 1.6 s after the one before
    # (without the doubling: one every 0.2 s, ~20)
    assert 4 <= len(copies) <= 7, copies
    gaps = [b - a for a, b in itertools.pairwise(copies[1:])]
    assert all(later > earlier * 1.5 for earlier, later in itertools.pairwise(gaps)), gaps
    assert table.sync is not None
    assert table.sync.wait_after(1) == 0.2 and table.sync.wait_after(3) == 0.8
    assert table.sync.wait_after(100) == 3600.0
