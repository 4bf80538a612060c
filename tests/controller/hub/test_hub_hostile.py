"""One table account trying to take the hub down: malformed,
oversized and out-of-range handlogs published through a real Mosquitto to a hub on a real
PostgreSQL while two honest tables play. Every honest hand is stored; every hostile message
is quarantined with its reason and, when it named a hand, acknowledged as rejected."""

from __future__ import annotations

import asyncio
import copy
import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import aiomqtt
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, Row, select

import controller.hub.service as service
from controller.hub.ingest import StoreResult, store_handlogs
from controller.mqtt import Topics, encode
from controller.store import EventStore
from controller.store.models import HANDS, QUARANTINED_HANDLOGS, SESSIONS
from controller.store.owners import OwnerAccounts
from controller.table.handlog import Handlog, ack_topic_for, build_handlog
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from tests.controller.hub.tables import PARLOUR, Table, start_hub, stop_hub, stored_ids
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, until

pytestmark = pytest.mark.timeout(300)

# Values each field of a handlog must refuse.
HOSTILE_VALUES: list[Any] = [
    10**30,
    -1,
    "\x00",
    "x\x00y",
    "9999-12-31T23:59:59-23:59",
    "0001-01-01T00:00:00+23:59",
    "x" * 5000,
    1e308 * 10,  # inf once encoded
    [],
    {},
    None,
    True,
    "",
    "a/b/#",
    json.loads("[" * 20 + "]" * 20),  # deeper than a handlog may nest
]
RAW_HOSTILE = [
    b"[" * 200_000 + b"]" * 200_000,
    b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    b"\xff\xfe{",
    b"NaN",
    b'{"format": "mjtable.handlog", "version": 1, "hand_no": Infinity}',
    b" " * (1 << 20) + b"{}",
    b"",
]


def mutations(template: dict[str, Any], n: int, seed: int) -> list[bytes]:
    """``n`` copies of a valid handlog, each with a fresh hand id and number (``table_seq``:
    a table numbers a hand once) and one field (at the top, in an event or in the
    settlement) replaced by a hostile value."""
    rng = random.Random(seed)
    out = []
    known = [  # hostile handlogs sent as they are, before the fuzzed ones
        {"hand_no": 10**30},
        {"ruleset": "xingguo\x00"},
        {"started_at": "9999-12-31T23:59:59-23:59"},
    ]
    for i, change in enumerate(known):
        fresh = {"hand_id": f"known{seed}x{i}", "table_seq": 1000 + i}
        out.append(json.dumps(template | change | fresh).encode())
    for i in range(n):
        log = copy.deepcopy(template)
        log["hand_id"] = f"fuzz{seed}x{i}"
        log["table_seq"] = 2000 + i
        where = rng.choice(["top", "event", "settlement"])
        value = rng.choice(HOSTILE_VALUES)
        if where == "top":
            log[rng.choice(sorted(log))] = value
        elif where == "event":
            event = rng.choice(log["events"])
            event[rng.choice([*sorted(event), "extra\x00key"])] = value
        else:
            log["settlement"][rng.choice([*sorted(log["settlement"]), "net"])] = value
        out.append(json.dumps(log, allow_nan=True).encode())
    return out


def quarantined(store: EventStore) -> list[Row[Any]]:
    with store.engine.connect() as c:
        return list(c.execute(select(QUARANTINED_HANDLOGS)).all())


def hands_of(store: EventStore, table: str) -> list[str]:
    with store.engine.connect() as c:
        return sorted(c.scalars(select(HANDS.c.id).where(HANDS.c.table_id == table)))


def test_hostile_handlogs_are_quarantined_and_never_block_the_others(
    mosquitto: Mosquitto, hub_store: EventStore, make_table: Callable[..., Table]
) -> None:
    honest = [make_table(name, mosquitto.url) for name in ("t1", "t2")]
    attacker = make_table("t9", mosquitto.url)
    attacker.play(1, seed=9, publish=False)
    first = attacker.store.load_hand(attacker.hands[0])
    template = build_handlog(first, parlour=PARLOUR, table="t9")
    fuzz = mutations(template, 150, seed=21)
    hostile = RAW_HOSTILE + fuzz
    topic = Topics(PARLOUR, "t9").topic("handlog")
    acks: list[dict[str, Any]] = []

    async def main() -> None:
        hub, hub_task = start_hub(hub_store, mosquitto.url)
        await guarded(hub.connected.wait(), "the hub to subscribe")
        for table in honest:
            table.start()
        async with aiomqtt.Client("127.0.0.1", mosquitto.port) as client:
            await client.subscribe(ack_topic_for(topic), qos=1)

            async def collect() -> None:
                async for message in client.messages:
                    assert isinstance(message.payload, bytes)
                    acks.append(json.loads(message.payload))

            collector = asyncio.create_task(collect())
            for i, payload in enumerate(hostile):
                await client.publish(topic, payload, qos=1)
                if i % 20 == 0:  # honest hands in between
                    for n, table in enumerate(honest):
                        table.play(1, seed=100 + 10 * i + n)
            for table in honest:
                await until(table.all_acked, f"{table.name}'s hands acknowledged")
            await until(
                lambda: hub.counters.received >= len(hostile) + sum(len(t.hands) for t in honest),
                "every message received",
            )
            c = hub.counters
            await until(
                lambda: c.stored + c.duplicates + c.rejected >= c.received, "every one written"
            )
            await until(lambda: len(acks) >= c.rejected - 8, "the rejections acknowledged")
            await asyncio.sleep(0.3)  # the last acks in flight
            collector.cancel()
        assert not hub_task.done(), "the hub must still run"
        for table in honest:
            await table.stop()
        await stop_hub(hub, hub_task)

    asyncio.run(main())
    for table in honest:
        assert hands_of(hub_store, table.name) == sorted(table.hands)
    rows = quarantined(hub_store)
    stored_fuzz = hands_of(hub_store, "t9")
    # Each hostile message either passed every bound (a harmless field replaced) and was
    # stored, or was quarantined: none lost, none retried for ever.
    assert len(rows) + len(stored_fuzz) == len(hostile)
    assert len(rows) >= len(RAW_HOSTILE) + len(fuzz) // 2
    assert all(r.reason and r.topic == topic and r.table_id == "t9" for r in rows)
    assert {r.hand_id for r in rows if r.hand_id} == {a["hand_id"] for a in acks if "rejected" in a}
    reasons = " | ".join(r.reason for r in rows)
    for expected in ("nested 200000 deep", "handlog.hand_no", "NUL", "out of range", "not JSON"):
        assert expected in reasons
    # The owners see them in the hub's web app.
    OwnerAccounts(hub_store).add("boss", hash_password("a long enough secret"))
    app = create_app(hub_store, LiveHub(), WebAppSettings(hub=True, secret_key=b"k" * 32))
    with TestClient(app) as client:
        login = {"name": "boss", "password": "a long enough secret"}
        assert client.post("/api/v1/auth/login", json=login).status_code == 200
        shown = client.get("/api/v1/quarantine", params={"limit": 1000}).json()
    assert len(shown) == len(rows) and {s["reason"] for s in shown} == {r.reason for r in rows}


@pytest.mark.parametrize("first", ["owner", "forger"])
def test_a_table_cannot_write_into_another_tables_session_or_hand(
    mosquitto: Mosquitto, hub_store: EventStore, make_table: Callable[..., Table], first: str
) -> None:
    """t2 (its own account, its own topic) sends hands naming t1's session and one of t1's
    hand ids (both public on t1's display), after t1 sent them or before. Each table's log
    holds its own hands only, and every one of them."""
    t1, t2 = make_table("t1", mosquitto.url), make_table("t2", mosquitto.url)

    async def forge() -> None:
        t2.play(2, seed=2, publish=False)
        async with aiomqtt.Client("127.0.0.1", mosquitto.port) as client:
            for n, hid in enumerate(t2.hands):
                log = build_handlog(t2.store.load_hand(hid), parlour=PARLOUR, table="t2")
                log["session_id"] = t1.session_id
                if n == 1:
                    log["hand_id"] = t1.hands[0]
                await client.publish(t2.topics.topic("handlog"), encode(log), qos=1)

    async def main() -> None:
        hub, hub_task = start_hub(hub_store, mosquitto.url)
        await guarded(hub.connected.wait(), "the hub to subscribe")
        t1.play(2, seed=1, publish=False)  # the ids exist (and are on t1's display)
        if first == "forger":
            await forge()
            await until(lambda: hub.counters.stored >= 2, "the forged hands stored")
        t1.start()  # sends its unacknowledged hands
        await until(t1.all_acked, "t1's hands acknowledged")
        if first == "owner":
            await forge()
            await until(lambda: hub.counters.stored >= 4, "the forged hands stored")
        await t1.stop()
        await stop_hub(hub, hub_task)

    asyncio.run(main())
    assert quarantined(hub_store) == []
    with hub_store.engine.connect() as c:
        rows = c.execute(select(HANDS.c.table_id, HANDS.c.session_id)).all()
        owners = dict(c.execute(select(SESSIONS.c.id, SESSIONS.c.table_id)).all())
    assert sorted(table for table, _ in rows) == ["t1", "t1", "t2", "t2"]
    assert all(owners[session] == table for table, session in rows)  # never a mixed session
    in_t1_session = sorted(h.id for h in hub_store.list_hands(session_id=t1.session_id))
    if first == "owner":  # t1 holds its ids; t2's hands went under ids of t2's own
        assert in_t1_session == sorted(t1.hands)
        assert set(t1.hands) <= set(stored_ids(hub_store))
    else:  # t2 took the ids first: t1's hands are stored under ids of t1's own
        assert owners[t1.session_id] == "t2" and len(in_t1_session) == 2


def test_a_hand_the_database_refuses_is_quarantined_alone(
    mosquitto: Mosquitto,
    hub_store: EventStore,
    make_table: Callable[..., Table],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever slips past validation and makes the database refuse the batch costs only
    that hand: the batch is retried hand by hand."""
    table = make_table("t5", mosquitto.url)
    poisoned: list[str] = []

    def refusing(engine: Engine, logs: Sequence[Handlog]) -> StoreResult:
        if any(log.hand_id in poisoned for log in logs):
            raise ValueError("value out of range for the column")
        return store_handlogs(engine, logs)

    monkeypatch.setattr(service, "store_handlogs", refusing)

    async def main() -> None:
        table.play(4, seed=3, publish=False)
        poisoned.append(table.hands[1])
        hub, hub_task = start_hub(hub_store, table.url)
        await guarded(hub.connected.wait(), "the hub to subscribe")
        table.start()  # re-sends all four unacknowledged hands at once
        await until(table.all_acked, "every hand acknowledged (one as rejected)")
        await table.stop()
        await stop_hub(hub, hub_task)

    asyncio.run(main())
    assert stored_ids(hub_store) == sorted(h for h in table.hands if h not in poisoned)
    [row] = quarantined(hub_store)
    assert row.hand_id == poisoned[0] and "value out of range" in row.reason
