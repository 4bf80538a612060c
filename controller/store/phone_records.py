"""The players' phones as the store keeps them (docs/play.md): the session's join code, the
phone holding each seat (its token's hash, never the token), and every join, leave and
release, who and when. ``controller.web.phone_seats`` reads them back after a restart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, delete, insert, select

from controller.store.models import PHONE_CODES, PHONE_JOINS, PHONE_SEATS, utcnow


@dataclass(frozen=True, slots=True)
class HeldSeat:
    """A phone on a seat: its token's hash and who it is."""

    seat: int
    token_hash: str
    name: str
    member_id: str | None
    session_key: str
    sid: str
    expires: float


class PhoneRecords:
    """One table's phones in the store."""

    def __init__(self, engine: Engine, table_id: str) -> None:
        self.engine = engine
        self.table_id = table_id

    def code(self) -> tuple[str, str, float] | None:
        """The join code kept: (code, session key, expires), or None."""
        query = select(PHONE_CODES).where(PHONE_CODES.c.table_id == self.table_id)
        with self.engine.connect() as c:
            row = c.execute(query).first()
        return None if row is None else (row.code, row.session_key, row.expires)

    def keep_code(self, code: str, session_key: str, expires: float) -> None:
        with self.engine.begin() as c:
            c.execute(delete(PHONE_CODES).where(PHONE_CODES.c.table_id == self.table_id))
            c.execute(
                insert(PHONE_CODES).values(
                    table_id=self.table_id, code=code, session_key=session_key, expires=expires
                )
            )

    def seats(self) -> list[HeldSeat]:
        query = select(PHONE_SEATS).where(PHONE_SEATS.c.table_id == self.table_id)
        with self.engine.connect() as c:
            return [
                HeldSeat(r.seat, r.token_hash, r.name, r.member_id, r.session_key, r.sid, r.expires)
                for r in c.execute(query)
            ]

    def sit(self, held: HeldSeat) -> None:
        """``held`` takes its seat (a join): kept, and the join recorded."""
        with self.engine.begin() as c:
            c.execute(self._seat(held.seat))
            c.execute(
                insert(PHONE_SEATS).values(
                    table_id=self.table_id,
                    seat=held.seat,
                    token_hash=held.token_hash,
                    name=held.name,
                    member_id=held.member_id,
                    session_key=held.session_key,
                    sid=held.sid,
                    expires=held.expires,
                )
            )
            self._record(c, "join", held, f"phone:{held.sid}")

    def free(self, held: HeldSeat, act: str = "", by: str = "") -> None:
        """``held``'s seat freed: ``act`` ("leave", "release") by ``by`` recorded; none:
        it expired or its session ended, nothing to record."""
        with self.engine.begin() as c:
            c.execute(self._seat(held.seat).where(PHONE_SEATS.c.sid == held.sid))
            if act:
                self._record(c, act, held, by)

    def joins(self, limit: int = 100) -> list[dict[str, Any]]:
        """The latest joins, leaves and releases, newest first."""
        query = (
            select(PHONE_JOINS)
            .where(PHONE_JOINS.c.table_id == self.table_id)
            .order_by(PHONE_JOINS.c.id.desc())
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [
                {
                    "act": r.act,
                    "seat": r.seat,
                    "name": r.name,
                    "member_id": r.member_id,
                    "sid": r.sid,
                    "session_key": r.session_key,
                    "by": r.by,
                    "at": r.at.isoformat(),
                }
                for r in c.execute(query)
            ]

    def _seat(self, seat: int) -> Any:
        return delete(PHONE_SEATS).where(
            PHONE_SEATS.c.table_id == self.table_id, PHONE_SEATS.c.seat == seat
        )

    def _record(self, c: Any, act: str, held: HeldSeat, by: str) -> None:
        c.execute(
            insert(PHONE_JOINS).values(
                table_id=self.table_id,
                act=act,
                seat=held.seat,
                name=held.name,
                member_id=held.member_id,
                sid=held.sid,
                session_key=held.session_key,
                by=by[:80],
                at=utcnow(),
            )
        )
