"""What the store hands back and takes: plain frozen values, no ORM objects, no engine types.

Events are dicts (an event's ``to_dict()``) with a ``type`` name; the store does not know
the round engine's classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
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
