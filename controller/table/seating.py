"""Sitting down, on the table loop: a member's card on a seat's hand zone between hands, or
staff choosing on the console (docs/players.md).

Each act is the engine's seat command (``engine.seating``: ``TakeSeat``, ``FreeSeat``, with
its ``Audit``: who, when), done by ``Seating.execute`` through the table's one unit of work
(``HandKeeper.work``): its seat acts, the retained public ``seats`` topic (names only,
``[name | null] * 4``) in the outbox and the request's answer under its key in one
transaction, published after the commit. A card read while a hand is in progress changes
nothing and raises no alert (a player may put their card down anywhere; it is never a
tile). Seats change between hands only: a staff act mid-hand is refused (409), so a
hand's ``players`` are the seating it started with.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import structlog
from sqlalchemy import Connection

from controller.store.members import (
    MemberInputError,
    Members,
    Players,
    UnknownMember,
    seat_command,
    seated,
    seated_members,
    seating_in,
    store_seat_acts,
)
from controller.store.request_keys import KeptAnswer, RequestKey
from controller.table.hand_keeper import HandKeeper
from controller.table.staff_acts import StaleRequest
from controller.table.staff_requests import SeatRequest
from controller.table.tags import Card
from engine.round.commands import Audit, StaffInputError
from engine.seating import SeatCommand, Sitter, apply_seat, seats_after

log = structlog.get_logger(__name__)

SEATS_NAME = "seats"
CARDS_FRESH = 2.0  # seconds a copy of the registry's cards is trusted for an unknown UID


class SeatsLocked(StaleRequest):
    """A hand is in progress: seats change between hands (409)."""


def seats_payload(players: Players) -> dict[str, Any]:
    """The public form: names only (shown as text), None for a guest."""
    return {"seats": [None if p is None else p["name"] for p in players]}


def sitters_payload(seats: list[Sitter | None]) -> dict[str, Any]:
    """``seats_payload`` of the engine's seats (those a seat command leaves)."""
    return {"seats": [None if s is None else s.name for s in seats]}


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
    def __init__(self, keeper: HandKeeper) -> None:
        self.keeper = keeper
        self.members = Members(keeper.store.engine, table_id=keeper.table, parlour=keeper.parlour)
        self.cards = CardBook(self.members)
        self.names: list[str | None] = [None] * 4

    def publish(self) -> None:
        """The seats as stored, on the retained topic (at start-up)."""
        payload = seats_payload(self.members.seating())
        self.keeper.work.commit(self.keeper.store.enqueue, [(SEATS_NAME, payload)])
        self.names = payload["seats"]

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
        try:
            self.execute(self.command(seat, member.member_id, Audit("card", "player", act_time())))
        except (UnknownMember, MemberInputError) as err:  # (deleted or deactivated meanwhile)
            log.info("card of a member who may not sit: ignored", seat=seat, why=str(err))

    def handle(self, request: SeatRequest, key: RequestKey | None = None) -> dict[str, Any]:
        """A staff act from the console, its answer kept under ``key`` with the act (raises
        SeatsLocked, StaffInputError, MemberInputError, UnknownMember having stored
        nothing)."""
        if self.keeper.in_progress:
            raise SeatsLocked("a hand is in progress: seats change between hands")
        return self.execute(self.command(request.seat, request.member_id, request.audit), key)

    def command(self, seat: int, member_id: str | None, audit: Audit) -> SeatCommand:
        """The engine's seat command, the member named from the registry (raises
        UnknownMember, MemberInputError for one deactivated)."""
        with self.keeper.store.engine.connect() as c:
            return seat_command(c, seat, member_id, audit)

    def execute(self, command: SeatCommand, key: RequestKey | None = None) -> dict[str, Any]:
        """``command`` applied to the seats as stored (``apply_seat``); its seat acts, the
        seats they leave on the public topic and the answer (who sits where, the acts)
        under ``key``: one transaction (``UnitOfWork.commit``), then published. Nothing to
        do (the seat is so already): nothing stored, the seats as they are answered. A
        refusal raises StaffInputError (or, a member deactivated or deleted since the
        command was made, MemberInputError or UnknownMember), nothing stored."""
        store, table = self.keeper.store, self.keeper.table
        with store.engine.connect() as c:
            before = seated_members(c, table)
        events = apply_seat(before, command)
        if not isinstance(events, list):
            raise StaffInputError(events.reason)
        if not events:
            return seated(self.members.seating(), [])
        payload = sitters_payload(seats_after(before, events))

        def acts(c: Connection) -> dict[str, Any]:
            stored = store_seat_acts(c, table, self.keeper.parlour, events)
            answer = seated(seating_in(c, table), stored)
            if key is not None:
                KeptAnswer(key, answer).write(c)
            return answer

        answer = self.keeper.work.commit(
            lambda outbox: store.write_with(acts, outbox=outbox), [(SEATS_NAME, payload)]
        )
        self.names = payload["seats"]
        log.info("seat acts", acts=answer["acts"])
        return answer


def act_time() -> str:
    """When a seat act is done, as its ``Audit`` says it (the service's clock)."""
    return datetime.now(UTC).isoformat(timespec="seconds")
