"""Accounts for the web app: owners and staff, a name and a password hash (never the
password). Staff act on the live hand of their tables only (docs/staff.md); what they may
do is the owners' ``StaffPolicy``.

Hashing lives in ``controller.web.passwords``; the store only keeps the text it is given.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from sqlalchemy import Row, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from controller.config import ID_PATTERN
from controller.store.event_store import EventStore
from controller.store.models import OWNER_SETTINGS, OWNERS, utcnow
from controller.store.records import StoreError, StoreInputError
from engine.round.events import MAX_POINTS

# Names go into cookies and logs: keep them plain (letters of any script, digits, _ . -).
NAME_PATTERN = re.compile(r"^[^\W][\w.-]{0,63}$")


class OwnerExists(StoreInputError):
    pass


class UnknownOwner(StoreError, LookupError):
    pass


@dataclass(frozen=True, slots=True)
class OwnerRecord:
    id: int
    name: str
    password_hash: str
    created_at: datetime
    token_generation: int = 0  # logins carry it; a newer one ends them
    role: Role = "owner"
    tables: tuple[str, ...] = ()  # staff: the tables it acts on (owners: every table)

    def acts_on(self, table: str) -> bool:
        return self.role == "owner" or table in self.tables


Role = Literal["owner", "staff"]
MAX_TABLES = 64  # tables one staff account may belong to


def _record(row: Row[Any]) -> OwnerRecord:
    tables = tuple(json.loads(row.tables)) if row.tables else ()
    role: Role = "staff" if row.role == "staff" else "owner"
    return OwnerRecord(
        row.id, row.name, row.password_hash, row.created_at, row.token_generation or 0, role, tables
    )


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise StoreInputError(
            f"owner name: 1-64 letters, digits, '_', '.' or '-' (not first), got {name!r}"
        )
    return name


TABLE_PATTERN = re.compile(ID_PATTERN)  # a table id (an MQTT topic level)


def check_table(table: str) -> str:
    if not isinstance(table, str) or not TABLE_PATTERN.fullmatch(table):
        raise StoreInputError(f"table: 1-64 letters, digits, '_', '-' or '.', got {table!r}")
    return table


class StaffPolicy(BaseModel):
    """What staff may do beyond finishing, correcting, penalties and undo (an owner always
    may), and the penalty amounts for a ruleset that has none of its own."""

    model_config = ConfigDict(extra="forbid", strict=True)  # (JSON: no 0 for false)

    may_void: bool = True
    may_adjust: bool = True
    false_win_amount: int | None = Field(default=None, ge=1, le=MAX_POINTS)
    xianggong_amount: int | None = Field(default=None, ge=1, le=MAX_POINTS)


Setting = TypeVar("Setting", bound=BaseModel)
TIME_OF_DAY = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"


class CashoutTerms(BaseModel):
    """The owner's terms for a session's cash-out (docs/players.md, "Cash-out"): what a
    point is worth in money (None: points only), the table fee and what it is per (shown
    apart from the points), and the daily cut-off, a local time at which the open session
    closes by itself (after the hand then in play; None: only staff close sessions)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    point_value: float | None = Field(default=None, gt=0, le=1_000_000)
    currency: str = Field(default="元", min_length=1, max_length=8)
    table_fee: float | None = Field(default=None, gt=0, le=1_000_000)
    fee_per: Literal["hand", "hour", "session"] = "session"
    cutoff: str | None = Field(default=None, json_schema_extra={"pattern": TIME_OF_DAY})

    @field_validator("cutoff")
    @classmethod
    def _time_of_day(cls, v: str | None) -> str | None:
        if v is not None and not re.fullmatch(TIME_OF_DAY, v):
            raise ValueError(
                f"每日结算时间写成 时:分（24 小时制），如 06:00，而不是 {v[:20]!r}"
                " (a time of day as HH:MM, e.g. 06:00)"
            )
        return v


class Leaderboards(BaseModel):
    """The owners' switch for the members' leaderboards (docs/players.md, "Records"): off
    until they switch it on. Only ``true`` itself is on (strict: no 1, no "yes")."""

    model_config = ConfigDict(strict=True)  # (extra fields a later version wrote: ignored)

    enabled: bool = False


class StoreLoss(BaseModel):
    """What the table's store was found to have lost at a start (``controller.table.store_check``:
    the last settled hand its mark or the broker names, the highest ``table_seq`` it had
    given), and the acknowledgement of staff: once acknowledged, the same loss is not said
    again at each start (a new one is)."""

    hand_id: str | None = None
    table_seq: int = 0
    problems: list[str] = []
    found_at: datetime | None = None
    acknowledged_by: str | None = None
    acknowledged_role: str | None = None
    acknowledged_at: datetime | None = None
    why: str | None = None

    @property
    def open(self) -> bool:
        """Found and not yet acknowledged."""
        return self.found_at is not None and self.acknowledged_at is None

    def covers(self, hand_id: str | None, table_seq: int) -> bool:
        """Acknowledged, for this loss (the same lost hand, no number lost since)."""
        return (
            self.acknowledged_at is not None
            and self.hand_id == hand_id
            and table_seq <= self.table_seq
        )


class OwnerAccounts:
    """Owners in the event store's database (the ``owners`` table, migration 0002)."""

    def __init__(self, store: EventStore) -> None:
        self.engine = store.engine

    def add(
        self,
        name: str,
        password_hash: str,
        role: Role = "owner",
        tables: tuple[str, ...] = (),
    ) -> OwnerRecord:
        check_name(name)
        if not password_hash or len(password_hash) > 255:
            raise StoreInputError("password_hash: 1-255 characters")
        if role == "staff":
            if not 1 <= len(tables) <= MAX_TABLES:
                raise StoreInputError(f"tables: a staff account acts on 1-{MAX_TABLES} tables")
            for table in tables:
                check_table(table)
        elif tables:
            raise StoreInputError("tables: an owner acts on every table")
        now = utcnow()
        row = {
            "name": name,
            "password_hash": password_hash,
            "created_at": now,
            "role": role,
            "tables": json.dumps(sorted(set(tables))) if role == "staff" else None,
        }
        try:
            with self.engine.begin() as c:
                added = insert(OWNERS).returning(OWNERS.c.id)
                owner_id = c.execute(added, row | {"token_generation": 0}).scalar_one()
        except IntegrityError:
            raise OwnerExists(f"account {name!r} already exists") from None
        return OwnerRecord(owner_id, name, password_hash, now, 0, role, tuple(sorted(set(tables))))

    def remove(self, name: str, role: Role) -> None:
        """Remove the account (its logins end with it); only of ``role``."""
        gone = delete(OWNERS).where(OWNERS.c.name == name, OWNERS.c.role == role)
        with self.engine.begin() as c:
            if c.execute(gone).rowcount == 0:
                raise UnknownOwner(name)

    def get(self, name: str) -> OwnerRecord | None:
        with self.engine.connect() as c:
            row = c.execute(select(OWNERS).where(OWNERS.c.name == name)).first()
        return _record(row) if row is not None else None

    def set_password(self, name: str, password_hash: str) -> None:
        """A new password; every login made before ends."""
        self._bump_generation(name, password_hash=password_hash)

    def end_logins(self, name: str) -> None:
        """Log ``name`` out everywhere: every token issued so far stops working."""
        self._bump_generation(name)

    def list(self, role: Role | None = None) -> list[OwnerRecord]:
        query = select(OWNERS).order_by(OWNERS.c.name)
        if role is not None:
            query = query.where(OWNERS.c.role == role)
        with self.engine.connect() as c:
            return [_record(r) for r in c.execute(query)]

    def staff_policy(self) -> StaffPolicy:
        return self._setting("staff", StaffPolicy)[0]

    def set_staff_policy(self, policy: StaffPolicy, by: str) -> None:
        self._set("staff", policy, by)

    def cashout_terms(self) -> tuple[CashoutTerms, str]:
        """The terms, and the owner who set them last ("" if none did)."""
        return self._setting("cashout", CashoutTerms)

    def set_cashout_terms(self, terms: CashoutTerms, by: str) -> None:
        self._set("cashout", terms, by)

    def cashout_terms_changed(self) -> tuple[str, datetime | None]:
        """Who set the terms last and when (("", None): nobody yet)."""
        return self._changed("cashout")

    def leaderboards(self) -> tuple[Leaderboards, str]:
        """The leaderboards' switch, and the owner who set it last ("" if none did)."""
        return self._setting("leaderboards", Leaderboards)

    def set_leaderboards(self, switch: Leaderboards, by: str) -> None:
        self._set("leaderboards", switch, by)

    def leaderboards_changed(self) -> tuple[str, datetime | None]:
        """Who switched the leaderboards last and when (("", None): nobody yet)."""
        return self._changed("leaderboards")

    def store_loss(self) -> StoreLoss:
        """The loss found at the latest start that found one (none: all defaults)."""
        return self._setting("store_loss", StoreLoss)[0]

    def set_store_loss(self, loss: StoreLoss, by: str) -> None:
        self._set("store_loss", loss, by)

    def _changed(self, name: str) -> tuple[str, datetime | None]:
        with self.engine.connect() as c:
            row = c.execute(
                select(OWNER_SETTINGS.c.updated_by, OWNER_SETTINGS.c.updated_at).where(
                    OWNER_SETTINGS.c.name == name
                )
            ).first()
        return ("", None) if row is None else (row.updated_by or "", row.updated_at)

    def _setting(self, name: str, model: type[Setting]) -> tuple[Setting, str]:
        with self.engine.connect() as c:
            row = c.execute(
                select(OWNER_SETTINGS.c.value, OWNER_SETTINGS.c.updated_by).where(
                    OWNER_SETTINGS.c.name == name
                )
            ).first()
        if row is None:
            return model(), ""
        try:
            return model.model_validate_json(row.value), row.updated_by
        except ValidationError:  # (only an owner writes it, checked): the safe default
            return model(), ""

    def _set(self, name: str, value: BaseModel, by: str) -> None:
        row = {"value": value.model_dump_json(), "updated_at": utcnow(), "updated_by": by}
        with self.engine.begin() as c:
            changed = update(OWNER_SETTINGS).where(OWNER_SETTINGS.c.name == name)
            if c.execute(changed.values(**row)).rowcount == 0:
                c.execute(insert(OWNER_SETTINGS).values(name=name, **row))

    def _bump_generation(self, name: str, **values: Any) -> None:
        """Set ``values`` and end every login ``name`` made so far, in one statement."""
        generation = func.coalesce(OWNERS.c.token_generation, 0) + 1
        change = update(OWNERS).where(OWNERS.c.name == name)
        with self.engine.begin() as c:
            if c.execute(change.values(token_generation=generation, **values)).rowcount == 0:
                raise UnknownOwner(name)
