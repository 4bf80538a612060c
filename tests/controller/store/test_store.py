"""The event store on SQLite: append-only events, hands, settlements, filters, outbox."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from controller.process.metrics import Metrics
from controller.store import (
    EventStore,
    HandClosed,
    OutboxMessage,
    SequenceConflict,
    StoreInputError,
    UnknownHand,
    UnknownSession,
)

SETTLEMENT = {
    "lines": [{"code": "win", "reason": "平胡 自摸", "from": 1, "to": 0, "amount": 4}],
    "net": [12, -4, -4.5, -3.5],
    "next_dealer": 0,
    "void": False,
}


def ev(kind: str, **fields: object) -> dict[str, object]:
    return {"type": kind, **fields}


def test_pragmas_wal_full_foreign_keys(store: EventStore) -> None:
    with store.engine.connect() as c:
        assert c.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert c.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
        assert c.execute(text("PRAGMA foreign_keys")).scalar() == 1


def test_append_and_load_in_order(store: EventStore) -> None:
    session = store.start_session(ruleset="xingguo", parlour="p", table_id="t1")
    hand = store.start_hand(
        ruleset="xingguo", session_id=session, dealer=2, events=[ev("hand_started", dealer=2)]
    )
    assert store.append(hand, [ev("dice", values=[3, 4]), ev("flip", tile=17)]) == [1, 2]
    assert store.append(hand, [ev("discard", seat=2, tile=5, note="东风")]) == [3]
    loaded = store.load_hand(hand)
    assert [e.seq for e in loaded.events] == [0, 1, 2, 3]
    assert loaded.event_dicts()[1] == {"type": "dice", "values": [3, 4]}
    assert loaded.event_dicts()[3]["note"] == "东风"
    assert loaded.next_seq == 4
    assert loaded.hand.status == "open" and loaded.hand.dealer == 2
    assert loaded.events[0].created_at.tzinfo is not None


def test_tuples_come_back_as_lists(store: EventStore) -> None:
    hand = store.start_hand(ruleset="xingguo")
    store.append(hand, [ev("wall", order=(1, 2, (3, 4)))])
    assert store.load_hand(hand).event_dicts() == [{"type": "wall", "order": [1, 2, [3, 4]]}]


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([ev("ok"), {"seat": 1}], "events[1]: needs a 'type' name"),
        ([ev("ok"), ev("bad", tiles={1, 2})], "events[1] (bad): not JSON-serialisable"),
        ([ev("nan", x=float("nan"))], "events[0] (nan): not JSON-serialisable"),
        (["draw"], "events[0]: expected a dict"),
        ([ev("x" * 65)], "events[0]: needs a 'type' name"),
    ],
)
def test_bad_events_write_nothing(store: EventStore, events: list[object], message: str) -> None:
    hand = store.start_hand(ruleset="xingguo", events=[ev("hand_started")])
    with pytest.raises(StoreInputError, match=re.escape(message)):
        store.append(hand, events)  # type: ignore[arg-type]
    assert store.load_hand(hand).next_seq == 1


def test_expected_seq_guards_concurrent_writers(store: EventStore) -> None:
    hand = store.start_hand(ruleset="xingguo")
    store.append(hand, [ev("a")], expected_seq=0)
    with pytest.raises(SequenceConflict, match="expected seq 0, the next is 1"):
        store.append(hand, [ev("b")], expected_seq=0)
    assert store.append(hand, [ev("b")], expected_seq=1) == [1]


def test_concurrent_appends_never_share_a_seq(store: EventStore) -> None:
    hand = store.start_hand(ruleset="xingguo")
    done: list[int] = []

    def writer(n: int) -> None:
        for i in range(20):
            while True:
                try:
                    done.extend(store.append(hand, [ev("w", writer=n, i=i)]))
                    break
                except SequenceConflict:
                    continue

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = store.load_hand(hand).events
    assert [e.seq for e in events] == list(range(60)) == sorted(done)


def test_unknown_and_closed_hands(store: EventStore) -> None:
    with pytest.raises(UnknownHand):
        store.append("nope", [ev("a")])
    with pytest.raises(UnknownHand):
        store.load_hand("nope")
    with pytest.raises(UnknownSession):
        store.start_hand(ruleset="xingguo", session_id="nope")
    hand = store.start_hand(ruleset="xingguo", hand_id="h1")
    with pytest.raises(StoreInputError, match="already exists"):
        store.start_hand(ruleset="xingguo", hand_id="h1")
    store.record_settlement(hand, SETTLEMENT, result="self_draw", winner=0)
    with pytest.raises(HandClosed, match="finished"):
        store.append(hand, [ev("late")])
    with pytest.raises(HandClosed):
        store.record_settlement(hand, SETTLEMENT, result="self_draw", winner=0)


def test_open_hand_is_the_latest_unfinished(store: EventStore) -> None:
    assert store.open_hand() is None
    first = store.start_hand(ruleset="xingguo", hand_no=1, events=[ev("hand_started")])
    store.record_settlement(first, SETTLEMENT, result="self_draw", winner=0)
    second = store.start_hand(ruleset="xingguo", hand_no=2, events=[ev("hand_started")])
    store.append(second, [ev("draw", seat=0)])
    found = store.open_hand()
    assert found is not None and found.hand.id == second and found.next_seq == 2
    store.abort_hand(second, "table board reset")
    assert store.open_hand() is None
    assert store.load_hand(second).hand.note == "table board reset"


def test_settlement_nets_and_filters(store: EventStore) -> None:
    session = store.start_session(ruleset="xingguo")
    h1 = store.start_hand(ruleset="xingguo", session_id=session, hand_no=1)
    store.record_settlement(h1, SETTLEMENT, result="self_draw", winner=0)
    h2 = store.start_hand(ruleset="xingguo", session_id=session, hand_no=2)
    store.record_settlement(
        h2, SETTLEMENT | {"net": [-8, 8, 0, 0]}, result="win", winner=1, discarder=0
    )
    h3 = store.start_hand(ruleset="guangdong", hand_no=1)
    store.record_settlement(h3, SETTLEMENT | {"void": True, "net": [0, 0, 0, 0]}, result="draw")
    store.start_hand(ruleset="xingguo", session_id=session, hand_no=3)

    loaded = store.load_hand(h1)
    assert loaded.settlement == SETTLEMENT
    assert loaded.hand.net == (12, -4, -4.5, -3.5)
    assert loaded.hand.status == "finished" and loaded.hand.ended_at is not None

    def ids(**filters: object) -> list[str]:
        return [h.id for h in store.list_hands(**filters)]  # type: ignore[arg-type]

    assert ids(session_id=session, status="finished") == [h2, h1]  # newest first
    assert ids(ruleset="guangdong") == [h3]
    assert ids(result="win") == [h2]
    assert ids(winner=0) == [h1]
    assert set(ids(seat=0)) == {h1, h2}  # won one, dealt in the other
    assert ids(seat=3) == []
    now = datetime.now(UTC)
    assert len(ids(since=now - timedelta(minutes=5))) == 4
    assert ids(until=now - timedelta(minutes=5)) == []
    assert len(ids(limit=2)) == 2 and len(ids(limit=2, offset=2)) == 2
    assert store.get_session(session).players == []  # nobody registered sat: no members


def test_bad_settlement_is_refused(store: EventStore) -> None:
    hand = store.start_hand(ruleset="xingguo")
    with pytest.raises(StoreInputError, match=r"settlement.net: expected 4 numbers"):
        store.record_settlement(hand, SETTLEMENT | {"net": [1, 2, 3]}, result="win")
    with pytest.raises(StoreInputError, match="winner: a seat 0-3"):
        store.record_settlement(hand, SETTLEMENT, result="win", winner=4)
    assert store.load_hand(hand).hand.status == "open"


def test_sessions(store: EventStore) -> None:
    first = store.start_session(ruleset="xingguo")
    store.end_session(first)
    second = store.start_session(ruleset="guangdong", options={"stake": 2})
    found = store.open_session()
    assert found is not None and found.id == second and found.options == {"stake": 2}
    assert [s.id for s in store.list_sessions()] == [second, first]
    assert [s.id for s in store.list_sessions(ruleset="xingguo")] == [first]
    with pytest.raises(UnknownSession):
        store.end_session("nope")
    with pytest.raises(StoreInputError, match="already exists"):  # not a raw IntegrityError
        store.start_session(ruleset="xingguo", session_id=first)
    assert [s.id for s in store.list_sessions()] == [second, first]  # nothing written


def test_handlog_acks(store: EventStore) -> None:
    h1 = store.start_hand(ruleset="xingguo")
    h2 = store.start_hand(ruleset="xingguo")
    store.start_hand(ruleset="xingguo")  # still open: no handlog yet
    store.record_settlement(h1, SETTLEMENT, result="self_draw", winner=0)
    store.record_settlement(h2, SETTLEMENT, result="self_draw", winner=0)
    assert [h.id for h in store.unacked_handlogs()] == [h1, h2]
    assert store.mark_handlog_acked(h1) is True
    assert store.mark_handlog_acked(h1) is False  # the hub may ack twice
    assert [h.id for h in store.unacked_handlogs()] == [h2]


def test_outbox_order_and_atomic_append(store: EventStore) -> None:
    ids = store.enqueue([OutboxMessage("a/jing", '{"x":1}', 1, True)])
    hand = store.start_hand(ruleset="xingguo")
    store.append(
        hand,
        [ev("draw")],
        outbox=[OutboxMessage("a/events", '{"seq":0}'), OutboxMessage("a/hand", "{}", 1, True)],
    )
    entries = store.outbox_peek()
    assert [e.topic for e in entries] == ["a/jing", "a/events", "a/hand"]
    assert entries[0].id == ids[0] and entries[0].retain and not entries[1].retain
    assert store.outbox_depth() == 3
    store.outbox_ack(entries[0].id)
    assert [e.topic for e in store.outbox_peek()] == ["a/events", "a/hand"]
    # A bad event: neither it nor its messages are written.
    with pytest.raises(StoreInputError):
        store.append(hand, [{"no": "type"}], outbox=[OutboxMessage("a/events", "{}")])
    assert store.outbox_depth() == 2
    with pytest.raises(StoreInputError, match="bad topic"):
        store.enqueue([OutboxMessage("a/+/x", "{}")])


def test_ids_are_not_reused_after_draining(store: EventStore) -> None:
    (first,) = store.enqueue([OutboxMessage("a/events", "1")])
    store.outbox_ack(first)
    (second,) = store.enqueue([OutboxMessage("a/events", "2")])
    assert second > first


def test_events_appended_metric(store_url: str) -> None:
    metrics = Metrics()
    s = EventStore.open(store_url, metrics=metrics)
    hand = s.start_hand(ruleset="xingguo", events=[ev("a")])
    s.append(hand, [ev("b"), ev("c")])
    assert metrics.registry.get_sample_value("mjtable_events_appended_total") == 3
    s.close()


def test_in_memory_database(tmp_path: object) -> None:
    s = EventStore.open("sqlite://")
    hand = s.start_hand(ruleset="xingguo", events=[ev("a")])
    assert s.load_hand(hand).next_seq == 1
    s.close()
