"""A session's players at the hub, on a real PostgreSQL: whatever order its hands arrive
in (and re-sent), the hub's ``sessions.players`` is what the hands it holds say, and once
all are in, the table's own; a member deleted through the registry message leaves it, and
a hand of theirs arriving later keeps them out; migration 0012 back-fills the hub's
sessions."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import select, update

from controller.hub.ingest import store_handlogs
from controller.hub.member_sync import MemberSnapshot, apply_members
from controller.store import EventStore, make_engine
from controller.store.members import Members, hand_seat_acts
from controller.store.migrate import alembic_config, upgrade
from controller.store.models import HANDS, SESSIONS
from controller.store.session_players import of_hands
from controller.table.handlog import Handlog, build_handlog, parse_handlog
from tests.controller.hub.hands import played_hands, record_hand

pytestmark = pytest.mark.timeout(180)


def _recomputed(store: EventStore, session_id: str) -> list[Any]:
    with store.engine.connect() as c:
        hands = c.scalars(
            select(HANDS.c.players)
            .where(HANDS.c.session_id == session_id)
            .order_by(HANDS.c.table_seq)
        )
        return of_hands(hands)


Played = tuple[EventStore, str, list[Handlog], dict[str, str]]


@pytest.fixture
def played(tmp_path: Path) -> Iterator[Played]:
    """A table's store, its session of 8 hands with members coming, moving and going
    between hands, the handlogs it sent, and the members' ids by name."""
    store = EventStore.open(f"sqlite:///{tmp_path / 't1.db'}")
    members = Members(store.engine, table_id="t1", parlour="p1")
    ids = {name: members.add(name).member_id for name in ("王五", "Li", "赵六")}
    session = store.start_session(ruleset="xingguo", parlour="p1", table_id="t1")
    seating = {
        0: [(2, "Li")],
        2: [(0, "王五")],
        4: [(3, "王五"), (0, "赵六")],
        6: [(2, None)],
    }
    logs = []
    for n, events in enumerate(played_hands(8, seed=4)):
        for seat, name in seating.get(n, []):
            members.sit(seat, None if name is None else ids[name], "staff:ann")
        hid = record_hand(store, events, session_id=session, hand_no=n + 1)
        acts = hand_seat_acts(store.engine, hid)
        payload = build_handlog(store.load_hand(hid), parlour="p1", table="t1", seat_acts=acts)
        logs.append(parse_handlog(payload))
    yield store, session, logs, ids
    store.close()


def test_the_hubs_session_players_follow_its_hands_in_any_order(
    hub_store: EventStore, played: Played
) -> None:
    table, session, logs, ids = played
    expected = table.get_session(session).players
    assert [p["name"] for p in expected or []] == ["Li", "王五", "赵六"]
    arriving = logs[:]
    random.Random(3).shuffle(arriving)
    held = next(log for log in arriving if log.hand_no == 5)  # 王五 and 赵六 sat in it
    arriving.remove(held)
    for start in range(0, len(arriving), 3):
        batch = arriving[start : start + 3]
        store_handlogs(hub_store.engine, [*batch, *batch[:1]])  # a re-send in the batch
        assert hub_store.get_session(session).players == _recomputed(hub_store, session)
    store_handlogs(hub_store.engine, [held])
    assert hub_store.get_session(session).players == expected == _recomputed(hub_store, session)
    assert store_handlogs(hub_store.engine, logs).stored == []  # all re-sent: nothing changes
    assert hub_store.get_session(session).players == expected

    # 赵六 is deleted at the table: the registry message tells the hub
    gone = ids["赵六"]
    apply_members(hub_store.engine, MemberSnapshot((), (gone,)), table="t1")
    players = hub_store.get_session(session).players
    assert players == _recomputed(hub_store, session) == (expected or [])[:2]
    assert gone not in str(players) and "赵六" not in str(players)


def test_a_hand_arriving_after_its_members_deletion_leaves_them_out(
    hub_store: EventStore, played: Played
) -> None:
    _, session, logs, ids = played
    apply_members(hub_store.engine, MemberSnapshot((), (ids["赵六"],)), table="t1")
    store_handlogs(hub_store.engine, logs[::-1])
    players = hub_store.get_session(session).players
    assert [p["name"] for p in players or []] == ["Li", "王五"]
    assert players == _recomputed(hub_store, session)


def test_migration_0012_backfills_the_hubs_sessions(pg_url: str, played: Played) -> None:
    table, session, logs, _ = played
    expected = table.get_session(session).players
    upgrade(pg_url)  # today's ingest writes today's columns
    engine = make_engine(pg_url)
    try:
        store_handlogs(engine, logs[::-1])
        # today's ingest fills them: cleared, as a hub before 0012 left them
        with engine.begin() as c:
            c.execute(update(SESSIONS).values(players=None))
        config = alembic_config()
        with engine.begin() as c:  # back to the schema of a hub before 0012
            config.attributes["connection"] = c
            command.downgrade(config, "0011")
    finally:
        engine.dispose()
    hub = EventStore.open(pg_url)  # upgrades to head
    try:
        assert hub.get_session(session).players == expected == _recomputed(hub, session)
    finally:
        hub.close()
