"""Finished hands into the hub's database: one transaction per batch, idempotent by hand id.

A hand already stored is skipped (a table re-sent it, or two copies were in flight); hands
may arrive in any order. A session is created from the first of its hands to arrive, and
its start moved back if an earlier hand arrives later; its ``players`` are recomputed from
its stored hands whenever one arrives (controller.store.session_players). Sessions and
hands belong to the table that sent them: a hand or session id another table holds
already (ids are not secret: the displays show them) is stored under an alias of its own
for the sender (``controller.hub.aliases``: the same every time, so a re-send is still a
duplicate), never merged into the other table's. A new hand at a ``table_seq`` its table
holds another hand at is refused, as are hands the database refuses: returned in
``rejected`` (for the quarantine). Works on PostgreSQL (the hub) and SQLite (tests, a
one-table "hub").
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, Table, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from controller.hub.aliases import alias
from controller.store.database import dialect_insert
from controller.store.members import without_deleted
from controller.store.models import (
    EVENTS,
    HANDS,
    QUARANTINED_HANDLOGS,
    SEAT_ACTS,
    SESSIONS,
    SETTLEMENTS,
    utcnow,
)
from controller.store.session_players import recompute
from controller.store.table_stats import Changes, bump
from controller.table.dice import dice_check_of
from controller.table.handlog import MAX_BYTES, Handlog, table_of_topic
from engine.round.events import SessionClosed

FINISHED = "finished"
CHUNK = 1000  # ids per IN (...) list


@dataclass(frozen=True, slots=True)
class StoreResult:
    stored: list[str]  # hand ids written by this call
    duplicates: list[str]  # hand ids already there (or twice in the batch)
    rejected: dict[str, str] = field(default_factory=dict)  # hand id: why it was refused

    @property
    def acked(self) -> list[str]:
        """Every hand id now safely in the database: acknowledge them all."""
        return self.stored + self.duplicates


Owner = tuple[str | None, str | None]  # (parlour, table_id)


def _owners(conn: Connection, table: Table, ids: Sequence[str]) -> dict[str, Owner]:
    """Who each of ``ids`` (rows of ``table``: hands or sessions) belongs to, if stored."""
    found: dict[str, Owner] = {}
    col = table.c
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        query = select(col.id, col.parlour, col.table_id).where(col.id.in_(chunk))
        found.update((i, (p, t)) for i, p, t in conn.execute(query))
    return found


def _own_ids(conn: Connection, logs: Sequence[Handlog]) -> list[tuple[str, Handlog]]:
    """(the id the table sent, the log with ids the sender holds): a session or hand id
    another table holds (stored, or earlier in this batch) becomes the sender's alias."""
    hands = _owners(conn, HANDS, sorted({log.hand_id for log in logs}))
    sessions = _owners(conn, SESSIONS, sorted({log.session_id or "" for log in logs} - {""}))
    out = []
    for log in logs:
        sender = (log.parlour, log.table)
        hand_id, sid = log.hand_id, log.session_id
        if hands.setdefault(hand_id, sender) != sender:
            hand_id = alias(log.parlour, log.table, hand_id)
        if sid is not None and sessions.setdefault(sid, sender) != sender:
            sid = alias(log.parlour, log.table, sid)
        if (hand_id, sid) != (log.hand_id, log.session_id):
            out.append((log.hand_id, dataclasses.replace(log, hand_id=hand_id, session_id=sid)))
        else:
            out.append((log.hand_id, log))
    return out


def _sessions(conn: Connection, logs: Sequence[Handlog], stats: Changes) -> None:
    first: dict[str, Handlog] = {}
    for log in logs:
        if log.session_id is None:
            continue
        seen = first.get(log.session_id)
        if seen is None or log.started_at < seen.started_at:
            first[log.session_id] = log
    if not first:
        return
    known: set[str] = set()
    ids = sorted(first)
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        known.update(conn.scalars(select(SESSIONS.c.id).where(SESSIONS.c.id.in_(chunk))))
    for sid, log in first.items():
        if sid not in known:
            stats.of(log.table, log.parlour).sessions += 1
    rows: list[dict[str, Any]] = [
        {
            "id": sid,
            "parlour": log.parlour,
            "table_id": log.table,
            "ruleset": log.ruleset,
            "options": {},
            "players": [],
            "started_at": log.started_at,
            "house": log.house,  # (a hand's of it; each hand keeps its own)
        }
        for sid, log in sorted(first.items())  # a fixed order: no deadlocks between writers
    ]
    insert = dialect_insert(conn.dialect.name, SESSIONS)
    earliest = func.least if conn.dialect.name == "postgresql" else func.min
    conn.execute(
        insert.on_conflict_do_update(
            index_elements=[SESSIONS.c.id],
            set_={"started_at": earliest(SESSIONS.c.started_at, insert.excluded.started_at)},
        ),
        rows,
    )


def _events(conn: Connection, logs: Sequence[Handlog], now: datetime) -> None:
    rows = (
        (log.hand_id, seq, e["type"], e, now) for log in logs for seq, e in enumerate(log.events)
    )
    if conn.dialect.name != "postgresql":
        keys = ("hand_id", "seq", "type", "payload", "created_at")
        conn.execute(
            dialect_insert(conn.dialect.name, EVENTS),
            [dict(zip(keys, r, strict=True)) for r in rows],
        )
        return
    # COPY, in this transaction: ~200 events a hand make row-by-row inserts the bottleneck.
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        with cursor.copy(
            "COPY events (hand_id, seq, type, payload, created_at) FROM STDIN"
        ) as copy:
            for hand_id, seq, kind, event, at in rows:
                copy.write_row((hand_id, seq, kind, json.dumps(event, ensure_ascii=False), at))
    finally:
        cursor.close()


def _write(conn: Connection, sent: Sequence[Handlog]) -> StoreResult:
    pairs = _own_ids(conn, sent)
    original = {log.hand_id: hid for hid, log in pairs}
    # the session the table committed its dice under: the one it sent (not an alias)
    sessions = {log.hand_id: log.session_id for log in sent}
    committed = {log.hand_id: sessions[hid] for hid, log in pairs}
    unique: dict[str, Handlog] = {}
    duplicates: list[str] = []
    for _, log in pairs:
        if log.hand_id in unique:
            duplicates.append(log.hand_id)
            if len(log.events) > len(unique[log.hand_id].events):
                unique[log.hand_id] = log  # the longest: acts of staff came after the first
        else:
            unique[log.hand_id] = log
    existing = _owners(conn, HANDS, list(unique))
    amended = _amend_longer(
        conn, [log for hid, log in unique.items() if hid in existing], committed
    )
    duplicates += [hid for hid in unique if hid in existing and hid not in amended]
    new, clashes = _numbered_once(conn, [log for hid, log in unique.items() if hid not in existing])
    rejected = {original[hid]: why for hid, why in clashes.items()}
    if not new:
        _close_sessions(conn, [unique[h] for h in amended])
        return StoreResult(
            [original[h] for h in amended], [original[h] for h in duplicates], rejected
        )
    stats = Changes()
    _sessions(conn, new, stats)
    for log in new:
        stats.of(log.table, log.parlour).seen(log.started_at).hands += 1
    now = utcnow()
    conn.execute(
        dialect_insert(conn.dialect.name, HANDS),
        [
            {
                "id": log.hand_id,
                "session_id": log.session_id,
                "hand_no": log.hand_no,
                "ruleset": log.ruleset,
                "dealer": log.dealer,
                "status": FINISHED,
                "result": log.result,
                "winner": log.winner,
                "discarder": log.discarder,
                "started_at": log.started_at,
                "ended_at": log.finished_at,
                "note": None,
                # The hub is the end of the line: nothing to acknowledge further.
                "handlog_acked_at": now,
                "parlour": log.parlour,
                "table_id": log.table,
                "net_0": log.net[0],
                "net_1": log.net[1],
                "net_2": log.net[2],
                "net_3": log.net[3],
                "table_seq": log.table_seq,
                "clock_synced": log.clock_synced,
                "played_s": log.played_s,
                "players": without_deleted(conn, log.players),
                "house": log.house,
                **_dice_columns(log, committed[log.hand_id]),
            }
            for log in new
        ],
    )
    _seat_acts(conn, new)
    # (_sessions' upsert holds each session's row until commit: two batches of one
    # session recompute one after the other, the second seeing the first's hands)
    recompute(conn, {log.session_id for log in new if log.session_id is not None})
    bump(conn, stats.by_table.values())
    _events(conn, new, now)
    conn.execute(
        dialect_insert(conn.dialect.name, SETTLEMENTS),
        [
            {
                "hand_id": log.hand_id,
                "ruleset": log.ruleset,
                "void": bool(log.settlement.get("void", False)),
                # the settlement's own nets (the hand's row holds what the hand moved)
                "net_0": log.settled_net[0],
                "net_1": log.settled_net[1],
                "net_2": log.settled_net[2],
                "net_3": log.settled_net[3],
                "payload": log.settlement,
                "created_at": now,
            }
            for log in new
        ],
    )
    _close_sessions(conn, [*new, *(unique[h] for h in amended)])
    stored = [original[log.hand_id] for log in new] + [original[h] for h in amended]
    return StoreResult(stored, [original[h] for h in duplicates], rejected)


def _numbered_once(
    conn: Connection, logs: Sequence[Handlog]
) -> tuple[list[Handlog], dict[str, str]]:
    """(the hands to store, {hand id: why not}): a table numbers each of its hands once
    (``table_seq``), so a new hand at a number the table holds another hand at already (a
    store that lost its last hands and numbered again, a made-up id) is refused, for the
    quarantine, never stored beside it. The same hand sent again, under its alias too, is
    a duplicate before it gets here (``_own_ids``)."""
    held: dict[tuple[str, str, int], str] = {}
    numbered: dict[tuple[str, str], set[int]] = {}
    for log in logs:
        if log.table_seq is not None:
            numbered.setdefault((log.parlour, log.table), set()).add(log.table_seq)
    col = HANDS.c
    for (parlour, table), seqs in sorted(numbered.items()):
        query = select(col.table_seq, col.id).where(
            col.parlour == parlour, col.table_id == table, col.table_seq.in_(sorted(seqs))
        )
        held.update(((parlour, table, int(seq)), hid) for seq, hid in conn.execute(query))
    keep: list[Handlog] = []
    refused: dict[str, str] = {}
    for log in logs:
        if log.table_seq is None:
            keep.append(log)
            continue
        key = (log.parlour, log.table, log.table_seq)
        other = held.setdefault(key, log.hand_id)
        if other == log.hand_id:
            keep.append(log)
        else:
            refused[log.hand_id] = (
                f"table {log.table} numbered hand {other} table_seq {log.table_seq} already: "
                "a second hand at one number (a table store that lost hands and numbered "
                "them again, or a made-up hand id) is kept aside, not stored"
            )
    return keep, refused


def _seat_acts(conn: Connection, logs: Sequence[Handlog]) -> None:
    """The seat acts each new hand carries (who sat down, by whom, when): the hub's audit
    of the seats; a member deleted here already stays anonymous."""
    rows = []
    for log in logs:
        players = (
            without_deleted(
                conn,
                [
                    {"member_id": a["member_id"], "name": a["name"]} if a["member_id"] else None
                    for a in log.seat_acts
                ],
            )
            or []
        )
        for act, player in zip(log.seat_acts, players, strict=True):
            who: dict[str, str | None] = {"member_id": None, "name": None}
            who |= player or {}
            rows.append(
                {
                    "table_id": log.table,
                    "parlour": log.parlour,
                    "seat": act["seat"],
                    **who,
                    "by": act["by"],
                    "at": act["at"],
                    "hand_id": log.hand_id,
                }
            )
    if rows:
        conn.execute(insert(SEAT_ACTS), rows)


def _close_sessions(conn: Connection, logs: Sequence[Handlog]) -> None:
    """A session's last hand carries its close (``session_closed``, docs/players.md): the
    session ends at the hub when that log arrives, at the time the table recorded."""
    for log in logs:
        closed = next((e for e in log.events if e.get("type") == SessionClosed.type), None)
        if closed is None or log.session_id is None:
            continue
        at = log.finished_at
        with contextlib.suppress(TypeError, ValueError):
            when = datetime.fromisoformat(closed["at"])
            at = when if when.tzinfo is not None else at
        conn.execute(
            update(SESSIONS)
            .where(SESSIONS.c.id == log.session_id, SESSIONS.c.ended_at.is_(None))
            .values(ended_at=at)
        )


def _dice_columns(log: Handlog, session_id: str | None) -> dict[str, str | None]:
    return dice_columns(log.events, table=log.table, session_id=session_id, hand_no=log.hand_no)


def dice_columns(
    events: Sequence[Mapping[str, Any]], *, table: str, session_id: str | None, hand_no: int
) -> dict[str, str | None]:
    """The hand's dice against their commitment, as its row keeps them for the owners'
    list (``session_id``: the one the table sent, never an alias)."""
    context = {"table": table, "session_id": session_id, "hand_no": hand_no}
    verdict = dice_check_of(events, context)
    problem = "; ".join(verdict.problems) or None
    return {"dice_check": verdict.verdict, "dice_problem": problem}


def _amend_longer(
    conn: Connection, logs: Sequence[Handlog], committed: dict[str, str | None]
) -> list[str]:
    """Hands stored already whose new log is longer (acts of staff after the settlement,
    before the next hand): their new events, standing settlement and nets. A log that
    is not longer, or whose first events are not the stored ones, is a duplicate.
    ``committed``: each hand's session as the table sent it (``_dice_columns``)."""
    if not logs:
        return []
    ids = [log.hand_id for log in logs]
    counts: dict[str, int] = dict(
        conn.execute(
            select(EVENTS.c.hand_id, func.count())
            .where(EVENTS.c.hand_id.in_(ids))
            .group_by(EVENTS.c.hand_id)
        ).all()
    )
    amended: list[str] = []
    now = utcnow()
    for log in logs:
        have = int(counts.get(log.hand_id, 0))
        if len(log.events) <= have:
            continue
        last = conn.execute(
            select(EVENTS.c.payload).where(
                EVENTS.c.hand_id == log.hand_id, EVENTS.c.seq == have - 1
            )
        ).scalar()
        if have and last != log.events[have - 1]:
            continue  # not this hand's log carried on: a duplicate, not an amendment
        rows = [
            {"hand_id": log.hand_id, "seq": seq, "type": e["type"], "payload": e, "created_at": now}
            for seq, e in enumerate(log.events)
            if seq >= have
        ]
        conn.execute(dialect_insert(conn.dialect.name, EVENTS), rows)
        nets = {f"net_{i}": n for i, n in enumerate(log.net)}
        conn.execute(
            update(HANDS)
            .where(HANDS.c.id == log.hand_id)
            .values(
                result=log.result,
                winner=log.winner,
                discarder=log.discarder,
                **nets,
                **_dice_columns(log, committed[log.hand_id]),
            )
        )
        settled = {f"net_{i}": n for i, n in enumerate(log.settled_net)}
        conn.execute(
            update(SETTLEMENTS)
            .where(SETTLEMENTS.c.hand_id == log.hand_id)
            .values(payload=log.settlement, void=bool(log.settlement.get("void", False)), **settled)
        )
        amended.append(log.hand_id)
    return amended


def store_handlogs(engine: Engine, logs: Sequence[Handlog]) -> StoreResult:
    """Store the hands not yet stored, all in one transaction (committed on return)."""
    try:
        with engine.begin() as conn:
            return _write(conn, logs)
    except IntegrityError:
        # Another writer stored some of these hands between our check and our insert:
        # once more, now that they are visible.
        with engine.begin() as conn:
            return _write(conn, logs)


# A refused message is kept whole (what a broker delivers is under its message size limit,
# 1 MiB in deploy/; the hub's own bound is the same), so an owner can still recover a hand
# from it; beyond that, only this much.
KEPT_BYTES = MAX_BYTES
REASON_CHARS = 1000


@dataclass(frozen=True, slots=True)
class Refused:
    """A handlog message the hub will not store, as it goes into the quarantine."""

    topic: str
    reason: str
    size: int
    excerpt: str
    hand_id: str | None = None

    @classmethod
    def of(cls, topic: str, reason: str, payload: bytes, hand_id: str | None = None) -> Refused:
        head = payload[:KEPT_BYTES].decode("utf-8", "backslashreplace")
        return cls(
            _storable(topic),
            _storable(reason[:REASON_CHARS]),
            len(payload),
            _storable(head),
            hand_id,
        )

    @classmethod
    def whole(cls, topic: str, reason: str, log: Handlog) -> Refused:
        """A valid handlog the database refused: kept whole (it passed every bound), so that
        an owner can still recover the hand."""
        text = json.dumps(dataclasses.asdict(log), default=str, ensure_ascii=False)
        return cls(_storable(topic), _storable(reason[:REASON_CHARS]), len(text), text, log.hand_id)


def _storable(text: str) -> str:
    """``text`` with what a PostgreSQL text column refuses (NUL, lone surrogates) escaped."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8").replace("\x00", "\\x00")


def quarantine(engine: Engine, refused: Sequence[Refused]) -> None:
    """Keep refused handlogs with their reasons (one transaction)."""
    if not refused:
        return
    now = utcnow()
    rows = []
    for r in refused:
        parlour: str | None = None
        table: str | None = None
        with contextlib.suppress(ValueError):
            parlour, table = table_of_topic(r.topic)
        rows.append(
            {
                "received_at": now,
                "topic": r.topic[:256],
                "parlour": parlour and parlour[:64],
                "table_id": table and table[:64],
                "hand_id": r.hand_id,
                "reason": r.reason,
                "size": r.size,
                "excerpt": r.excerpt,
            }
        )
    with engine.begin() as conn:
        conn.execute(dialect_insert(conn.dialect.name, QUARANTINED_HANDLOGS), rows)
