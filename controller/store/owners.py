"""Owner accounts for the web app: a name and a password hash (never the password).

Hashing lives in ``controller.web.passwords``; the store only keeps the text it is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from controller.store.event_store import EventStore
from controller.store.models import OwnerRow, utcnow
from controller.store.records import StoreError, StoreInputError

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


def _record(row: OwnerRow) -> OwnerRecord:
    return OwnerRecord(
        row.id, row.name, row.password_hash, row.created_at, row.token_generation or 0
    )


def check_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise StoreInputError(
            f"owner name: 1-64 letters, digits, '_', '.' or '-' (not first), got {name!r}"
        )
    return name


class OwnerAccounts:
    """Owners in the event store's database (the ``owners`` table, migration 0002)."""

    def __init__(self, store: EventStore) -> None:
        self.engine = store.engine

    def _session(self) -> Session:
        return Session(self.engine, expire_on_commit=False)

    def add(self, name: str, password_hash: str) -> OwnerRecord:
        check_name(name)
        if not password_hash or len(password_hash) > 255:
            raise StoreInputError("password_hash: 1-255 characters")
        row = OwnerRow(
            name=name, password_hash=password_hash, created_at=utcnow(), token_generation=0
        )
        try:
            with self._session() as s, s.begin():
                s.add(row)
        except IntegrityError:
            raise OwnerExists(f"owner {name!r} already exists") from None
        return _record(row)

    def get(self, name: str) -> OwnerRecord | None:
        with self._session() as s:
            row = s.scalars(select(OwnerRow).where(OwnerRow.name == name)).first()
            return _record(row) if row is not None else None

    def set_password(self, name: str, password_hash: str) -> None:
        """A new password; every login made before ends."""
        with self._session() as s, s.begin():
            row = s.scalars(select(OwnerRow).where(OwnerRow.name == name)).first()
            if row is None:
                raise UnknownOwner(name)
            row.password_hash = password_hash
            row.token_generation = (row.token_generation or 0) + 1

    def end_logins(self, name: str) -> None:
        """Log ``name`` out everywhere: every token issued so far stops working."""
        with self._session() as s, s.begin():
            row = s.scalars(select(OwnerRow).where(OwnerRow.name == name)).first()
            if row is None:
                raise UnknownOwner(name)
            row.token_generation = (row.token_generation or 0) + 1

    def list(self) -> list[OwnerRecord]:
        with self._session() as s:
            return [_record(r) for r in s.scalars(select(OwnerRow).order_by(OwnerRow.name))]
