"""What the store hands back and takes: plain frozen values, no ORM objects, no engine types.

Events are dicts (an event's ``to_dict()``) with a ``type`` name; the store does not know
the round engine's classes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from numbers import Real
from typing import Any


class StoreError(Exception):
    """Base of the store's errors."""


class StoreInputError(StoreError, ValueError):
    """Bad input (not JSON, no type, wrong sizes); nothing was written."""


class UnknownHand(StoreError, LookupError):
    pass


class UnknownSession(StoreError, LookupError):
    pass


class HandClosed(StoreError):
    """Appending to, or settling, a hand that is already finished or aborted."""


class SequenceConflict(StoreError):
    """``expected_seq`` did not match: someone else appended first; nothing was written."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    seq: int  # 0, 1, 2 … within its hand: its index in the hand's event list
    type: str
    payload: dict[str, Any]  # the event's dict, "type" included
    created_at: datetime


@dataclass(frozen=True, slots=True)
class SessionRecord:
    id: str
    parlour: str
    table_id: str
    ruleset: str
    options: dict[str, Any]
    # the members who sat in its hands, in the order they first sat:
    # {"member_id", "name", "seats"} (controller.store.session_players)
    players: list[dict[str, Any]] | None
    started_at: datetime
    ended_at: datetime | None
    house: dict[str, Any] | None = None  # the house ruleset played ({"name", "version"})


@dataclass(frozen=True, slots=True)
class HandRecord:
    id: str
    session_id: str | None
    hand_no: int
    ruleset: str
    dealer: int | None
    status: str  # open | finished | aborted
    result: str | None
    winner: int | None
    discarder: int | None
    started_at: datetime
    ended_at: datetime | None
    note: str | None
    handlog_acked_at: datetime | None
    net: tuple[float, float, float, float] | None  # what the hand moved, once settled
    table_seq: int | None = None  # the table's running number of the hand: its order
    clock_synced: bool | None = None  # was the wall clock set (None: not known)
    played_s: float | None = None  # how long it took, by the monotonic clock
    # who sat where when it started: by seat, None (a guest) or {"member_id", "name"};
    # None for a hand stored before members existed
    players: list[dict[str, str] | None] | None = None
    dice_check: str | None = None  # ok | failed | unverified (the hub's check), None: not run
    dice_problem: str | None = None  # why it failed
    parlour: str | None = None  # the parlour and table that sent it (the hub's, and a
    table_id: str | None = None  # table's own once it has one configured)
    house: dict[str, Any] | None = None  # the house ruleset played ({"name", "version"})


@dataclass(frozen=True, slots=True)
class StoredHand:
    hand: HandRecord
    events: tuple[StoredEvent, ...]
    settlement: dict[str, Any] | None

    @property
    def next_seq(self) -> int:
        return len(self.events)

    def event_dicts(self) -> list[dict[str, Any]]:
        """The events in order, ready for the engine's ``event_from_dict``."""
        return [e.payload for e in self.events]


def _four_numbers(value: Any) -> bool:
    return (
        isinstance(value, Sequence)
        and len(value) == 4
        and all(isinstance(n, Real) and not isinstance(n, bool) for n in value)
    )


@dataclass(frozen=True, slots=True)
class HandSettled:
    """What finishes a hand in the store: ``Settlement.as_dict()`` (as JSON reads it
    back), how it ended for the owners' filters (``result``: win, self_draw, draw …),
    ``hand_net`` (what it moved in all when acts of staff moved points beside its
    settlement; None: the settlement's nets) and how long it was played."""

    settlement: dict[str, Any]
    result: str
    winner: int | None = None
    discarder: int | None = None
    hand_net: tuple[float, ...] | None = None
    played_s: float | None = None

    @classmethod
    def checked(
        cls,
        settlement: Mapping[str, Any],
        result: str,
        winner: int | None = None,
        discarder: int | None = None,
        hand_net: Sequence[float] | None = None,
        played_s: float | None = None,
    ) -> HandSettled:
        """Bounded and checked; raises StoreInputError naming the field."""
        try:
            payload = json.loads(json.dumps(dict(settlement), ensure_ascii=False, allow_nan=False))
        except (TypeError, ValueError) as err:
            raise StoreInputError(f"settlement: not JSON-serialisable: {err}") from None
        if not _four_numbers(payload.get("net")):
            raise StoreInputError(f"settlement.net: expected 4 numbers, got {payload.get('net')!r}")
        if not result or len(result) > 32:
            raise StoreInputError(f"result: 1-32 characters, got {result!r}")
        for name, seat in (("winner", winner), ("discarder", discarder)):
            if seat is not None and (isinstance(seat, bool) or seat not in range(4)):
                raise StoreInputError(f"{name}: a seat 0-3 or None, got {seat!r}")
        if hand_net is not None and not _four_numbers(hand_net):
            raise StoreInputError(f"hand_net: expected 4 numbers, got {hand_net!r}")
        moved = None if hand_net is None else tuple(hand_net)
        return cls(payload, result, winner, discarder, moved, played_s)


@dataclass(frozen=True, slots=True)
class OutboxMessage:
    """A message to publish: the exact payload text, QoS and retain flag."""

    topic: str
    payload: str
    qos: int = 1
    retain: bool = False


@dataclass(frozen=True, slots=True)
class AlertRecord:
    """A stored alert: its public message and its private detail (owners only)."""

    id: int
    hand_id: str | None
    kind: str
    seat: int | None
    message: str
    detail: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    id: int
    topic: str
    payload: str
    qos: int
    retain: bool
    enqueued_at: float  # time.time() when it was written
