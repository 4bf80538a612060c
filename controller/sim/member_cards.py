"""Members' cards laid on the virtual table before its first hand (``mjtable demo
--cards``): each card on seat 1's, 2's, … hand zone, read by the virtual readers like
any tag (the path a real card takes: reader frame, codec, tracker, seating), then taken
away, and only then does the machine shuffle for the first hand: a card read once a hand
is under way seats nobody."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import structlog

from controller.table.tags import Card
from controller.tracking.tracker import Tracker
from firmware_bridge.rfid.zones import Zone, ZoneKind
from firmware_bridge.sim import VirtualTable
from firmware_bridge.sim.moves import EndHand

log = structlog.get_logger(__name__)

CARD_WAIT = 15.0  # s: the readers scan every few tenths; a card unread by then is no member's
POLL = 0.05


async def lay_cards(
    table: VirtualTable, tracker: Tracker, cards: Sequence[bytes], wait: float = CARD_WAIT
) -> set[bytes]:
    """Lays ``cards`` (at most one per seat, in seat order), waits until the table loop's
    tracker has read each (at most ``wait``), takes them away and starts the first hand.
    Returns the cards read; one not read (no member's, or too long for any reader) is
    logged and left out."""
    seen: set[bytes] = set()
    passed_on = tracker.on_card

    def read(seat: int | None, card: Card) -> None:
        seen.add(card.uid)
        if passed_on is not None:
            passed_on(seat, card)

    tracker.on_card = read
    try:
        for seat, uid in enumerate(cards):
            rejection = table.place_card(uid, Zone(ZoneKind.HAND, seat))
            if rejection is not None:
                log.warning("card not laid", card=uid.hex(), seat=seat, why=str(rejection))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while not seen.issuperset(cards) and loop.time() < deadline:
            await asyncio.sleep(POLL)
        for uid in set(cards) - seen:
            log.warning("card not read: no active member's, or no reader names it", card=uid.hex())
    finally:
        tracker.on_card = passed_on
        for uid in cards:
            table.place_card(uid, None)
    await table.execute(EndHand())  # the machine shuffles: the first hand
    return seen
