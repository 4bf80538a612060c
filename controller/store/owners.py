"""Owner accounts for the web app: a name and a password hash (never the password).

Hashing lives in ``controller.web.passwords``; the store only keeps the text it is given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from controller.store.event_store import EventStore
from controller.store.models import OWNERS, utcnow
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


def _record(row: Row[Any]) -> OwnerRecord:
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

    def add(self, name: str, password_hash: str) -> OwnerRecord:
        check_name(name)
        if not password_hash or len(password_hash) > 255:
            raise StoreInputError("password_hash: 1-255 characters")
        now = utcnow()
        row = {"name": name, "password_hash": password_hash, "created_at": now}
        try:
            with self.engine.begin() as c:
                added = insert(OWNERS).returning(OWNERS.c.id)
                owner_id = c.execute(added, row | {"token_generation": 0}).scalar_one()
        except IntegrityError:
            raise OwnerExists(f"owner {name!r} already exists") from None
        return OwnerRecord(owner_id, name, password_hash, now, 0)

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

    def list(self) -> list[OwnerRecord]:
        with self.engine.connect() as c:
            return [_record(r) for r in c.execute(select(OWNERS).order_by(OWNERS.c.name))]

    def _bump_generation(self, name: str, **values: Any) -> None:
        """Set ``values`` and end every login ``name`` made so far, in one statement."""
        generation = func.coalesce(OWNERS.c.token_generation, 0) + 1
        change = update(OWNERS).where(OWNERS.c.name == name)
        with self.engine.begin() as c:
            if c.execute(change.values(token_generation=generation, **values)).rowcount == 0:
                raise UnknownOwner(name)
