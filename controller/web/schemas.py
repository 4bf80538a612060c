"""Request and response bodies of the REST API (they make its OpenAPI document)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from controller.store import HandRecord, SessionRecord
from controller.store.tables import TableRecord

Number = int | float
Seat = Field(ge=0, le=3)


def number(x: float | int) -> Number:
    """Whole amounts as ints (``4`` rather than ``4.0``); halves stay floats."""
    return int(x) if float(x).is_integer() else float(x)


class Problem(BaseModel):
    detail: str = Field(description="What went wrong, in words (Chinese)")
    en: str | None = Field(default=None, description="The same in English")


# What a route that reads a body may answer besides its own (limits.py's 413 for a body
# over its limit, 400 for one that is not JSON).
WITH_BODY: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem},
    401: {"model": Problem},
    403: {"model": Problem},
    413: {"model": Problem},
    422: {"model": Problem},
}


class LoginIn(BaseModel):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1024)


class LoginOut(BaseModel):
    owner: str = Field(description="The account's name (an owner's, or staff's)")
    role: Literal["owner", "staff"] = "owner"
    tables: list[str] = Field(default=[], description="Staff: the tables it acts on")
    token: str = Field(description="Send as 'Authorization: Bearer <token>' (or use the cookie)")
    expires_at: datetime


class OwnerOut(BaseModel):
    name: str
    role: Literal["owner", "staff"] = "owner"
    tables: list[str] = []


class PublicTable(BaseModel):
    parlour: str
    table: str
    topics: list[str]
    brokers: list[str] = []
    """Brokers (``ws://host:port``) a page may use besides one on its own host."""
    broker_port: int | None = None
    """The broker's WebSocket port on the page's own host (null: none): no other port of
    that host gets a page's account."""
    hub: bool = False
    """The parlour's hub (every table's hands; it plays none and holds no cash-out terms)."""
    software: str = ""
    """The mjtable version this server runs (/floor marks a table older than the hub's)."""


class TableOut(BaseModel):
    table_id: str
    parlour: str
    sessions: int
    hands: int
    open_hands: int
    first_seen: datetime | None
    last_seen: datetime | None
    this_table: bool = Field(description="The table this service runs (live status known)")
    status: Literal["online", "offline", "unknown"]
    current: dict[str, Any] | None = Field(
        None, description="The hand in progress (public projection summary), when live"
    )

    @classmethod
    def of(
        cls, t: TableRecord, *, this_table: bool, status: str, current: dict[str, Any] | None
    ) -> TableOut:
        return cls(
            table_id=t.table_id,
            parlour=t.parlour,
            sessions=t.sessions,
            hands=t.hands,
            open_hands=t.open_hands,
            first_seen=t.first_seen,
            last_seen=t.last_seen,
            this_table=this_table,
            status=status,
            current=current,
        )


class SessionPlayerOut(BaseModel):
    member_id: str
    name: str = Field(description="The display name as their latest hand of it has it (text)")
    seats: list[int] = Field(description="The seats they took in it")


class SessionOut(BaseModel):
    id: str
    parlour: str
    table_id: str
    ruleset: str
    options: dict[str, Any]
    players: list[SessionPlayerOut] = Field(
        default_factory=list,
        description="The members who sat in its hands, in the order they first sat (guests "
        "are not listed)",
    )
    started_at: datetime
    ended_at: datetime | None

    @classmethod
    def of(cls, s: SessionRecord) -> SessionOut:
        return cls(
            id=s.id,
            parlour=s.parlour,
            table_id=s.table_id,
            ruleset=s.ruleset,
            options=s.options,
            players=[SessionPlayerOut.model_validate(p) for p in s.players or []],
            started_at=s.started_at,
            ended_at=s.ended_at,
        )


class PlayerOut(BaseModel):
    member_id: str
    name: str


class HouseOut(BaseModel):
    name: str = Field(description="本店兴国")
    version: int


class HandOut(BaseModel):
    id: str
    session_id: str | None
    hand_no: int
    ruleset: str
    dealer: int | None
    status: Literal["open", "finished", "aborted"] | str
    result: str | None
    winner: int | None
    discarder: int | None
    started_at: datetime
    ended_at: datetime | None
    note: str | None
    net: list[Number] | None
    players: list[PlayerOut | None] | None = Field(
        default=None, description="Who sat where as it started (null: a guest), by seat"
    )
    dice_check: str | None = Field(
        None, description="The hub's check of its dice: ok, failed, unverified (None: not run)"
    )
    dice_problem: str | None = None
    entered_by_staff: bool = Field(False, description="Its result entered by staff (工作人员录入)")
    voided: dict[str, str] | None = Field(
        None, description="Voided by staff: by, role, at, reason (null: not voided)"
    )
    house: HouseOut | None = Field(
        None, description="The owners' house ruleset it was played under (null: none)"
    )

    @classmethod
    def of(cls, h: HandRecord) -> HandOut:
        return cls(
            id=h.id,
            session_id=h.session_id,
            hand_no=h.hand_no,
            ruleset=h.ruleset,
            dealer=h.dealer,
            status=h.status,
            result=h.result,
            winner=h.winner,
            discarder=h.discarder,
            started_at=h.started_at,
            ended_at=h.ended_at,
            note=h.note,
            net=None if h.net is None else [number(n) for n in h.net],
            players=None
            if h.players is None
            else [None if p is None else PlayerOut(**p) for p in h.players],
            dice_check=h.dice_check,
            dice_problem=h.dice_problem,
            house=None if h.house is None else HouseOut(**h.house),
        )


class HandDetail(BaseModel):
    hand: HandOut
    table_id: str
    settlement: dict[str, Any] | None
    events: int
    concealed: bool = Field(description="Finished: events and replay show every seat's tiles")
    seat_acts: list[dict[str, Any]] = Field(
        default=[], description="Who sat down or left, by whom, when: what led to its seating"
    )


class EventOut(BaseModel):
    seq: int
    type: str
    at: datetime
    data: dict[str, Any] = Field(description="The event; public fields only unless finished")


class EventsOut(BaseModel):
    hand_id: str
    concealed: bool
    events: list[EventOut]


class AlertOut(BaseModel):
    at: datetime
    kind: str
    seat: int | None
    message: str = Field(description="The public form, as the dealer page showed it")
    detail: str | None = Field(description="Which tile or tag: only once the hand is finished")


class AlertsOut(BaseModel):
    hand_id: str
    concealed: bool
    alerts: list[AlertOut]


class SettlementOut(BaseModel):
    hand_id: str
    hand_no: int
    started_at: datetime
    settlement: dict[str, Any]


class ReplayStep(BaseModel):
    seq: int
    type: str
    text: dict[str, str] = Field(description="The step in words: {'zh': …, 'en': …}")
    event: dict[str, Any]
    view: dict[str, Any] = Field(description="The table after this event")
    at: str | None = Field(
        None, description="When: a person's act as its audit says, any other as stored"
    )


class DiceCheckOut(BaseModel):
    verdict: Literal["ok", "failed", "unverified"]
    rolls: int
    problems: list[str]
    notes: list[str]


class ReplayOut(BaseModel):
    hand: HandOut
    concealed: bool
    check: str | None = Field(description="None when the recorded settlement is recomputed")
    steps: list[ReplayStep]
    dice: DiceCheckOut | None = Field(
        None, description="Every roll against the dice commitment (finished hands)"
    )


class TotalsPoint(BaseModel):
    hand_id: str
    hand_no: int
    session_id: str | None
    at: datetime
    net: list[Number]
    cumulative: list[Number]


class DayTotals(BaseModel):
    date: str
    hands: int
    moved: Number = Field(description="Points that changed hands (sum of the gains)")
    net: list[Number]


class TotalsOut(BaseModel):
    table_id: str
    hands: int
    seats: list[Number] = Field(description="Each seat's net over the hands selected")
    series: list[TotalsPoint]
    days: list[DayTotals]


class QuarantinedOut(BaseModel):
    """A handlog the hub refused (docs/parlour.md, Security)."""

    id: int
    received_at: datetime
    topic: str
    table_id: str | None
    hand_id: str | None
    reason: str
    size: int = Field(description="Bytes received")
