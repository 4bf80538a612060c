"""Damaged copies of a real store (made by a real run, copied as a kill -9 leaves it: the
database and its WAL): at the next start the table says loudly what is missing, keeps the
damaged file aside, and plays on a clean store when the old one cannot be read."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from structlog.testing import capture_logs

from controller.runtime import running
from controller.store import EventStore
from controller.store.models import ALERTS
from controller.store.owners import OwnerAccounts
from controller.table.store_check import quick_check
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    finished_hands,
    options,
    recording,
    until,
)
from tests.controller.web.helpers import bearer

DB = "mjtable.db"
PASSWORD = "long enough password"


def _real_store(mosquitto: Mosquitto, work: Path) -> tuple[Path, list[str]]:
    """Three hands played and published (the first two checkpointed into the database
    file, the third only in the WAL); the store's files copied while the
    service still has them open (as kill -9 would leave them). Returns (the copy's folder,
    the hands' ids in order)."""
    data = work / "played"
    config = config_for(data, "xingguo", mosquitto.url)
    copy = work / "copy"
    copy.mkdir()

    async def main() -> list[str]:
        async with running(config, options(41, 3)) as run:
            # What SQLite's automatic checkpoint does on a table that has played a while:
            # hands 1-2 into the database file; hand 3 goes only into the WAL. Done as hand
            # 3 starts (not when a poll sees two hands: by then hand 3 may be written too).
            start_hand = run.store.start_hand
            checkpointed: list[int] = []

            def checkpoint_then_start(*args: Any, **kwargs: Any) -> Any:
                if not checkpointed and len(finished_hands(run.store)) == 2:
                    with contextlib.closing(sqlite3.connect(data / DB)) as db:
                        busy, log, done = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    assert (busy, done) == (0, log)
                    checkpointed.append(log)
                return start_hand(*args, **kwargs)

            run.store.start_hand = checkpoint_then_start  # type: ignore[method-assign]
            task = asyncio.create_task(run.service.run(asyncio.Event()))
            await asyncio.wait_for(task, GUARD * 2)
            assert checkpointed, "hand 3 started without the checkpoint"
            await asyncio.wait_for(run.publisher.wait_drained(), GUARD)
            for name in (DB, f"{DB}-wal"):
                shutil.copyfile(data / name, copy / name)
            return [h.hand.id for h in finished_hands(run.store)]

    return copy, asyncio.run(main())


def _ids_in(db: Path) -> set[str]:
    with contextlib.closing(sqlite3.connect(db)) as c:
        return {r[0] for r in c.execute("SELECT id FROM hands WHERE status='finished'")}


def _delete_wal(data: Path) -> None:
    (data / f"{DB}-wal").unlink()


def _garble_wal(data: Path) -> None:
    wal = data / f"{DB}-wal"
    with wal.open("r+b") as f:  # 64 bytes of garbage into the first frame's page
        f.seek(32 + 24 + 100)  # past the WAL header and the frame header
        f.write(os.urandom(64))


def _truncate_half(data: Path) -> None:
    _delete_wal(data)
    db = data / DB
    os.truncate(db, db.stat().st_size // 2)


def _wal_pages(wal: Path, page_size: int) -> set[int]:
    """Every page number a frame of ``wal`` holds (those of older salts too: a superset of
    what SQLite reads from it)."""
    raw = wal.read_bytes() if wal.exists() else b""
    frame = 24 + page_size
    return {
        int.from_bytes(raw[at : at + 4], "big") for at in range(32, len(raw) - frame + 1, frame)
    }


def _garble_db(data: Path) -> None:
    """Garbage over a table's root page that no WAL frame holds: SQLite reads that page
    from the database file. (Not page 2 blindly: the migration wrote it into the WAL, and a
    WAL a reader kept from being reset after the checkpoint still holds it, masking it.)"""
    db = data / DB
    with contextlib.closing(sqlite3.connect(f"file:{db}?immutable=1", uri=True)) as c:
        (page_size,) = c.execute("PRAGMA page_size").fetchone()
        roots = {r for (r,) in c.execute("SELECT rootpage FROM sqlite_master WHERE rootpage > 1")}
    page = min(roots - _wal_pages(data / f"{DB}-wal", page_size))
    with db.open("r+b") as f:
        f.seek((page - 1) * page_size)
        f.write(os.urandom(page_size))


def _unreadable(data: Path, scratch: Path) -> bool:
    """Can SQLite not read the store (as the service's check reads it)? Asked of a copy:
    a connection's close checkpoints the WAL into the file it reads."""
    shutil.copytree(data, scratch)
    return quick_check(scratch / DB) is not None


def _zero_db(data: Path) -> None:
    _delete_wal(data)
    db = data / DB
    db.write_bytes(b"\0" * db.stat().st_size)


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("damage", "unreadable"),
    [
        (_delete_wal, False),
        (_garble_wal, False),
        (_truncate_half, True),
        (_garble_db, True),
        (_zero_db, True),
    ],
    ids=["wal_deleted", "wal_garbled", "db_half_truncated", "db_garbled", "db_zeroed"],
)
def test_a_damaged_store_is_said_loudly_kept_aside_and_play_goes_on(
    mosquitto: Mosquitto,
    tmp_path: Path,
    damage: Callable[[Path], None],
    unreadable: bool,
) -> None:
    copy, before = _real_store(mosquitto, tmp_path)
    last = before[-1]
    data = tmp_path / "data"
    shutil.copytree(copy, data)
    damage(data)
    # the precondition: the lost commits held the last hand, or the file cannot be read
    if unreadable:
        assert _unreadable(data, tmp_path / "scratch")
    else:
        assert last not in _ids_in(data / DB)
    config = config_for(data, "xingguo", mosquitto.url)

    async def main() -> tuple[list[object], list[object]]:
        async with recording(mosquitto.port) as rec:
            async with running(config, options(42, 1)) as run:  # a new session: one hand
                await until(
                    lambda: any(a.get("kind") == "store_damaged" for a in rec.of("alerts")),
                    "the store_damaged alert",
                )
                stop = asyncio.Event()
                task = asyncio.create_task(run.service.run(stop))
                await until(lambda: run.keeper.played >= 1, "a hand played after")
                stop.set()
                await asyncio.wait_for(task, GUARD)
            said = [a for a in rec.of("alerts") if a.get("kind") == "store_damaged"]
            # published by this run (the broker's retained copy, given at subscribing, aside)
            # (hand logs aside: re-sent until the hub acknowledges them, by design)
            sent = [
                p
                for n, p, retained in rec.messages
                if isinstance(p, dict) and not retained and n != "handlog"
            ]
            return said, sent

    said, settlements = asyncio.run(main())
    # Nothing published before is published again (a stale outbox would put an older
    # settlement over the newer one the displays hold).
    assert settlements and not [s for s in settlements if s.get("hand_id") in before]
    assert said and all("hand_id" not in str(a.get("message")) for a in said)  # type: ignore[union-attr]
    aside = sorted(p.name for p in data.iterdir() if ".damaged-" in p.name)
    if unreadable:
        assert aside and aside[0].startswith(f"{DB}.damaged-"), sorted(os.listdir(data))
    else:
        assert not aside


@pytest.mark.timeout(300)
def test_a_wiped_store_is_said_once_and_staff_acknowledge_it_for_good(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """A store wiped whole while the parlour broker keeps its last settlement retained (and
    no hub answers): said at the next start; acknowledged by staff (who, when, why), not
    said again, nor waited for a hub, at the starts after."""
    data = tmp_path / "data"
    config = config_for(data, "xingguo", mosquitto.url)

    async def play_one() -> None:
        async with running(config, options(43, 1)) as run:
            await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * 2)
            await asyncio.wait_for(run.publisher.wait_drained(), GUARD)

    async def start() -> list[str]:
        with capture_logs() as logs:
            async with running(config, options(44, 1)):
                pass
        return [str(e["event"]) for e in logs if e["log_level"] in ("warning", "error")]

    asyncio.run(play_one())
    shutil.rmtree(data)
    said = asyncio.run(start())
    assert "the store is damaged" in said and "the hub did not send the lost hands back" in said
    store = EventStore.open(config.store_url)
    try:
        OwnerAccounts(store).add("ann", hash_password(PASSWORD), "staff", (config.table,))
        app = create_app(store, LiveHub(), WebAppSettings(table=config.table, secret_key=b"k" * 32))
        with TestClient(app) as client:
            staff = bearer(client, "ann", PASSWORD)
            loss = client.get("/api/v1/staff/store-loss", headers=staff).json()
            assert loss["found_at"] and loss["acknowledged_at"] is None, loss
            why = {"reason": "the card was replaced; the hub holds the hands"}
            url = "/api/v1/staff/store-loss/acknowledge"
            done = client.post(url, json=why, headers=staff)
            assert done.status_code == 200, done.text
            assert (done.json()["acknowledged_by"], done.json()["why"]) == ("ann", why["reason"])
            assert client.post(url, json=why, headers=staff).status_code == 409  # once
        with store.engine.connect() as c:
            kind = ALERTS.c.kind == "store_loss_acknowledged"
            audit = c.execute(select(ALERTS.c.detail).where(kind)).scalars().all()
        assert len(audit) == 1 and audit[0].startswith("ann (staff) at "), audit
    finally:
        store.close()
    for _ in range(2):
        said = asyncio.run(start())
        assert "the store is damaged" not in said, said
        assert "the hub did not send the lost hands back" not in said, said
