"""A session's players (``sessions.players``): kept by each hand that starts, in its
transaction, they always equal what the session's hands say, recomputed; a deleted member
leaves them; migration 0012 back-fills a store made before it."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, select, text

from controller.store import EventStore, make_engine
from controller.store.members import Members
from controller.store.migrate import upgrade
from controller.store.models import HANDS, SESSIONS
from controller.store.records import StoreInputError
from controller.store.session_players import of_hands

SETTLEMENT = {"net": [3, -1, -1, -1], "lines": []}


def _hands_players(store: EventStore, session_id: str) -> list[Any]:
    """The session's hands' ``players``, oldest first (by the table's running number)."""
    with store.engine.connect() as c:
        return list(
            c.scalars(
                select(HANDS.c.players)
                .where(HANDS.c.session_id == session_id)
                .order_by(HANDS.c.table_seq)
            )
        )


def _union(hands: Sequence[Any]) -> list[dict[str, Any]]:
    """The oracle, computed apart from the store's fold: each member who sat, ordered by
    (hand, seat) of their first sitting, with every seat they took and their latest name."""
    first: dict[str, tuple[int, int]] = {}
    seats: dict[str, set[int]] = {}
    name: dict[str, str] = {}
    for n, hand in enumerate(hands):
        for seat, who in enumerate(hand or []):
            if who is None:
                continue
            first.setdefault(who["member_id"], (n, seat))
            seats.setdefault(who["member_id"], set()).add(seat)
            name[who["member_id"]] = who["name"]
    return [
        {"member_id": m, "name": name[m], "seats": sorted(seats[m])}
        for m in sorted(first, key=first.__getitem__)
    ]


# A step between hands: sit a member (index into the pool) or a guest (None) at a seat,
# rename or delete a member of the pool; or play a hand (settled, aborted or left open
# until the next one starts).
POOL = 4
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("sit"), st.integers(0, 3), st.none() | st.integers(0, POOL - 1)),
        st.tuples(st.just("hand"), st.sampled_from(["settle", "abort"]), st.none()),
        st.tuples(st.just("rename"), st.integers(0, POOL - 1), st.sampled_from(["甲", "Bo"])),
        st.tuples(st.just("delete"), st.integers(0, POOL - 1), st.none()),
    ),
    min_size=4,
    max_size=40,
)


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    store = EventStore.open(f"sqlite:///{tmp_path_factory.mktemp('sp') / 'mjtable.db'}")
    yield store
    store.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS)
def test_session_players_equal_the_union_of_its_hands(
    shared_store: EventStore, steps: list[tuple[str, Any, Any]]
) -> None:
    store = shared_store
    table = uuid.uuid4().hex  # each example its own table, session and members
    members = Members(store.engine, table_id=table, parlour="p")
    pool = [members.add(f"m{i}").member_id for i in range(POOL)]
    deleted: set[str] = set()
    session = store.start_session(ruleset="xingguo", parlour="p", table_id=table)
    hand_no = 0
    for kind, a, b in [*steps, ("hand", "settle", None)]:
        if kind == "sit":
            if b is None or pool[b] not in deleted:
                members.sit(a, None if b is None else pool[b], "staff:ann")
        elif kind == "rename" and pool[a] not in deleted:
            members.edit(pool[a], name=b)
        elif kind == "delete" and pool[a] not in deleted:
            members.remove(pool[a])
            deleted.add(pool[a])
        elif kind == "hand":
            hand_no += 1
            hand = store.start_hand(ruleset="xingguo", session_id=session, hand_no=hand_no)
            if a == "settle":
                store.record_settlement(hand, SETTLEMENT, result="self_draw", winner=0)
            else:
                store.abort_hand(hand, "reset")
        hands = _hands_players(store, session)
        stored = store.get_session(session).players
        assert stored == _union(hands) == of_hands(hands)
        assert not deleted & {p["member_id"] for p in stored or []}


def test_a_hand_that_fails_to_start_leaves_the_session_as_it_was(store: EventStore) -> None:
    members = Members(store.engine, table_id="t1", parlour="p")
    wang = members.add("王五")
    session = store.start_session(ruleset="xingguo", parlour="p", table_id="t1")
    store.start_hand(ruleset="xingguo", session_id=session, hand_id="h1")
    members.sit(2, wang.member_id, "card")
    with pytest.raises(StoreInputError):  # the same hand id again: nothing is written
        store.start_hand(ruleset="xingguo", session_id=session, hand_id="h1")
    assert store.get_session(session).players == []
    store.start_hand(ruleset="xingguo", session_id=session, hand_id="h2")
    assert store.get_session(session).players == [
        {"member_id": wang.member_id, "name": "王五", "seats": [2]}
    ]


def test_a_deleted_member_leaves_every_session(store: EventStore) -> None:
    members = Members(store.engine, table_id="t1", parlour="p")
    wang, li = members.add("王五"), members.add("Li")
    members.sit(0, wang.member_id, "card")
    members.sit(1, li.member_id, "card")
    sessions = []
    for n in range(2):
        sessions.append(store.start_session(ruleset="xingguo", parlour="p", table_id="t1"))
        store.start_hand(ruleset="xingguo", session_id=sessions[-1], hand_no=n + 1)
        members.sit(3, wang.member_id, "staff:ann")  # Wang moves to seat 3
    first = store.get_session(sessions[0]).players
    assert first == [
        {"member_id": wang.member_id, "name": "王五", "seats": [0]},
        {"member_id": li.member_id, "name": "Li", "seats": [1]},
    ]
    assert store.get_session(sessions[1]).players == [
        {"member_id": li.member_id, "name": "Li", "seats": [1]},
        {"member_id": wang.member_id, "name": "王五", "seats": [3]},
    ]
    members.remove(wang.member_id)
    for sid in sessions:
        players = store.get_session(sid).players
        assert players == [{"member_id": li.member_id, "name": "Li", "seats": [1]}]
        assert players == of_hands(_hands_players(store, sid))
        assert wang.member_id not in str(players) and "王五" not in str(players)


def test_migration_0012_backfills_sessions_from_their_hands(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    upgrade(engine, "0011")
    at = datetime(2026, 1, 1)  # as SQLite stores them: naive UTC
    wang = {"member_id": "a" * 32, "name": "王五"}
    li = {"member_id": "b" * 32, "name": "Li"}
    li_renamed = {"member_id": "b" * 32, "name": "Li Na"}
    with engine.begin() as c:
        c.execute(
            text(
                "INSERT INTO sessions (id, parlour, table_id, ruleset, options, players,"
                " started_at) VALUES ('s1', 'p', 't1', 'jian', '{}', NULL, :at),"
                " ('s2', 'p', 't1', 'jian', '{}', NULL, :at),"
                " ('s3', 'p', 't1', 'jian', '{}', NULL, :at)"
            ),
            {"at": at},
        )
        # s1's hands stored out of order (its running numbers say which came first); s2's
        # from before members (no players); s3 has none.
        seated = [
            ("h3", "s1", 3, [None, li_renamed, None, wang]),
            ("h1", "s1", 1, [None, None, li, None]),
            ("h2", "s1", 2, [wang, None, li, None]),
            ("h4", "s2", 4, None),
            ("h0", None, 0, [wang, None, None, None]),
        ]
        for hid, sid, seq, players in seated:
            row = {"id": hid, "session_id": sid, "hand_no": seq, "ruleset": "jian"}
            row |= {"status": "finished", "started_at": at.replace(tzinfo=UTC), "table_seq": seq}
            c.execute(insert(HANDS).values(**row, players=players))
    upgrade(engine)
    with engine.connect() as c:
        got = dict(c.execute(select(SESSIONS.c.id, SESSIONS.c.players)).all())
    assert got == {
        "s1": [
            {"member_id": "b" * 32, "name": "Li Na", "seats": [1, 2]},
            {"member_id": "a" * 32, "name": "王五", "seats": [0, 3]},
        ],
        "s2": [],
        "s3": [],
    }
    engine.dispose()
    store = EventStore.open(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        assert got["s1"] == of_hands(_hands_players(store, "s1"))
        assert store.get_session("s1").players == got["s1"]
    finally:
        store.close()
