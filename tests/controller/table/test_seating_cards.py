"""Members sit down by laying their card on a seat's hand zone: the virtual readers read the
card like any tag, over ptys, and the service seats the member between hands; a card read
while a hand is played changes nothing and raises no alert. Real parts: ptys, the virtual
readers, the service, a real Mosquitto."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from controller.runtime import running
from controller.store import EventStore
from controller.store.members import Members
from controller.store.models import ALERTS
from controller.table.tags import Card
from firmware_bridge.rfid.zones import Zone, ZoneKind
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    options,
    until,
)

CARD_WANG = bytes.fromhex("e0040150c0ffee01")
CARD_LI = bytes.fromhex("e0040150c0ffee02")


@pytest.mark.timeout(300)
def test_a_card_between_hands_seats_its_member_and_one_mid_hand_changes_nothing(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    config = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
    store = EventStore.open(config.store_url)
    registry = Members(store.engine, table_id=config.table, parlour=config.parlour)
    wang = registry.add("王五", CARD_WANG.hex())
    li = registry.add("<b>Li</b>", CARD_LI.hex())
    store.close()
    opts = options(5, 2, between_hands=2.0, think=0.01)
    reads: list[tuple[bool, int | None, str]] = []

    async def main() -> None:
        async with running(config, opts) as run:
            assert run.table is not None
            seating = run.service.seating
            card_seen = run.tracker.on_card
            assert card_seen is not None

            def seen(seat: int | None, card: Card) -> None:
                reads.append((run.keeper.in_progress, seat, card.member_id))
                card_seen(seat, card)

            run.tracker.on_card = seen
            play = asyncio.create_task(run.service.run(asyncio.Event()))
            await until(lambda: run.keeper.in_progress, "the first hand")
            # mid-hand: Li's card on seat 1's hand zone
            assert run.table.place_card(CARD_LI, Zone(ZoneKind.HAND, 1)) is None
            await until(lambda: reads, "the card read")
            assert reads[0][:2] == (True, 1), reads
            await until(lambda: not run.keeper.in_progress, "the first hand's end")
            # between hands: Wang's card on seat 2's hand zone
            assert run.table.place_card(CARD_WANG, Zone(ZoneKind.HAND, 2)) is None
            await until(lambda: seating.names[2] == "王五", "Wang seated")
            await asyncio.wait_for(play, GUARD * 2)

    asyncio.run(main())
    store = EventStore.open(config.store_url)
    try:
        first, second = _in_order(store)
        assert first.hand.players == [None, None, None, None]  # Li's card came mid-hand
        assert second.hand.players == [None, None, wang.as_player(), None]
        acts = Members(store.engine, table_id=config.table).acts()
        assert [(a.seat, a.member_id, a.by, a.hand_id) for a in acts] == [
            (2, wang.member_id, "card", second.hand.id)
        ]
        with store.engine.connect() as c:
            kinds = list(c.scalars(select(ALERTS.c.kind)))
        assert "unknown_tag" not in kinds, kinds  # a card is no stranger
        assert all(li.member_id not in str(h.hand.players) for h in (first, second))
    finally:
        store.close()


def _in_order(store: EventStore) -> list[Any]:
    return sorted(finished_hands(store), key=lambda h: h.hand.table_seq or 0)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("readers", ["ref", "iso15693"])
def test_cards_of_every_size_laid_before_the_first_hand_seat_their_members(
    mosquitto: Mosquitto, tmp_path: Path, readers: str
) -> None:
    """``mjtable demo --cards``: cards of 4, 7, 8 and 10 bytes (most NFC cards are 7) laid
    on seats 1-4 through the virtual readers seat their members for the first hand."""
    cards = ["04a1b2c3", "04a1b2c3d4e5f6", "e004015012345678", "04a1b2c3d4e5f60718ab"]
    config = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
    store = EventStore.open(config.store_url)
    registry = Members(store.engine, table_id=config.table, parlour=config.parlour)
    members = [registry.add(f"会员{n}", card) for n, card in enumerate(cards, start=1)]
    store.close()
    opts = options(3, 1, cards=tuple(bytes.fromhex(c) for c in cards))
    if readers == "iso15693":
        # the air time of its rounds a tenth of a real reader's: ids are what is tested
        opts.sim |= {"codec": "iso15693", "round_time_scale": 0.1}

    async def main() -> None:
        async with running(config, opts) as run:
            await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * 2)

    asyncio.run(main())
    store = EventStore.open(config.store_url)
    try:
        (first,) = _in_order(store)
        assert first.hand.players == [m.as_player() for m in members]
    finally:
        store.close()
