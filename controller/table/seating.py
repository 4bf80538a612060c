"""Sitting down, on the table loop: a member's card on a seat's hand zone between hands, or
staff choosing on the console (docs/players.md).

Each act is stored (``Members.sit``: who, by whom, when) before the seats are published:
the retained public ``seats`` topic carries names only, ``[name | null] * 4``. A card read
while a hand is in progress changes nothing and raises no alert (a player may put their
card down anywhere; it is never a tile). Seats change between hands only: a staff act
mid-hand is refused (409), so a hand's ``players`` are the seating it started with.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import structlog

from controller.store.members import Members, Players, seated
from controller.store.request_keys import RequestKey
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.staff_requests import SeatRequest
from controller.table.tags import Card
from controller.table.unit_of_work import UnitOfWork

log = structlog.get_logger(__name__)

SEATS_NAME = "seats"
CARDS_FRESH = 2.0  # seconds a copy of the registry's cards is trusted for an unknown UID


class SeatsLocked(ValueError):
    """A hand is in progress: seats change between hands (409)."""


def seats_payload(players: Players) -> dict[str, Any]:
    """The public form: names only (shown as text), None for a guest."""
    return {"seats": [None if p is None else p["name"] for p in players]}


class CardBook:
    """The registry's cards, reloaded when an unknown UID comes and the copy is older than
    ``CARDS_FRESH`` (a flood of strangers costs one query every two seconds at most)."""

    def __init__(self, members: Members, clock: Callable[[], float] = time.monotonic) -> None:
        self.members = members
        self.clock = clock
        self._cards: dict[bytes, str] = {}
        self._loaded = float("-inf")

    def __call__(self, uid: bytes) -> str | None:
        found = self._cards.get(uid)
        if found is None and self.clock() - self._loaded >= CARDS_FRESH:
            self._cards = self.members.card_tags()
            self._loaded = self.clock()
            found = self._cards.get(uid)
        return found


class Seating:
    def __init__(self, keeper: HandKeeper, outlet: Outlet) -> None:
        self.keeper = keeper
        self.outlet = outlet
        self.work = UnitOfWork(outlet)
        self.members = Members(keeper.store.engine, table_id=keeper.table, parlour=keeper.parlour)
        self.cards = CardBook(self.members)
        self.names: list[str | None] = [None] * 4

    def publish(self) -> None:
        """The seats as stored, on the retained topic (at start, after each act)."""
        payload = seats_payload(self.members.seating())
        self.names = payload["seats"]
        self.work.commit(self.keeper.store.enqueue, [(SEATS_NAME, payload)])

    def card(self, seat: int | None, card: Card) -> None:
        """A card on ``seat``'s hand zone."""
        if seat is None:
            return
        if self.keeper.in_progress:
            log.info("member card read during a hand: ignored", seat=seat)
            return
        member = self.members.by_card(card.uid.hex())
        if member is None:  # (deactivated since the copy was made)
            log.info("card of no active member: ignored", seat=seat)
            return
        self._sit(seat, member.member_id, "card")

    def handle(self, request: SeatRequest, key: RequestKey | None = None) -> dict[str, Any]:
        """A staff act from the console, its answer kept under ``key`` with the act (raises
        SeatsLocked, MemberInputError, UnknownMember having stored nothing)."""
        if self.keeper.in_progress:
            raise SeatsLocked("a hand is in progress: seats change between hands")
        acts = self._sit(request.seat, request.member_id, request.by, key)
        return seated(self.members.seating(), acts)

    def _sit(
        self, seat: int, member_id: str | None, by: str, key: RequestKey | None = None
    ) -> list[Any]:
        acts = self.members.sit(seat, member_id, by, key)
        if acts:
            log.info("seat act", seat=seat, member_id=member_id, by=by)
            self.publish()
        return acts
