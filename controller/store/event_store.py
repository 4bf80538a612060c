"""The table's durable memory: sessions, hands and their events, settlements, the outbox.

Every write is one transaction, committed before the method returns, so an event that
``append`` acknowledged survives a crash of the process (SQLite: WAL). A live move
(``durable=False``) is committed without an fsync on the way to the display and synced
right after by a ``WalSyncer``, the next lazy commit waiting for that sync; everything
else commits with an fsync (``synchronous=FULL``), which also covers every lazy move
before it (docs/service.md, "Durability"). Messages to publish can ride in the same transaction
(``outbox=``): an event and its publication are stored together or not at all.
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import structlog
from sqlalchemy import (
    Connection,
    Engine,
    Row,
    bindparam,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from controller.store.database import make_engine
from controller.store.hand_filters import NEWEST_FIRST, OLDEST_FIRST, hand_filters
from controller.store.high_water import HighWater
from controller.store.members import claim_seat_acts, seating_in
from controller.store.models import (
    ALERTS,
    EVENTS,
    HANDS,
    OUTBOX,
    SESSIONS,
    SETTLEMENTS,
    utcnow,
)
from controller.store.records import (
    AlertRecord,
    HandClosed,
    HandRecord,
    HandSettled,
    OutboxEntry,
    OutboxMessage,
    SequenceConflict,
    SessionRecord,
    StoredEvent,
    StoredHand,
    StoreInputError,
    UnknownHand,
    UnknownSession,
)
from controller.store.request_keys import KeptAnswer
from controller.store.schema_head import ensure_schema
from controller.store.session_players import add_hand
from controller.store.table_stats import Change, bump
from controller.store.wal_sync import WalSyncer

if TYPE_CHECKING:
    from controller.process.metrics import Metrics

log = structlog.get_logger(__name__)
T = TypeVar("T")

OPEN, FINISHED, ABORTED = "open", "finished", "aborted"
MAX_TYPE_LENGTH = 64
MAX_TOPIC_LENGTH = 255
MAX_ALERT_TEXT = 2000


def _json_copy(value: Any, where: str) -> Any:
    """The value as it will read back (tuples become lists); a clear error if not JSON."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise StoreInputError(f"{where}: not JSON-serialisable: {err}") from None
    return json.loads(text)


def _event_payload(index: int, event: Any) -> dict[str, Any]:
    where = f"events[{index}]"
    if not isinstance(event, Mapping):
        raise StoreInputError(f"{where}: expected a dict (an event's to_dict()), got {event!r}")
    kind = event.get("type")
    if not isinstance(kind, str) or not kind or len(kind) > MAX_TYPE_LENGTH:
        raise StoreInputError(f"{where}: needs a 'type' name (1-{MAX_TYPE_LENGTH} characters)")
    payload: dict[str, Any] = _json_copy(dict(event), f"{where} ({kind})")
    return payload


def _check_messages(messages: Sequence[OutboxMessage]) -> list[OutboxMessage]:
    for i, m in enumerate(messages):
        if not isinstance(m, OutboxMessage):
            raise StoreInputError(f"outbox[{i}]: expected an OutboxMessage, got {m!r}")
        if not m.topic or len(m.topic) > MAX_TOPIC_LENGTH or any(c in m.topic for c in "+#"):
            raise StoreInputError(f"outbox[{i}]: bad topic {m.topic!r}")
        if m.qos not in (0, 1, 2):
            raise StoreInputError(f"outbox[{i}]: qos must be 0, 1 or 2, got {m.qos!r}")
    return list(messages)


def _seat(value: int | None, name: str) -> int | None:
    if value is not None and (isinstance(value, bool) or value not in range(4)):
        raise StoreInputError(f"{name}: a seat 0-3 or None, got {value!r}")
    return value


def _outbox_values(messages: Sequence[OutboxMessage], now: float) -> list[dict[str, Any]]:
    return [
        {
            "topic": m.topic,
            "payload": m.payload,
            "qos": m.qos,
            "retain": m.retain,
            "enqueued_at": now,
        }
        for m in messages
    ]


def _event_values(
    hand_id: str, first_seq: int, payloads: list[dict[str, Any]], now: datetime
) -> list[dict[str, Any]]:
    return [
        {
            "hand_id": hand_id,
            "seq": first_seq + i,
            "type": p["type"],
            "payload": p,
            "created_at": now,
        }
        for i, p in enumerate(payloads)
    ]


# Statements built once: building one costs more than SQLite takes to run it.
_INSERT_EVENTS = insert(EVENTS)
_INSERT_OUTBOX = insert(OUTBOX)
_OUTBOX_PEEK = (
    select(*(OUTBOX.c[name] for name in ("id", "topic", "payload", "qos", "retain", "enqueued_at")))
    .where(OUTBOX.c.id > bindparam("after_id"))
    .order_by(OUTBOX.c.id)
    .limit(bindparam("limit"))
)
# A hand's status and the seq its next event takes, in one statement.
_HAND_STATE = select(
    HANDS.c.status,
    select(func.coalesce(func.max(EVENTS.c.seq) + 1, 0))
    .where(EVENTS.c.hand_id == HANDS.c.id)
    .scalar_subquery(),
).where(HANDS.c.id == bindparam("hand_id"))


def session_record(row: Row[Any]) -> SessionRecord:
    return SessionRecord(
        id=row.id,
        parlour=row.parlour,
        table_id=row.table_id,
        ruleset=row.ruleset,
        options=row.options,
        players=row.players,
        started_at=row.started_at,
        ended_at=row.ended_at,
        house=row._mapping.get("house"),
    )


def nets_of(*nets: float | None) -> tuple[float, float, float, float] | None:
    """A hand's four nets from its row, or None while unsettled."""
    n0, n1, n2, n3 = nets
    if n0 is None or n1 is None or n2 is None or n3 is None:
        return None
    return (n0, n1, n2, n3)


def hand_record(row: Row[Any]) -> HandRecord:
    """A hands row as a record; its nets are on the row once it is settled
    (every write of a settlement puts them there; migration 0005 back-filled older ones)."""
    return HandRecord(
        id=row.id,
        session_id=row.session_id,
        hand_no=row.hand_no,
        ruleset=row.ruleset,
        dealer=row.dealer,
        status=row.status,
        result=row.result,
        winner=row.winner,
        discarder=row.discarder,
        started_at=row.started_at,
        ended_at=row.ended_at,
        note=row.note,
        handlog_acked_at=row.handlog_acked_at,
        net=nets_of(row.net_0, row.net_1, row.net_2, row.net_3),
        table_seq=row.table_seq,
        clock_synced=row.clock_synced,
        played_s=row.played_s,
        players=row.players,
        dice_check=row.dice_check,
        dice_problem=row.dice_problem,
        parlour=row.parlour,
        table_id=row.table_id,
        house=row._mapping.get("house"),
    )


# A hand and its settlement's payload (None while unsettled).
_HAND_AND_SETTLEMENT = select(HANDS, SETTLEMENTS.c.payload.label("settlement")).outerjoin(
    SETTLEMENTS, SETTLEMENTS.c.hand_id == HANDS.c.id
)
_EVENTS_OF = (
    select(EVENTS.c.seq, EVENTS.c.type, EVENTS.c.payload, EVENTS.c.created_at)
    .where(EVENTS.c.hand_id == bindparam("hand_id"))
    .order_by(EVENTS.c.seq)
)


class EventStore:
    """Thread-safe (one short connection per call); share one per process."""

    def __init__(
        self,
        engine: Engine,
        metrics: Metrics | None = None,
        syncer: WalSyncer | None = None,
        high_water: HighWater | None = None,
    ) -> None:
        self.engine = engine
        self.metrics = metrics
        self.syncer = syncer
        self.high_water = high_water  # a SQLite file's: what it committed, kept outside it
        self._lazy = engine.dialect.name == "sqlite"
        if metrics is not None:
            # From here the gauge moves with each row stored or deleted (_count_enqueued),
            # from the rows a previous run left.
            metrics.outbox_depth.set(self.outbox_depth())

    @classmethod
    def open(
        cls,
        url: str,
        *,
        migrate: bool = True,
        metrics: Metrics | None = None,
    ) -> EventStore:
        """Connect to ``url``, upgrading the schema first (idempotent) unless told not to."""
        engine = make_engine(url)
        if migrate:
            ensure_schema(engine)
        database = engine.url.database
        file_db = engine.dialect.name == "sqlite" and database not in (None, "", ":memory:")
        syncer = WalSyncer(Path(database or "")) if file_db else None
        high_water = HighWater.beside(Path(database or "")) if file_db else None
        return cls(engine, metrics, syncer, high_water)

    def close(self) -> None:
        if self.syncer is not None:
            self.syncer.close()
        self.engine.dispose()

    @contextlib.contextmanager
    def _lazy_transaction(self) -> Iterator[Connection]:
        """A transaction committed without an fsync (SQLite), once the lazy commit before
        it is synced; the WalSyncer syncs this one right after. Elsewhere an ordinary
        transaction."""
        if not self._lazy:
            with self.engine.begin() as c:
                yield c
            return
        if self.syncer is not None and not self.syncer.wait():
            log.warning("the WAL sync is late: committing the next move anyway")
        with self.engine.connect() as c:
            c.exec_driver_sql("PRAGMA synchronous=NORMAL")
            c.commit()  # (a pragma starts no transaction in SQLite; SQLAlchemy's ends)
            try:
                with c.begin():
                    yield c
            finally:
                c.exec_driver_sql("PRAGMA synchronous=FULL")
                c.commit()
        if self.syncer is not None:
            self.syncer.nudge()

    # --- sessions -------------------------------------------------------------------------

    def start_session(
        self,
        *,
        ruleset: str,
        parlour: str = "",
        table_id: str = "",
        options: Mapping[str, Any] | None = None,
        session_id: str | None = None,
        house: Mapping[str, Any] | None = None,
    ) -> str:
        """A new session; its ``players`` fill as its hands start
        (``controller.store.session_players``). ``house``: the house ruleset it plays."""
        session_id = session_id or uuid.uuid4().hex
        now = utcnow()
        row = {
            "id": session_id,
            "parlour": parlour,
            "table_id": table_id,
            "ruleset": ruleset,
            "options": _json_copy(dict(options or {}), "options"),
            "players": [],
            "started_at": now,
            "house": None if house is None else _json_copy(dict(house), "house"),
        }
        try:
            with self.engine.begin() as c:
                c.execute(insert(SESSIONS), row)
                bump(c, [Change(table_id, parlour, sessions=1).seen(now)])
        except IntegrityError:
            raise StoreInputError(f"session {session_id!r} already exists") from None
        return session_id

    def end_session(self, session_id: str) -> None:
        with self.engine.begin() as c:
            found = c.execute(
                select(SESSIONS.c.ended_at).where(SESSIONS.c.id == session_id)
            ).first()
            if found is None:
                raise UnknownSession(session_id)
            if found.ended_at is None:
                c.execute(
                    update(SESSIONS).where(SESSIONS.c.id == session_id).values(ended_at=utcnow())
                )

    def set_session_rules(
        self,
        session_id: str,
        *,
        ruleset: str,
        options: Mapping[str, Any],
        house: Mapping[str, Any] | None,
    ) -> None:
        """The rules the open session plays from its next hand on (an owner's assignment
        "from the next hand"): a restart resumes it with these."""
        values = {
            "ruleset": ruleset,
            "options": _json_copy(dict(options), "options"),
            "house": None if house is None else _json_copy(dict(house), "house"),
        }
        with self.engine.begin() as c:
            changed = update(SESSIONS).where(SESSIONS.c.id == session_id).values(values)
            if c.execute(changed).rowcount == 0:
                raise UnknownSession(session_id)

    def get_session(self, session_id: str) -> SessionRecord:
        with self.engine.connect() as c:
            row = c.execute(select(SESSIONS).where(SESSIONS.c.id == session_id)).first()
        if row is None:
            raise UnknownSession(session_id)
        return session_record(row)

    def open_session(self) -> SessionRecord | None:
        """The latest session not yet ended (resume after a power cut)."""
        query = (
            select(SESSIONS)
            .where(SESSIONS.c.ended_at.is_(None))
            .order_by(SESSIONS.c.started_at.desc())
            .limit(1)
        )
        with self.engine.connect() as c:
            row = c.execute(query).first()
        return session_record(row) if row is not None else None

    def list_sessions(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        ruleset: str | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[SessionRecord]:
        """Newest first; ``since``/``until`` bound the start time (aware datetimes)."""
        query = select(SESSIONS)
        if since is not None:
            query = query.where(SESSIONS.c.started_at >= since)
        if until is not None:
            query = query.where(SESSIONS.c.started_at < until)
        if ruleset is not None:
            query = query.where(SESSIONS.c.ruleset == ruleset)
        query = query.order_by(SESSIONS.c.started_at.desc()).limit(limit).offset(offset)
        with self.engine.connect() as c:
            return [session_record(r) for r in c.execute(query)]

    # --- hands and events -----------------------------------------------------------------

    def start_hand(
        self,
        *,
        ruleset: str,
        hand_no: int = 1,
        session_id: str | None = None,
        dealer: int | None = None,
        hand_id: str | None = None,
        events: Sequence[Mapping[str, Any]] = (),
        outbox: Sequence[OutboxMessage] = (),
        parlour: str | None = None,
        table_id: str | None = None,
        clock_synced: bool | None = None,
        house: Mapping[str, Any] | None = None,
    ) -> str:
        """A new open hand (with its first events, if given, in the same transaction).
        It gets the next ``table_seq`` (the store is one table's; one writer at a time).

        ``table_id``/``parlour``: where it is played (the owners' queries find a table's
        hands by ``hands.table_id``, indexed); when not given they are the session's."""
        payloads = [_event_payload(i, e) for i, e in enumerate(events)]
        messages = _check_messages(outbox)
        _seat(dealer, "dealer")
        now = utcnow()
        hand_id = hand_id or uuid.uuid4().hex
        with self.engine.begin() as c:
            if session_id is not None:
                session = c.execute(
                    select(SESSIONS.c.table_id, SESSIONS.c.parlour).where(
                        SESSIONS.c.id == session_id
                    )
                ).first()
                if session is None:
                    raise UnknownSession(session_id)
                table_id = table_id or session.table_id
                parlour = parlour or session.parlour
            if c.execute(select(HANDS.c.id).where(HANDS.c.id == hand_id)).first() is not None:
                raise StoreInputError(f"hand_id: {hand_id!r} already exists")
            seq = c.scalar(select(func.coalesce(func.max(HANDS.c.table_seq), 0)))
            # past what the store lost too: a lost hand's number is never given again
            seq = max(int(seq or 0), self.high_water.mark.next_seq if self.high_water else 0)
            row = {
                "id": hand_id,
                "session_id": session_id,
                "table_seq": seq + 1,
                "clock_synced": clock_synced,
                "hand_no": hand_no,
                "ruleset": ruleset,
                "dealer": dealer,
                "status": OPEN,
                "started_at": now,
                "parlour": parlour or None,
                "table_id": table_id or None,
                # who sits where as it starts (members: controller.store.members)
                "players": seating_in(c, table_id or ""),
                "house": None if house is None else _json_copy(dict(house), "house"),
            }
            c.execute(insert(HANDS), row)
            if session_id is not None:
                add_hand(c, session_id, row["players"])
            claim_seat_acts(c, table_id or "", hand_id)
            change = Change(table_id or "", parlour or "", hands=1, open_hands=1)
            bump(c, [change.seen(now)])
            if payloads:
                c.execute(_INSERT_EVENTS, _event_values(hand_id, 0, payloads, now))
            if messages:
                c.execute(_INSERT_OUTBOX, _outbox_values(messages, time.time()))
            if self.high_water is not None:
                self.high_water.reserve(seq + 1)  # (before the commit: never given twice)
        if self.high_water is not None:
            self.high_water.numbered(seq + 1)
        self._count_appended(len(payloads))
        self._count_enqueued(len(messages))
        return hand_id

    def append(
        self,
        hand_id: str,
        events: Sequence[Mapping[str, Any]],
        *,
        expected_seq: int | None = None,
        outbox: Sequence[OutboxMessage] = (),
        durable: bool = True,
        kept: KeptAnswer | None = None,
    ) -> list[int]:
        """Append events (dicts with a ``type``) to an open hand; returns their seqs.

        Committed before it returns. All or nothing: a bad event, an unknown or closed hand,
        or ``expected_seq`` not being the hand's next seq raises and writes nothing.
        ``durable=False`` (a live move): committed without waiting for the fsync, which
        follows within the WalSyncer's delay. ``kept``: the answer to the request that
        made them, kept with its key in the same transaction.
        """
        payloads = [_event_payload(i, e) for i, e in enumerate(events)]
        messages = _check_messages(outbox)
        now = utcnow()
        # On the path from a tile moving to the display: two statements built once.
        transaction = self.engine.begin() if durable else self._lazy_transaction()
        try:
            with transaction as c:
                next_seq = self._write_events(c, hand_id, expected_seq, payloads, now)
                if messages:
                    c.execute(_INSERT_OUTBOX, _outbox_values(messages, time.time()))
                if kept is not None:
                    kept.write(c)
        except IntegrityError:
            # (hand_id, seq) unique: another writer appended between our read and insert.
            raise SequenceConflict(f"hand {hand_id}: concurrent append") from None
        self._count_appended(len(payloads))
        self._count_enqueued(len(messages))
        return list(range(next_seq, next_seq + len(payloads)))

    def load_hand(self, hand_id: str) -> StoredHand:
        with self.engine.connect() as c:
            found = c.execute(_HAND_AND_SETTLEMENT.where(HANDS.c.id == hand_id)).first()
            if found is None:
                raise UnknownHand(hand_id)
            return self._stored_hand(c, found)

    def open_hand(self) -> StoredHand | None:
        """The latest hand still in progress, with its events (resume after a power cut)."""
        query = _HAND_AND_SETTLEMENT.where(HANDS.c.status == OPEN).order_by(*NEWEST_FIRST).limit(1)
        with self.engine.connect() as c:
            found = c.execute(query).first()
            return self._stored_hand(c, found) if found is not None else None

    def record_settlement(
        self,
        hand_id: str,
        settlement: Mapping[str, Any],
        *,
        result: str,
        winner: int | None = None,
        discarder: int | None = None,
        outbox: Sequence[OutboxMessage] = (),
        hand_net: Sequence[float] | None = None,
        played_s: float | None = None,
    ) -> HandRecord:
        """Store ``Settlement.as_dict()`` and finish the hand, in one transaction; returns
        the finished hand's record.

        ``result`` says how it ended (win, self_draw, draw, …) for the owners' filters.
        ``hand_net``: what the hand moved in all, when acts of staff moved points beside
        its settlement (the owners' totals read it); default the settlement's nets.
        """
        closing = HandSettled.checked(settlement, result, winner, discarder, hand_net, played_s)
        messages = _check_messages(outbox)
        with self.engine.begin() as c:
            finished = self._finish(c, hand_id, closing)
            if messages:
                c.execute(_INSERT_OUTBOX, _outbox_values(messages, time.time()))
        self._mark_settled(finished)
        self._count_enqueued(len(messages))
        return finished

    def append_and_settle(
        self,
        hand_id: str,
        events: Sequence[Mapping[str, Any]],
        closing: HandSettled,
        *,
        expected_seq: int,
        outbox: Sequence[OutboxMessage] = (),
        kept: KeptAnswer | None = None,
    ) -> HandRecord:
        """The events that end a hand, its outbox rows and its settlement (the hand's row
        finished), and ``kept`` (as ``append``'s): one transaction, as ``append`` then
        ``record_settlement``; returns the finished hand's record."""
        payloads = [_event_payload(i, e) for i, e in enumerate(events)]
        messages = _check_messages(outbox)
        now = utcnow()
        try:
            with self.engine.begin() as c:
                self._write_events(c, hand_id, expected_seq, payloads, now)
                finished = self._finish(c, hand_id, closing)
                if messages:
                    c.execute(_INSERT_OUTBOX, _outbox_values(messages, time.time()))
                if kept is not None:
                    kept.write(c)
        except IntegrityError:
            raise SequenceConflict(f"hand {hand_id}: concurrent append") from None
        self._mark_settled(finished)
        self._count_appended(len(payloads))
        self._count_enqueued(len(messages))
        return finished

    def _mark_settled(self, record: HandRecord) -> None:
        """The mark outside the database follows each committed settlement (high_water)."""
        if self.high_water is not None:
            seq = record.table_seq or 0
            self.high_water.settled(record.id, record.hand_no, record.session_id, seq)

    @classmethod
    def _write_events(
        cls,
        c: Connection,
        hand_id: str,
        expected_seq: int | None,
        payloads: list[dict[str, Any]],
        now: datetime,
    ) -> int:
        """The events appended to the open hand inside ``c``; returns the first one's seq."""
        next_seq = cls._next_seq(c, hand_id, expected_seq)
        if payloads:
            c.execute(_INSERT_EVENTS, _event_values(hand_id, next_seq, payloads, now))
        return next_seq

    @staticmethod
    def _next_seq(c: Connection, hand_id: str, expected_seq: int | None) -> int:
        """The open hand's next seq (raises UnknownHand, HandClosed, SequenceConflict)."""
        found = c.execute(_HAND_STATE, {"hand_id": hand_id}).first()
        if found is None:
            raise UnknownHand(hand_id)
        status, next_seq = found
        if status != OPEN:
            raise HandClosed(f"hand {hand_id} is {status}")
        if expected_seq is not None and expected_seq != next_seq:
            raise SequenceConflict(
                f"hand {hand_id}: expected seq {expected_seq}, the next is {next_seq}"
            )
        return int(next_seq)

    @staticmethod
    def _finish(c: Connection, hand_id: str, closing: HandSettled) -> HandRecord:
        """Settle the open hand ``hand_id`` inside transaction ``c``."""
        now = utcnow()
        payload = closing.settlement
        nets = {f"net_{i}": n for i, n in enumerate(payload["net"])}
        moved = (
            nets
            if closing.hand_net is None
            else {f"net_{i}": n for i, n in enumerate(closing.hand_net)}
        )
        hand = c.execute(
            select(HANDS.c.status, HANDS.c.ruleset, HANDS.c.table_id).where(HANDS.c.id == hand_id)
        ).first()
        if hand is None:
            raise UnknownHand(hand_id)
        if hand.status != OPEN:
            raise HandClosed(f"hand {hand_id} is {hand.status}")
        done = {"status": FINISHED, "result": closing.result, "ended_at": now}
        done |= {"winner": closing.winner, "discarder": closing.discarder}
        done["played_s"] = closing.played_s
        finished = c.execute(
            update(HANDS).where(HANDS.c.id == hand_id).values(**done, **moved).returning(*HANDS.c)
        ).one()
        void = bool(payload.get("void", False))
        row = {"hand_id": hand_id, "ruleset": hand.ruleset, "void": void, **nets}
        c.execute(insert(SETTLEMENTS).values(**row, payload=payload, created_at=now))
        bump(c, [Change(hand.table_id or "", open_hands=-1)])
        return hand_record(finished)

    def amend_finished(
        self,
        hand_id: str,
        events: Sequence[Mapping[str, Any]],
        *,
        expected_seq: int,
        settlement: Mapping[str, Any],
        result: str,
        winner: int | None,
        discarder: int | None,
        hand_net: Sequence[float],
        outbox: Sequence[OutboxMessage] = (),
        kept: KeptAnswer | None = None,
    ) -> HandRecord:
        """Acts of staff on a finished hand (a correction, a void, before the next hand):
        its new events, its standing settlement and what it moved, and ``kept`` (as
        ``append``'s), in one transaction; its handlog is due again (the hub takes the
        longer log)."""
        payloads = [_event_payload(i, e) for i, e in enumerate(events)]
        stored = _json_copy(dict(settlement), "settlement")
        nets = {f"net_{i}": n for i, n in enumerate(stored["net"])}
        moved = {f"net_{i}": n for i, n in enumerate(hand_net)}
        messages = _check_messages(outbox)
        _seat(winner, "winner")
        _seat(discarder, "discarder")
        now = utcnow()
        with self.engine.begin() as c:
            found = c.execute(_HAND_STATE, {"hand_id": hand_id}).first()
            if found is None:
                raise UnknownHand(hand_id)
            status, next_seq = found
            if status != FINISHED:
                raise HandClosed(f"hand {hand_id} is {status}, not finished")
            if expected_seq != next_seq:
                raise SequenceConflict(
                    f"hand {hand_id}: expected seq {expected_seq}, the next is {next_seq}"
                )
            if payloads:
                c.execute(_INSERT_EVENTS, _event_values(hand_id, next_seq, payloads, now))
            changed = {"result": result, "winner": winner, "discarder": discarder}
            finished = c.execute(
                update(HANDS)
                .where(HANDS.c.id == hand_id)
                .values(**changed, **moved, handlog_acked_at=None)
                .returning(*HANDS.c)
            ).one()
            void = bool(stored.get("void", False))
            c.execute(
                update(SETTLEMENTS)
                .where(SETTLEMENTS.c.hand_id == hand_id)
                .values(payload=stored, void=void, **nets)
            )
            if messages:
                c.execute(_INSERT_OUTBOX, _outbox_values(messages, time.time()))
            if kept is not None:
                kept.write(c)
        self._count_appended(len(payloads))
        self._count_enqueued(len(messages))
        return hand_record(finished)

    def abort_hand(self, hand_id: str, note: str) -> None:
        """Give up an open hand (it cannot be resumed); its events stay for the owner."""
        with self.engine.begin() as c:
            hand = c.execute(
                select(HANDS.c.status, HANDS.c.table_id).where(HANDS.c.id == hand_id)
            ).first()
            if hand is None:
                raise UnknownHand(hand_id)
            if hand.status != OPEN:
                raise HandClosed(f"hand {hand_id} is {hand.status}")
            aborted = {"status": ABORTED, "ended_at": utcnow(), "note": note}
            c.execute(update(HANDS).where(HANDS.c.id == hand_id).values(**aborted))
            bump(c, [Change(hand.table_id or "", open_hands=-1)])

    def list_hands(
        self,
        *,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        ruleset: str | None = None,
        status: str | None = None,
        result: str | None = None,
        winner: int | None = None,
        seat: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[HandRecord]:
        """Newest first. ``seat``: hands that seat won or dealt in; ``since``/``until``
        bound the start time (aware datetimes, ``until`` exclusive)."""
        query = select(HANDS).where(
            *hand_filters(
                since=since,
                until=until,
                ruleset=ruleset,
                status=status,
                result=result,
                winner=winner,
                seat=seat,
                session_id=session_id,
            )
        )
        query = query.order_by(*NEWEST_FIRST).limit(limit).offset(offset)
        with self.engine.connect() as c:
            return [hand_record(h) for h in c.execute(query)]

    # --- the hub's acknowledgements of handlog messages -------------------------------------

    def mark_handlog_acked(self, hand_id: str) -> bool:
        """Record the hub's ack (idempotent); True the first time."""
        with self.engine.begin() as c:
            hand = c.execute(select(HANDS.c.handlog_acked_at).where(HANDS.c.id == hand_id)).first()
            if hand is None:
                raise UnknownHand(hand_id)
            if hand.handlog_acked_at is not None:
                return False
            acked = update(HANDS).where(HANDS.c.id == hand_id).values(handlog_acked_at=utcnow())
            c.execute(acked)
            return True

    def unacked_handlogs(self, limit: int = 100) -> list[HandRecord]:
        """Finished hands the hub has not acknowledged yet, oldest first (to resend)."""
        query = (
            select(HANDS)
            .where(HANDS.c.status == FINISHED, HANDS.c.handlog_acked_at.is_(None))
            .order_by(*OLDEST_FIRST)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [hand_record(h) for h in c.execute(query)]

    # --- outbox -----------------------------------------------------------------------------

    def enqueue(self, messages: Sequence[OutboxMessage]) -> list[int]:
        """Store messages to publish (committed before it returns); returns their ids."""
        values = _outbox_values(_check_messages(messages), time.time())
        if not values:
            return []
        with self.engine.begin() as c:
            rows = c.execute(
                insert(OUTBOX).returning(OUTBOX.c.id, sort_by_parameter_order=True), values
            )
            ids = [i for (i,) in rows]
        self._count_enqueued(len(ids))
        return ids

    def outbox_peek(self, limit: int = 100, after_id: int = 0) -> list[OutboxEntry]:
        """The oldest messages not yet acknowledged, in order."""
        with self.engine.connect() as c:
            rows = c.execute(_OUTBOX_PEEK, {"after_id": after_id, "limit": limit})
            return [OutboxEntry(*row) for row in rows]

    def outbox_ack(self, entry_ids: int | Sequence[int]) -> None:
        """The broker acknowledged them: forget them (a batch is one transaction, so the
        publisher does not wait for the write lock once per message)."""
        ids = [entry_ids] if isinstance(entry_ids, int) else list(entry_ids)
        if not ids:
            return
        # Lazy: a delete lost in a power cut only sends those messages again (delivery is
        # at least once anyway), and a short write keeps the next append from waiting for
        # the lock.
        with self._lazy_transaction() as c:
            gone = c.execute(delete(OUTBOX).where(OUTBOX.c.id.in_(ids))).rowcount
        self._count_enqueued(-gone)  # rows really deleted: an id acked twice counts once

    def outbox_depth(self) -> int:
        with self.engine.connect() as c:
            return c.scalar(select(func.count()).select_from(OUTBOX)) or 0

    # --- alerts -----------------------------------------------------------------------------

    def record_alert(
        self,
        hand_id: str | None,
        kind: str,
        seat: int | None,
        message: str,
        detail: str,
        *,
        outbox: Sequence[OutboxMessage] = (),
    ) -> None:
        """Keep an alert, its public message and its private detail (for the owner's log),
        with its publication in the same transaction."""
        _seat(seat, "seat")
        messages = _check_messages(outbox)
        row = {"hand_id": hand_id, "kind": kind[:MAX_TYPE_LENGTH], "seat": seat}
        row |= {"message": message[:MAX_ALERT_TEXT], "detail": detail[:MAX_ALERT_TEXT]}
        with self.engine.begin() as c:
            c.execute(insert(ALERTS).values(**row, created_at=utcnow()))
            if messages:
                c.execute(_INSERT_OUTBOX, _outbox_values(messages, time.time()))
        self._count_enqueued(len(messages))

    def write_with(
        self, write: Callable[[Connection], T], *, outbox: Sequence[OutboxMessage] = ()
    ) -> T:
        """``write``'s change (seat acts: ``controller.table.seating``) and ``outbox`` in one
        transaction; what ``write`` raises undoes both."""
        messages = _check_messages(outbox)
        with self.engine.begin() as c:
            result = write(c)
            if messages:
                c.execute(_INSERT_OUTBOX, _outbox_values(messages, time.time()))
        self._count_enqueued(len(messages))
        return result

    def alerts_of(self, hand_id: str) -> list[AlertRecord]:
        """A hand's alerts with their private details, oldest first (owners only)."""
        query = select(ALERTS).where(ALERTS.c.hand_id == hand_id).order_by(ALERTS.c.id)
        with self.engine.connect() as c:
            return [
                AlertRecord(r.id, r.hand_id, r.kind, r.seat, r.message, r.detail, r.created_at)
                for r in c.execute(query)
            ]

    # --- helpers ----------------------------------------------------------------------------

    @staticmethod
    def _stored_hand(c: Connection, found: Row[Any]) -> StoredHand:
        """``found``: a row of ``_HAND_AND_SETTLEMENT``."""
        rows = c.execute(_EVENTS_OF, {"hand_id": found.id})
        return StoredHand(
            hand=hand_record(found),
            events=tuple(StoredEvent(*row) for row in rows),
            settlement=found.settlement,
        )

    def _count_enqueued(self, n: int) -> None:
        # The one place the outbox gauge moves: rows stored (by any writer) and deleted.
        if self.metrics is not None and n:
            self.metrics.outbox_depth.inc(n)

    def _count_appended(self, n: int) -> None:
        if self.metrics is not None and n:
            self.metrics.events_appended.inc(n)
