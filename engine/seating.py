"""Who sits where, as typed, frozen commands: a member takes a seat (``TakeSeat``), a seat is
left to a guest (``FreeSeat``). ``apply_seat`` takes them as ``engine.round.apply`` takes a
hand's: the events (``SeatTaken``), or a ``Rejection``, nothing changed; ``seats_after``
folds them. Seats change between hands (the controller refuses them during one), so they
are the session's, not a hand's: no hand's state is involved. The engine knows no
registry: the controller names the member (``Sitter``) when it builds the command.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.round.actions import Rejection
from engine.round.commands import SEATS, Audit, StaffInputError
from engine.round.rules import reject


@dataclass(frozen=True, slots=True)
class Sitter:
    """A member as a seat holds them: their id and the name shown."""

    member_id: str
    name: str


@dataclass(frozen=True, slots=True)
class TakeSeat:
    """``member`` sits down at ``seat``; sitting elsewhere, they leave that seat."""

    audit: Audit
    seat: int
    member: Sitter


@dataclass(frozen=True, slots=True)
class FreeSeat:
    """``seat`` is left to a guest."""

    audit: Audit
    seat: int


SeatCommand = TakeSeat | FreeSeat

Seats = Sequence[Sitter | None]
"""Who sits at each of the four seats (None: a guest)."""


@dataclass(frozen=True, slots=True)
class SeatTaken:
    """``seat`` is ``member``'s from now (None: a guest's), as ``by`` did it at ``at``: one
    seat act (stored as a ``seat_acts`` row; a hand's log carries those that led to it)."""

    seat: int
    member: Sitter | None
    by: str  # "card" (a member's card on the seat), or "<role>:<account>"
    at: str  # ISO 8601, the service's clock

    def as_dict(self) -> dict[str, Any]:
        """As a hand's log and the API write a seat act."""
        member = self.member
        return {
            "seat": self.seat,
            "member_id": None if member is None else member.member_id,
            "name": None if member is None else member.name,
            "by": self.by,
            "at": self.at,
        }


def acted_by(audit: Audit) -> str:
    """Who did a seat act, as it is stored: a player's is their card's (``audit.by``,
    "card"), a person's account ``<role>:<account>``."""
    return audit.by if audit.role == "player" else f"{audit.role}:{audit.by}"


def apply_seat(seats: Seats, command: SeatCommand) -> list[SeatTaken] | Rejection:
    """The seat acts ``command`` makes at ``seats``: none when the seat already is so; a
    member who sat elsewhere leaves that seat first (one member, one seat)."""
    if type(command.seat) is not int or not 0 <= command.seat < SEATS:
        return reject("bad_seat", "没有这个座位", "seats are 0–3")
    try:
        command.audit.check(reason_required=False)
    except StaffInputError as err:
        return Rejection("bad_act", str(err))
    member = command.member if isinstance(command, TakeSeat) else None
    wanted = None if member is None else member.member_id
    current = seats[command.seat]
    if (None if current is None else current.member_id) == wanted:
        return []
    by, at = acted_by(command.audit), command.audit.at
    left = [
        SeatTaken(other, None, by, at)
        for other, sitter in enumerate(seats)
        if other != command.seat and wanted is not None and sitter is not None
        if sitter.member_id == wanted
    ]
    return [*left, SeatTaken(command.seat, member, by, at)]


def seats_after(seats: Seats, events: Sequence[SeatTaken]) -> list[Sitter | None]:
    """``seats`` once ``events`` are done (a replay of the seat acts)."""
    out = list(seats)
    for event in events:
        out[event.seat] = event.member
    return out
