"""Members from a table to the hub through a real Mosquitto into a real PostgreSQL: the
hands carry who sat where, the registry follows, and deleting a member at the table leaves
every hand settled and anonymous, at the table and at the hub."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from sqlalchemy import select

from controller.store import EventStore
from controller.store.members import Members
from controller.store.models import HANDS, MEMBERS, SEAT_ACTS
from tests.controller.hub.tables import PARLOUR, Table, start_hub, stop_hub, stored_ids
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, until

pytestmark = pytest.mark.timeout(240)


def _nets(store: EventStore) -> dict[str, tuple[float, ...]]:
    with store.engine.connect() as c:
        rows = c.execute(
            select(HANDS.c.id, HANDS.c.net_0, HANDS.c.net_1, HANDS.c.net_2, HANDS.c.net_3)
        )
        return {r[0]: tuple(r[1:]) for r in rows}


def _players(store: EventStore) -> dict[str, object]:
    with store.engine.connect() as c:
        return dict(c.execute(select(HANDS.c.id, HANDS.c.players)).all())


def _hub_member(store: EventStore, member_id: str) -> tuple[object, ...] | None:
    with store.engine.connect() as c:
        row = c.execute(
            select(MEMBERS.c.name, MEMBERS.c.active, MEMBERS.c.deleted_at).where(
                MEMBERS.c.member_id == member_id
            )
        ).first()
    return None if row is None else tuple(row)


def test_members_and_their_deletion_reach_the_hub(
    mosquitto: Mosquitto, hub_store: EventStore, make_table: Callable[..., Table]
) -> None:
    table = make_table("t1", mosquitto.url, resend_after=0.4)
    registry = Members(table.store.engine, table_id="t1", parlour=PARLOUR)
    wang = registry.add("王五", "e0040150c0ffee01")
    li = registry.add("Li", None)
    registry.sit(0, wang.member_id, "card")
    registry.sit(2, li.member_id, "staff:ann")

    async def main() -> None:
        hub, hub_task = start_hub(hub_store, mosquitto.url)
        await guarded(hub.connected.wait(), "the hub to subscribe")
        table.start()
        table.play(2, seed=3)
        registry.sit(0, None, "staff:ann")  # Wang leaves between hands
        table.play(1, seed=4)
        await until(table.all_acked, "the hands acknowledged")
        await until(lambda: _hub_member(hub_store, li.member_id) is not None, "the registry")
        assert stored_ids(hub_store) == sorted(table.hands)
        assert _players(hub_store) == _players(table.store)
        first, _, third = (table.store.load_hand(h).hand for h in table.hands)
        assert first.players == [wang.as_player(), None, li.as_player(), None]
        assert third.players == [None, None, li.as_player(), None]
        with hub_store.engine.connect() as c:
            acts = c.execute(
                select(
                    SEAT_ACTS.c.seat, SEAT_ACTS.c.member_id, SEAT_ACTS.c.by, SEAT_ACTS.c.hand_id
                ).order_by(SEAT_ACTS.c.id)
            ).all()
        assert [tuple(a) for a in acts] == [
            (0, wang.member_id, "card", first.id),
            (2, li.member_id, "staff:ann", first.id),
            (0, None, "staff:ann", third.id),
        ]
        settled = _nets(hub_store)

        registry.remove(wang.member_id)
        await until(
            lambda: (_hub_member(hub_store, wang.member_id) or (1,))[0] is None,
            "the deletion at the hub",
        )
        await table.stop()
        await stop_hub(hub, hub_task)
        for store in (table.store, hub_store):
            players = _players(store)
            assert wang.member_id not in str(players) and "王五" not in str(players)
            assert players[first.id] == [None, None, li.as_player(), None]
            with store.engine.connect() as c:
                who = list(c.scalars(select(SEAT_ACTS.c.member_id)))
            assert wang.member_id not in who
        assert _nets(hub_store) == settled  # still settled, as they were
        assert all(table.store.load_hand(h).hand.status == "finished" for h in table.hands)
        name, active, deleted = _hub_member(hub_store, wang.member_id) or ()
        assert (name, active) == (None, False) and deleted is not None

    asyncio.run(main())
