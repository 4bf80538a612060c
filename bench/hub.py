"""The parlour hub under load: N simulated tables through one Mosquitto into PostgreSQL.

1. A throwaway PostgreSQL cluster (fsync on, as in production) and a Mosquitto, both local.
2. Real hands: the engine's bots play them once; every send replays one with new ids.
3. Bulk load: ``--bulk`` finished hands (default 1,000,000) with their settlements and
   sessions, spread over the tables and the past year, by COPY (no events for these: the
   owner queries read hands and settlements only).
4. The hub (``HubIngest``, its own process) and the tables (``--procs`` processes, each
   running its share of tables as separate MQTT clients) publish at ``--speedup`` times a
   real table's pace (a hand every ``--hand-seconds``) for ``--duration`` seconds. Lag is
   send -> the hub's ack back at the table (stored, committed, acknowledged), end to end.
5. Flood: every table re-sends ``--backlog`` hands at once (as after an outage): the hub's
   ceiling in hands/s.
6. Owner queries over everything stored: a table's hand log by date with filters, per-seat
   totals, the list of tables; p50/p99 each.

    .venv/bin/python bench/hub.py --quick   # smoke: 20 tables, 100k hands, ~1 min
    .venv/bin/python bench/hub.py           # 200 tables at 10x, 1M hands, a few minutes
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import multiprocessing as mp
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiomqtt

from controller.config import MqttSettings
from controller.mqtt.topics import Topics, encode
from controller.store import EventStore
from controller.table.handlog import build_handlog, parse_ack

PARLOUR = "bench"
RULESETS = ("xingguo", "guangdong")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# --- real hands ------------------------------------------------------------------------------


def make_templates(n: int) -> list[dict[str, Any]]:
    """``n`` handlog payloads of hands the bots really played (ids and times replaced later)."""
    from tests.controller.hub.hands import played_hands, record_hand

    store = EventStore.open("sqlite://")
    out = []
    per = max(1, n // len(RULESETS))
    for ruleset in RULESETS:
        for i, events in enumerate(played_hands(per, ruleset=ruleset, seed=11)):
            hid = record_hand(store, events, hand_no=i + 1)
            out.append(build_handlog(store.load_hand(hid), parlour=PARLOUR, table="t"))
    store.close()
    return out


def replay(template: dict[str, Any], table: str, session_id: str, hand_no: int) -> dict[str, Any]:
    now = datetime.now(UTC)
    return template | {
        "table": table,
        "hand_id": uuid.uuid4().hex,
        "session_id": session_id,
        "hand_no": hand_no,
        "started_at": (now - timedelta(minutes=5)).isoformat(),
        "finished_at": now.isoformat(),
    }


# --- bulk load -----------------------------------------------------------------------------


def bulk_load(dsn: str, hands: int, tables: int, seed: int = 1) -> float:
    """COPY ``hands`` finished hands (with settlements and sessions); returns seconds."""
    import psycopg

    rng = random.Random(seed)
    started = time.perf_counter()
    end = datetime.now(UTC) - timedelta(days=1)
    per_table = hands // tables
    per_session = 16
    gap = timedelta(days=365) / per_table  # a year of play, evenly
    results = ("win", "win", "win", "self_draw", "self_draw", "draw")
    with psycopg.connect(dsn) as conn, conn.cursor() as cur:
        hand_buf, sett_buf, sess_buf = io.StringIO(), io.StringIO(), io.StringIO()
        stats_buf = io.StringIO()
        for t in range(tables):
            table = f"t{t + 1:03d}"
            at = end - gap * per_table
            session = ""
            for i in range(per_table):
                if i % per_session == 0:
                    session = uuid.uuid4().hex
                    sess_buf.write(
                        f"{session}\t{PARLOUR}\t{table}\txingguo\t{{}}\t\\N\t{at.isoformat()}\t"
                        f"{(at + gap * per_session).isoformat()}\n"
                    )
                hid = uuid.uuid4().hex
                result = rng.choice(results)
                winner = "\\N" if result == "draw" else str(rng.randrange(4))
                discarder = str(rng.randrange(4)) if result == "win" else "\\N"
                ended = at + timedelta(minutes=5)
                net = [0, 0, 0, 0]
                if result != "draw":
                    w = int(winner)
                    for s in range(4):
                        if s != w:
                            loss = rng.randrange(1, 20)
                            net[s] -= loss
                            net[w] += loss
                hand_buf.write(
                    f"{hid}\t{session}\t{i % per_session + 1}\txingguo\t{rng.randrange(4)}\t"
                    f"finished\t{result}\t{winner}\t{discarder}\t{at.isoformat()}\t"
                    f"{ended.isoformat()}\t\\N\t{ended.isoformat()}\t{PARLOUR}\t{table}\t"
                    + "\t".join(map(str, net))
                    + "\n"
                )
                payload = json.dumps({"net": net, "lines": [], "void": False})
                sett_buf.write(
                    f"{hid}\txingguo\tfalse\t{net[0]}\t{net[1]}\t{net[2]}\t{net[3]}\t"
                    f"{payload}\t{ended.isoformat()}\n"
                )
                at += gap
            # The table's row of the owners' list (what every write keeps current).
            first, last = end - gap * per_table, at - gap
            sessions = (per_table + per_session - 1) // per_session
            stats_buf.write(
                f"{table}\t{PARLOUR}\t{sessions}\t{per_table}\t0\t"
                f"{first.isoformat()}\t{last.isoformat()}\n"
            )
            if (t + 1) % 20 == 0 or t == tables - 1:
                _copy(cur, sess_buf, hand_buf, sett_buf, stats_buf)
                sess_buf, hand_buf, sett_buf = io.StringIO(), io.StringIO(), io.StringIO()
                stats_buf = io.StringIO()
        conn.commit()
        conn.autocommit = True
        # What autovacuum does to an insert-only table soon after (PostgreSQL >= 13): the
        # visibility map lets the per-table queries scan the index alone.
        cur.execute("VACUUM (ANALYZE)")
    return time.perf_counter() - started


def _copy(cur: Any, *buffers: io.StringIO) -> None:
    """COPY the sessions, hands, settlements and table_stats rows in those buffers."""
    columns = {
        "sessions": "id, parlour, table_id, ruleset, options, players, started_at, ended_at",
        "hands": "id, session_id, hand_no, ruleset, dealer, status, result, winner, discarder, "
        "started_at, ended_at, note, handlog_acked_at, parlour, table_id, "
        "net_0, net_1, net_2, net_3",
        "settlements": "hand_id, ruleset, void, net_0, net_1, net_2, net_3, payload, created_at",
        "table_stats": "table_id, parlour, sessions, hands, open_hands, first_seen, last_seen",
    }
    for table, buf in zip(columns, buffers, strict=True):
        with cur.copy(f"COPY {table} ({columns[table]}) FROM STDIN") as copy:
            copy.write(buf.getvalue())


# --- the hub process -----------------------------------------------------------------------


def hub_process(db_url: str, mqtt_url: str, ready: Any, stop: Any, out: Any) -> None:
    from controller.hub.service import HubIngest
    from controller.process.logs import configure_logging

    configure_logging("warning")

    async def main() -> None:
        store = EventStore.open(db_url, migrate=False)
        hub = HubIngest(store, MqttSettings(url=mqtt_url, embedded=False), parlour=PARLOUR)
        task = asyncio.create_task(hub.run())
        await hub.connected.wait()
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.2)
        hub.stop()
        await task
        c = hub.counters
        out.put({"stored": c.stored, "duplicates": c.duplicates, "batches": c.batches})
        store.close()

    asyncio.run(main())


# --- the table processes -------------------------------------------------------------------


async def _table(
    name: str,
    port: int,
    templates: list[dict[str, Any]],
    interval: float,
    duration: float,
    backlog: int,
    flood_at: float,
    lags: list[float],
    flood: list[float],
) -> None:
    topics = Topics(PARLOUR, name)
    sent: dict[str, float] = {}
    flood_ids: set[str] = set()
    session = uuid.uuid4().hex
    rng = random.Random(name)
    hand_no = 0

    async with aiomqtt.Client("127.0.0.1", port, identifier=f"bench-{name}") as client:
        await client.subscribe(topics.prefix + "handlog_ack", qos=1)

        async def acks() -> None:
            async for m in client.messages:
                assert isinstance(m.payload, bytes)
                hid = parse_ack(m.payload)
                at = sent.pop(hid, None)
                if at is None:
                    continue
                if hid in flood_ids:
                    flood.append(time.time())
                else:
                    lags.append(time.time() - at)

        reader = asyncio.create_task(acks())

        async def send(record_flood: bool = False) -> None:
            nonlocal hand_no
            hand_no += 1
            payload = replay(rng.choice(templates), name, session, hand_no)
            text = encode(payload)
            if record_flood:
                flood_ids.add(payload["hand_id"])
            sent[payload["hand_id"]] = time.time()
            await client.publish(topics.topic("handlog"), text, qos=1)

        # Paced phase: a hand every `interval`, from a random phase (tables are not in step).
        start = time.monotonic()
        next_at = start + rng.uniform(0, interval)
        while next_at < start + duration:
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            await send()
            next_at += interval
        # Flood phase: all tables at the same wall-clock moment.
        await asyncio.sleep(max(0.0, flood_at - time.time()))
        for _ in range(backlog):
            await send(record_flood=True)
        deadline = time.monotonic() + 120  # bounded: the bench always stops
        while sent and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader


def tables_process(
    names: list[str],
    port: int,
    templates: list[dict[str, Any]],
    interval: float,
    duration: float,
    backlog: int,
    flood_at: float,
    out: Any,
) -> None:
    lags: list[float] = []
    flood: list[float] = []

    async def main() -> None:
        await asyncio.gather(
            *(
                _table(n, port, templates, interval, duration, backlog, flood_at, lags, flood)
                for n in names
            )
        )

    asyncio.run(main())
    out.put({"lags": lags, "flood_acks": flood})


# --- owner queries -------------------------------------------------------------------------


def owner_queries(db_url: str, tables: int, rounds: int) -> dict[str, list[float]]:
    """The owners' indexed queries: controller.store.tables (the web app's, at a Pi and the
    hub) and controller.hub.queries (the hub's own)."""
    from controller.hub.queries import seat_totals, table_ids
    from controller.store.tables import list_tables, table_hands, table_record

    store = EventStore.open(db_url, migrate=False)
    rng = random.Random(5)
    now = datetime.now(UTC)
    timings: dict[str, list[float]] = {}
    filters: list[dict[str, Any]] = [{}, {"result": "self_draw"}, {"seat": 2}, {"result": "win"}]

    def timed(name: str, call: Any) -> None:
        started = time.perf_counter()
        call()
        timings.setdefault(name, []).append(time.perf_counter() - started)

    try:
        # Untimed: the pool's connection opened and each statement compiled once, as in a
        # web app that has been up for more than one request.
        table_hands(store, "t001", limit=100)
        list_tables(store, default_table="hub")
        for i in range(rounds):
            table = f"t{rng.randrange(tables) + 1:03d}"
            since = now - timedelta(days=rng.randrange(31, 360))
            window = {"since": since, "until": since + timedelta(days=rng.choice((1, 7, 30)))}
            f = filters[i % len(filters)]
            timed("hub: hand log", partial(table_hands, store, table, limit=100, **window, **f))
            timed("hub: hand log, newest", partial(table_hands, store, table, limit=100, **f))
            timed("hub: seat totals", partial(seat_totals, store, table, **window))
            timed("hub: seat totals, all", partial(seat_totals, store, table))
            if i < max(5, rounds // 10):
                timed("hub: tables", partial(table_ids, store))
                web = {"default_table": "hub", "limit": 100, **window, **f}
                timed("web: hand log", partial(table_hands, store, table, **web))
                timed("web: list tables", partial(list_tables, store, default_table="hub"))
                one = partial(table_record, store, table, default_table="hub")
                timed("web: one table", one)
    finally:
        store.close()
    return timings


# --- main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run (~1 min)")
    parser.add_argument("--tables", type=int)
    parser.add_argument("--speedup", type=float, default=10.0)
    parser.add_argument("--hand-seconds", type=float, default=300.0)
    parser.add_argument("--duration", type=float, help="seconds of paced load")
    parser.add_argument("--procs", type=int, help="table processes")
    parser.add_argument("--bulk", type=int, help="hands bulk-loaded before the run")
    parser.add_argument("--backlog", type=int, help="hands each table re-sends in the flood")
    parser.add_argument("--templates", type=int, help="distinct real hands to replay")
    args = parser.parse_args()
    q = args.quick
    tables = args.tables or (20 if q else 200)
    duration = args.duration or (15.0 if q else 90.0)
    procs = args.procs or min(tables, 4 if q else 8)
    bulk = args.bulk if args.bulk is not None else (100_000 if q else 1_000_000)
    backlog = args.backlog if args.backlog is not None else (10 if q else 20)
    n_templates = args.templates or (20 if q else 100)
    interval = args.hand_seconds / args.speedup

    from tests.controller.mosquitto import Mosquitto
    from tests.controller.postgres import PostgresCluster

    print(
        f"hub bench: {tables} tables at {args.speedup:g}x (a hand every {interval:g} s each, "
        f"{tables / interval:.1f} hands/s offered), {duration:g} s, {procs} table processes"
    )
    t0 = time.perf_counter()
    templates = make_templates(n_templates)
    size = statistics.mean(len(encode(t)) for t in templates)
    events = statistics.mean(len(t["events"]) for t in templates)
    print(
        f"  {len(templates)} real hands played by the bots in {time.perf_counter() - t0:.1f} s"
        f" ({events:.0f} events, {size / 1024:.1f} KiB a handlog)"
    )

    cluster = PostgresCluster(
        durable=True, settings={"shared_buffers": "256MB", "random_page_cost": "1.1"}
    ).start()
    with tempfile.TemporaryDirectory() as tmp:
        broker = Mosquitto(Path(tmp))
        # The parlour's queue limits (deploy/mosquitto/mjtable.conf), not the default 1,000:
        # in the flood the hub's queue holds every table's backlog at once.
        with broker.conf.open("a") as conf:
            conf.write("max_queued_messages 10000\nmax_inflight_messages 100\n")
        broker.start()
        try:
            db_url = cluster.create_database("hub")
            EventStore.open(db_url).close()  # migrate
            dsn = f"host={cluster.root} port={cluster.port} user={cluster.superuser} dbname=hub"
            if bulk:
                took = bulk_load(dsn, bulk, tables)
                print(f"  bulk-loaded {bulk:,} hands in {took:.0f} s ({bulk / took:,.0f}/s, COPY)")
            run(args, db_url, broker, templates, tables, duration, procs, backlog, interval)
            timings = owner_queries(db_url, tables, 60 if q else 300)
            import psycopg

            with psycopg.connect(dsn) as conn:
                count = conn.execute("SELECT count(*) FROM hands").fetchone()
            stored = count[0] if count else 0
            print(f"owner queries over {stored:,} stored hands (p50 / p99, target p99 <= 50 ms):")
            for name, values in timings.items():
                print(
                    f"  {name:16} {1000 * pct(values, 0.5):7.1f} / {1000 * pct(values, 0.99):7.1f}"
                    f" ms  ({len(values)} queries)"
                )
        finally:
            broker.kill()
            cluster.stop()


def run(
    args: argparse.Namespace,
    db_url: str,
    broker: Any,
    templates: list[dict[str, Any]],
    tables: int,
    duration: float,
    procs: int,
    backlog: int,
    interval: float,
) -> None:
    ctx = mp.get_context("spawn")
    ready, stop, hub_out, out = ctx.Event(), ctx.Event(), ctx.Queue(), ctx.Queue()
    hub = ctx.Process(target=hub_process, args=(db_url, broker.url, ready, stop, hub_out))
    hub.start()
    if not ready.wait(60):
        raise SystemExit("the hub did not start")
    names = [f"t{i + 1:03d}" for i in range(tables)]
    # The flood starts once every table has finished its paced phase (+ start-up slack).
    flood_at = time.time() + duration + 20
    workers = [
        ctx.Process(
            target=tables_process,
            args=(
                names[i::procs],
                broker.port,
                templates,
                interval,
                duration,
                backlog,
                flood_at,
                out,
            ),
        )
        for i in range(procs)
    ]
    for w in workers:
        w.start()
    lags: list[float] = []
    flood_acks: list[float] = []
    for _ in workers:
        result = out.get(timeout=duration + 300)
        lags += result["lags"]
        flood_acks += result["flood_acks"]
    for w in workers:
        w.join(30)
    stop.set()
    counters = hub_out.get(timeout=60)
    hub.join(30)
    print(
        f"paced: {len(lags)} hands stored and acked, "
        f"{len(lags) / duration:.2f} hands/s sustained (offered {tables / interval:.2f})"
    )
    print(
        f"  end-to-end lag (send -> stored -> ack back): p50 {1000 * pct(lags, 0.5):.0f} ms, "
        f"p99 {1000 * pct(lags, 0.99):.0f} ms, max {1000 * max(lags or [0]):.0f} ms "
        "(target p99 <= 1000 ms)"
    )
    if flood_acks:
        span = max(flood_acks) - flood_at
        print(
            f"flood: {tables} tables re-sending {backlog} hands each at once: "
            f"{len(flood_acks)} stored in {span:.1f} s = {len(flood_acks) / span:.0f} hands/s "
            "(the hub's ceiling on this machine)"
        )
    print(f"  hub: {counters}")


if __name__ == "__main__":
    main()
