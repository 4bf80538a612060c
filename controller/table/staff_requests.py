"""What the web API hands the table loop (``TableInputs``), typed: the engine's command of
a person's act on one moment of one hand, the session closed, a look, the console's dice
button, a seat taken; any of them with its ``Idempotency-Key``. The loop does them in
``controller.table.staff_acts``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from controller.store.request_keys import RequestKey
from engine.round.commands import Audit, StaffCommand


@dataclass(frozen=True, slots=True)
class HandAct:
    """A person's act (the engine's command) on the hand ``hand_id`` as its sender saw it:
    ``seen`` events of it (GET /api/v1/staff/hands/current), so a replayed or stale
    request changes nothing. A ``Void`` of another hand of the session voids that one."""

    command: StaffCommand
    hand_id: str
    seen: int


@dataclass(frozen=True, slots=True)
class CloseSession:
    """Close the session after its last hand (staff, or the owner's daily cut-off)."""

    audit: Audit
    cause: Literal["staff", "cutoff"] = "staff"


@dataclass(frozen=True, slots=True)
class Look:
    """A look at the hand in progress, as staff may see it."""


@dataclass(frozen=True, slots=True)
class DiceButton:
    """The console's dice button, as the panel's: whoever is due rolls (on a table without
    readers, after a hand, the dealer's roll starts the next). ``hand_id`` and ``seen``
    as a ``HandAct``'s: a press sent twice rolls once."""

    hand_id: str | None
    seen: int


@dataclass(frozen=True, slots=True)
class SeatRequest:
    """Staff (or an owner) seat ``member_id`` at ``seat`` (None: a guest's), between hands:
    the loop makes it the engine's seat command (``controller.table.seating``)."""

    seat: int
    member_id: str | None
    audit: Audit


Request = HandAct | CloseSession | Look | DiceButton | SeatRequest


@dataclass(frozen=True, slots=True)
class Keyed:
    """A request sent with an ``Idempotency-Key``: done once; the same key again gets the
    first answer (controller.store.request_keys)."""

    item: Request
    key: RequestKey


StaffItem = Request | Keyed
"""Everything the staff desk hands the table loop."""
