"""At start, is the table's SQLite store whole? Checked before the service opens it.

``PRAGMA quick_check`` on the file (with its WAL): a database SQLite cannot read (half
truncated, garbled, zeroed: ``database disk image is malformed``, ``file is not a
database``) is moved aside whole, with its WAL and shared memory, renamed
``mjtable.db.damaged-<UTC time>[-n]``, and the service starts on a clean store instead of
dying at every start. What was lost is said at error level and as an alert.

A store that opens but lost its last commits (its WAL deleted or garbled after a kill -9:
SQLite drops WAL frames whose checksum fails, silently) is found by comparing it with its
mark, kept outside it (:func:`behind_mark`, ``controller.store.high_water``: on any broker,
the embedded one too), and with the last settled hand a parlour broker holds retained for
the table (:func:`missing_published`). A loss staff acknowledged (:func:`unacknowledged`)
is not said again at each start.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiomqtt
import structlog
from sqlalchemy.engine import make_url

from controller.config import MqttSettings
from controller.json_bounds import JsonBoundsError, loads_bounded
from controller.mqtt.client import make_client
from controller.mqtt.topics import Topics
from controller.process import sd_notify
from controller.store import EventStore, UnknownHand
from controller.store.high_water import Mark, behind
from controller.store.owners import OwnerAccounts, StoreLoss
from controller.table.alerts import Alert, AlertKind, PublicAlert

log = structlog.get_logger(__name__)

SIDE_FILES = ("", "-wal", "-shm", "-journal")
# s for the broker's retained messages after subscribing (it sends them right after the
# SUBACK; a table that never published waits this long at start)
RETAINED_WAIT = 0.5
OUTBOX_STALE_MAX = 1_000_000


@dataclass
class StoreCheck:
    problems: list[str] = field(default_factory=list)
    """What is wrong, for the log and the alert's private detail."""
    set_aside: list[Path] = field(default_factory=list)
    """Where the damaged files are now."""


def quick_check(database: Path) -> str | None:
    """None if SQLite reads ``database`` as whole, else what it says is wrong."""
    try:
        with contextlib.closing(
            sqlite3.connect(f"file:{database}?mode=rw", uri=True, timeout=10)
        ) as db:
            rows = db.execute("PRAGMA quick_check").fetchall()
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.DatabaseError as err:  # malformed, not a database, I/O error
        return f"{type(err).__name__}: {err}"
    found = [str(r[0]) for r in rows]
    return None if found == ["ok"] else "quick_check: " + "; ".join(found[:5])


def _aside_name(database: Path, now: datetime) -> str:
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    name, n = f"{database.name}.damaged-{stamp}", 1
    while any((database.parent / (name + s)).exists() for s in SIDE_FILES):
        n += 1
        name = f"{database.name}.damaged-{stamp}-{n}"
    return name


def set_aside(database: Path, now: datetime | None = None) -> list[Path]:
    """Move ``database`` and its WAL/shm/journal to one ``.damaged-<time>`` name."""
    name = _aside_name(database, now or datetime.now(UTC))
    moved = []
    for suffix in SIDE_FILES:
        source = Path(f"{database}{suffix}")
        if source.exists():
            target = database.parent / (name + suffix)
            source.rename(target)
            moved.append(target)
    return moved


def check_file(database: Path) -> StoreCheck:
    """Check the store's file; a damaged one is set aside (the caller opens a clean one)."""
    result = StoreCheck()
    if not database.exists():
        if Path(f"{database}-wal").exists():
            result.problems.append(f"{database.name} is missing but its WAL is there")
            result.set_aside = set_aside(database)
        return result
    problem = quick_check(database)
    if problem is None:
        return result
    result.problems.append(f"{database.name} cannot be read ({problem})")
    result.set_aside = set_aside(database)
    result.problems.append(
        "moved aside to " + ", ".join(p.name for p in result.set_aside) + "; a clean store starts"
    )
    return result


async def retained_settlement(
    settings: MqttSettings, topics: Topics, client_id: str, wait: float = RETAINED_WAIT
) -> dict[str, Any] | None:
    """The broker's retained ``settlement`` and ``scores`` of this table merged (the last
    settled hand as published), or None when it holds none or cannot be reached."""
    found: dict[str, Any] = {}
    names = {topics.topic("settlement"): "settlement", topics.topic("scores"): "scores"}
    try:
        async with asyncio.timeout(wait + 3.0), make_client(settings, client_id) as client:
            for topic in names:
                await client.subscribe(topic, qos=1)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    async for message in client.messages:
                        raw = message.payload if isinstance(message.payload, bytes) else b""
                        with contextlib.suppress(JsonBoundsError):
                            data = loads_bounded(raw, max_bytes=1 << 16, max_depth=8)
                            if isinstance(data, dict):
                                found[names.get(message.topic.value, "?")] = data
                        if len(found) == len(names):
                            break
    except (aiomqtt.MqttError, OSError, TimeoutError) as err:
        log.info("could not read the broker's last settlement", error=str(err))
        return None
    settlement = found.get("settlement")
    if settlement is None or not isinstance(settlement.get("hand_id"), str):
        return None
    scores = found.get("scores") or {}
    return {
        "hand_id": settlement["hand_id"],
        "hand_no": scores.get("hand_no"),
        "session_id": scores.get("session_id"),
    }


def check_store_url(url: str) -> StoreCheck:
    """:func:`check_file` for a SQLite file URL; nothing to check for another database."""
    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or database in (None, "", ":memory:"):
        return StoreCheck()
    return check_file(Path(database or ""))


def say(check: StoreCheck, alert: Callable[[Alert], None]) -> None:
    """Loudly: an error in the log, the unit's status, and an alert (its text public, the
    detail private; the staff console shows it until acknowledged)."""
    if not check.problems:
        return
    detail = "; ".join(check.problems)
    log.error("the store is damaged", problems=check.problems)
    sd_notify.notify("STATUS=the store lost hands or was damaged: see the log")
    alert(Alert(PublicAlert(AlertKind.STORE_DAMAGED), detail))


def behind_mark(store: EventStore) -> StoreCheck:
    """Did the store lose commits its mark (kept outside it) says it made?"""
    result = StoreCheck()
    if store.high_water is None:
        return result
    mark = store.high_water.mark
    newest = store.list_hands(limit=1)
    settled = False
    if mark.hand_id is not None:
        with contextlib.suppress(UnknownHand):
            settled = store.load_hand(mark.hand_id).hand.status == "finished"
    newest_seq = (newest[0].table_seq or 0) if newest else 0
    result.problems = behind(mark, newest_seq, settled)
    return result


def unacknowledged(
    store: EventStore, found: StoreCheck, last: dict[str, Any] | None, now: datetime
) -> StoreCheck:
    """``found`` (what :func:`behind_mark` and :func:`missing_published` found), unless
    staff acknowledged this loss already (then nothing: no alert, no wait for a hub); a
    new loss is kept for the staff console to show and acknowledge."""
    if not found.problems:
        return found
    mark = store.high_water.mark if store.high_water is not None else Mark()
    hand_id = last["hand_id"] if last is not None else mark.hand_id
    accounts = OwnerAccounts(store)
    known = accounts.store_loss()
    if known.covers(hand_id, mark.table_seq):
        log.info(
            "the store's loss was acknowledged",
            by=known.acknowledged_by,
            at=str(known.acknowledged_at),
            hand_id=hand_id,
        )
        return StoreCheck()
    loss = StoreLoss(
        hand_id=hand_id, table_seq=mark.table_seq, problems=found.problems, found_at=now
    )
    accounts.set_store_loss(loss, "table")
    return found


def missing_published(store: EventStore, last: dict[str, Any] | None) -> StoreCheck:
    """Is the last settled hand the broker held for this table (read before the publisher
    starts: a store that lost its WAL would re-send older outbox rows over it) in the
    store? If not, the store lost hands it had published (a deleted or garbled WAL)."""
    result = StoreCheck()
    if last is None:
        return result
    try:
        # (its row may be there without its settlement: written before a checkpoint, the
        # commits after it lost, e.g. a hand opened at the build before its walls)
        settled = store.load_hand(last["hand_id"]).hand.status == "finished"
    except UnknownHand:
        settled = False
    if not settled:
        result.problems.append(
            f"the last settled hand published (hand {last['hand_no']} of session "
            f"{last['session_id']}, id {last['hand_id']}) is not in the store, settled: "
            "its last hands are lost (the hub holds those it acknowledged)"
        )
        # Every outbox row still here was written before the lost commits, whose messages
        # the broker has: these went out before them (in order), and only their deletion
        # was lost. Sent again they would put older retained state over the newer.
        stale = [e.id for e in store.outbox_peek(OUTBOX_STALE_MAX)]
        if stale:
            store.outbox_ack(stale)
            result.problems.append(f"{len(stale)} outbox messages already delivered dropped")
    return result
