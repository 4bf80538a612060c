"""Tables and the hub through a real Mosquitto into a real PostgreSQL: hands stored once,
acknowledged back to each table, re-sent after a table's, the hub's or the broker's outage."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import aiomqtt
import pytest
from sqlalchemy import Engine, func, select

import controller.hub.service as service
from controller.handlog import Handlog, build_handlog
from controller.handlog_sync import HandlogSync
from controller.hub import HubIngest, StoreResult, store_handlogs
from controller.mqtt import Publisher, Topics, encode
from controller.store import EventStore
from controller.store.models import EventRow, HandRow
from tests.controller.hub.hands import finish_and_publish, played_hands, record_hand
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, settings, until

pytestmark = pytest.mark.timeout(240)
PARLOUR = "p1"


@dataclass
class Table:
    """A table's storage and its two MQTT tasks, as the table service runs them."""

    name: str
    store: EventStore
    url: str
    resend_after: float = 60.0
    session_id: str = ""
    hands: list[str] = field(default_factory=list)
    publisher: Publisher | None = None
    sync: HandlogSync | None = None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def topics(self) -> Topics:
        return Topics(PARLOUR, self.name)

    def start(self) -> None:
        mqtt = settings(self.url)
        self.publisher = Publisher(
            self.store, mqtt, self.topics, client_id=f"mjtable-{PARLOUR}-{self.name}"
        )
        self.sync = HandlogSync(self.store, mqtt, self.topics, resend_after=self.resend_after)
        self.tasks = [
            asyncio.create_task(self.publisher.run()),
            asyncio.create_task(self.sync.run()),
        ]

    async def stop(self) -> None:
        assert self.publisher is not None and self.sync is not None
        self.publisher.stop(drain_timeout=0.1)
        self.sync.stop()
        await guarded(asyncio.gather(*self.tasks), f"{self.name} to stop")

    def play(self, n: int, *, seed: int, publish: bool = True) -> list[str]:
        """Finish ``n`` hands; ``publish=False``: a crash before the handlog reached the outbox."""
        if not self.session_id:
            self.session_id = self.store.start_session(
                ruleset="xingguo", parlour=PARLOUR, table_id=self.name
            )
        new = []
        for events in played_hands(n, seed=seed):
            hand_no = len(self.hands) + 1
            if publish:
                assert self.publisher is not None
                hid = finish_and_publish(
                    self.store,
                    self.publisher,
                    events,
                    parlour=PARLOUR,
                    table=self.name,
                    session_id=self.session_id,
                    hand_no=hand_no,
                )
            else:
                hid = record_hand(self.store, events, session_id=self.session_id, hand_no=hand_no)
            self.hands.append(hid)
            new.append(hid)
        return new

    def all_acked(self) -> bool:
        return not self.store.unacked_handlogs()


@pytest.fixture
def make_table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    made: list[Table] = []

    def make(name: str, url: str, **kw: float) -> Table:
        store = EventStore.open(f"sqlite:///{tmp_path / name / 'mjtable.db'}")
        table = Table(name, store, url, **kw)
        made.append(table)
        return table

    yield make
    for table in made:
        table.store.close()


@pytest.fixture
def hub_store(pg_url: str) -> Iterator[EventStore]:
    store = EventStore.open(pg_url)
    yield store
    store.close()


def hub_counts(store: EventStore) -> tuple[int, int]:
    with store.engine.connect() as c:
        hands = c.scalar(select(func.count()).select_from(HandRow)) or 0
        events = c.scalar(select(func.count()).select_from(EventRow)) or 0
    return hands, events


def stored_ids(store: EventStore) -> list[str]:
    with store.engine.connect() as c:
        return sorted(c.scalars(select(HandRow.id)))


def start_hub(store: EventStore, url: str) -> tuple[HubIngest, asyncio.Task[None]]:
    hub = HubIngest(store, settings(url), parlour=PARLOUR)
    return hub, asyncio.create_task(hub.run())


async def stop_hub(hub: HubIngest, task: asyncio.Task[None]) -> None:
    hub.stop()
    await guarded(task, "the hub to stop")


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
