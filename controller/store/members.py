"""The parlour's members, who sits where, and forgetting a member (docs/players.md).

A member is a uuid4 hex ``member_id``, a display name, an optional member-card tag (its UID,
lowercase hex; never a tile's) and an active flag. The registry lives in the table's store;
the hub holds the tables' registries merged (``controller.hub.member_sync``).

Seats change only by a seat act (a card tapped on a seat's hand zone, or staff on the
console), stored with who did it and when; a seat's member is the latest act on it. A hand
starting copies the seating into ``hands.players`` (``EventStore.start_hand``), so each hand
says who sat where as it began, and adds its members to its session's ``players``
(``controller.store.session_players``).

Deleting a member keeps a tombstone (the id, when) and nothing personal: their entries in
hands' ``players`` and in seat acts become None (a guest), and they leave sessions'
``players``; the hands stay settled.
"""

from __future__ import annotations

import hashlib
import re
import typing
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import Connection, Text, cast, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from controller.store.models import HANDS, MEMBERS, SEAT_ACTS, utcnow
from controller.store.records import StoreError, StoreInputError
from controller.store.session_players import forget
from engine.round.actions import Rejection
from engine.round.commands import Audit
from engine.seating import FreeSeat, SeatTaken, Sitter, TakeSeat, apply_seat

NAME_MAX: Final = 32
BY_MAX: Final = 80
MAX_MEMBERS: Final = 5000  # one table's registry (the hub message carries them all)
MAX_TOMBSTONES: Final = 5000  # deletions the hub message repeats
SEATS: Final = 4
MEMBER_ID_PATTERN: Final = r"^[0-9a-f]{32}$"
# A card's UID: 4-32 bytes (ISO 14443 4/7/10, ISO 15693 8, a UHF EPC 12 or more).
CARD_PATTERN: Final = r"^(?:[0-9a-f]{2}){4,32}$"

Player = dict[str, str]  # {"member_id", "name"}
Players = list[Player | None]


class MemberInputError(StoreInputError):
    """Bad member input; ``field`` names what (the API answers 422 naming it)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class UnknownMember(StoreError, LookupError):
    pass


@dataclass(frozen=True, slots=True)
class MemberRecord:
    member_id: str
    name: str
    card_tag: str | None
    active: bool
    home_table: str | None
    created_at: datetime
    updated_at: datetime
    has_link: bool = False

    def as_player(self) -> Player:
        return {"member_id": self.member_id, "name": self.name}

    def as_dict(self) -> dict[str, Any]:
        return {
            "member_id": self.member_id,
            "name": self.name,
            "card_tag": self.card_tag,
            "active": self.active,
            "home_table": self.home_table,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "has_link": self.has_link,
        }


@dataclass(frozen=True, slots=True)
class SeatAct:
    id: int
    table_id: str
    seat: int
    member_id: str | None  # None: the seat left to a guest
    name: str | None
    by: str  # "card" or "<role>:<account>"
    at: datetime
    hand_id: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "member_id": self.member_id,
            "name": self.name,
            "by": self.by,
            "at": self.at.isoformat(),
        }


def check_name(name: object) -> str:
    """A display name: 1-32 characters once trimmed, no control or format characters (it is
    shown as text everywhere, but a newline or a bidi override would still mislead)."""
    if not isinstance(name, str):
        raise MemberInputError("name", "expected a string")
    name = unicodedata.normalize("NFC", name.strip())
    if not 1 <= len(name) <= NAME_MAX:
        raise MemberInputError("name", f"1-{NAME_MAX} characters, got {len(name)}")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise MemberInputError("name", "no control or format characters")
    return name


def check_card(tag: object) -> str:
    """A card's UID as lowercase hex (``:`` and spaces between bytes allowed on input)."""
    if not isinstance(tag, str):
        raise MemberInputError("card_tag", "expected a hex string")
    text = re.sub(r"[:\s-]", "", tag).lower()
    if not re.fullmatch(CARD_PATTERN, text):
        raise MemberInputError("card_tag", "4-32 bytes as hex (e.g. 04a1b2c3d4e5f6)")
    return text


def check_member_id(member_id: object) -> str:
    if not isinstance(member_id, str) or not re.fullmatch(MEMBER_ID_PATTERN, member_id):
        raise MemberInputError("member_id", "32 lowercase hex digits")
    return member_id


def link_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _record(row: Any) -> MemberRecord:
    return MemberRecord(
        member_id=row.member_id,
        name=row.name,
        card_tag=row.card_tag,
        active=row.active,
        home_table=row.home_table,
        created_at=row.created_at,
        updated_at=row.updated_at,
        has_link=row.link_hash is not None,
    )


def _act(row: Any) -> SeatAct:
    return SeatAct(
        row.id, row.table_id, row.seat, row.member_id, row.name, row.by, row.at, row.hand_id
    )


_LIVE = MEMBERS.c.deleted_at.is_(None)


def seating_in(c: Connection, table_id: str) -> Players:
    """Who sits where at ``table_id`` now: the latest act on each seat, with the member's
    current name; a deleted member's seat is a guest's."""
    latest = (
        select(func.max(SEAT_ACTS.c.id))
        .where(SEAT_ACTS.c.table_id == table_id)
        .group_by(SEAT_ACTS.c.seat)
        .scalar_subquery()
    )
    rows = c.execute(
        select(SEAT_ACTS.c.seat, MEMBERS.c.member_id, MEMBERS.c.name)
        .select_from(SEAT_ACTS)
        .outerjoin(MEMBERS, (MEMBERS.c.member_id == SEAT_ACTS.c.member_id) & _LIVE)
        .where(SEAT_ACTS.c.id.in_(latest))
    )
    seats: Players = [None] * SEATS
    for seat, member_id, name in rows:
        if member_id is not None and 0 <= seat < SEATS:
            seats[seat] = {"member_id": member_id, "name": name}
    return seats


def seated_members(c: Connection, table_id: str) -> list[Sitter | None]:
    """``seating_in`` as the engine's seat commands read it."""
    return [
        None if p is None else Sitter(p["member_id"], p["name"]) for p in seating_in(c, table_id)
    ]


def _sitter(c: Connection, member_id: str) -> Sitter:
    """The live, active member ``member_id`` (raises UnknownMember, MemberInputError)."""
    found = c.execute(
        select(MEMBERS.c.name, MEMBERS.c.active).where(MEMBERS.c.member_id == member_id, _LIVE)
    ).first()
    if found is None:
        raise UnknownMember(f"no member {member_id}")
    if not found.active:
        raise MemberInputError("member_id", "the member is deactivated")
    return Sitter(member_id, found.name)


def seat_command(
    c: Connection, seat: int, member_id: str | None, audit: Audit
) -> TakeSeat | FreeSeat:
    """The command that seats ``member_id`` at ``seat`` (None: frees it), the member named
    from the registry (raises UnknownMember, MemberInputError for a deactivated one)."""
    if member_id is None:
        return FreeSeat(audit, seat)
    return TakeSeat(audit, seat, _sitter(c, member_id))


def store_seat_acts(
    c: Connection, table_id: str, parlour: str, events: Sequence[SeatTaken]
) -> list[SeatAct]:
    """``events`` as seat acts, in ``c``'s transaction; each member seated is checked again
    (one deactivated or deleted since the command was made refuses the whole write)."""
    ids = []
    for e in events:
        if e.member is not None:
            _sitter(c, e.member.member_id)
        row = e.as_dict() | {"at": datetime.fromisoformat(e.at)}
        row |= {"table_id": table_id, "parlour": parlour}
        ids.append(
            c.execute(insert(SEAT_ACTS).values(**row).returning(SEAT_ACTS.c.id)).scalar_one()
        )
    query = select(SEAT_ACTS).where(SEAT_ACTS.c.id.in_(ids)).order_by(SEAT_ACTS.c.id)
    return [_act(a) for a in c.execute(query)]


def claim_seat_acts(c: Connection, table_id: str, hand_id: str) -> None:
    """The acts since the last hand led to ``hand_id``'s seating: they travel with its log."""
    c.execute(
        update(SEAT_ACTS)
        .where(SEAT_ACTS.c.table_id == table_id, SEAT_ACTS.c.hand_id.is_(None))
        .values(hand_id=hand_id)
    )


def anonymise(c: Connection, member_ids: Sequence[str]) -> int:
    """Turn the members' entries in hands' ``players`` and in seat acts into guests, and
    drop them from sessions' ``players``; returns how many hands changed. Settlements and
    nets are untouched."""
    changed = 0
    for member_id in member_ids:
        rows = c.execute(
            select(HANDS.c.id, HANDS.c.players).where(
                cast(HANDS.c.players, Text).contains(member_id)
            )
        ).all()
        for hand_id, players in rows:
            if not isinstance(players, list):
                continue
            kept = [
                None if isinstance(p, dict) and p.get("member_id") == member_id else p
                for p in players
            ]
            if kept != players:
                c.execute(update(HANDS).where(HANDS.c.id == hand_id).values(players=kept))
                changed += 1
        c.execute(
            update(SEAT_ACTS)
            .where(SEAT_ACTS.c.member_id == member_id)
            .values(member_id=None, name=None)
        )
        forget(c, member_id)
    return changed


def without_deleted(c: Connection, players: Players | None) -> Players | None:
    """``players`` with the entries of members deleted here turned into guests (a hand log
    that arrives after its member was deleted is stored anonymous too)."""
    if not players:
        return players
    ids = [p["member_id"] for p in players if p is not None]
    if not ids:
        return players
    gone = set(
        c.scalars(
            select(MEMBERS.c.member_id).where(
                MEMBERS.c.member_id.in_(ids), MEMBERS.c.deleted_at.is_not(None)
            )
        )
    )
    return [None if p is not None and p["member_id"] in gone else p for p in players]


_UNSET: Any = object()


class Members:
    """The registry and the seating of one table's store (``table_id``: this table)."""

    def __init__(self, engine: Any, *, table_id: str = "", parlour: str = "") -> None:
        self.engine = engine
        self.table_id = table_id
        self.parlour = parlour

    # --- the registry ------------------------------------------------------------------

    def add(
        self, name: str, card_tag: str | None = None, *, member_id: str | None = None
    ) -> MemberRecord:
        """``member_id``: the id the member has at another table of the parlour (the hub
        counts one record for both); default a new one."""
        name = check_name(name)
        card = None if card_tag is None else check_card(card_tag)
        now = utcnow()
        member_id = uuid.uuid4().hex if member_id is None else check_member_id(member_id)
        with self.engine.begin() as c:
            count = c.scalar(select(func.count()).select_from(MEMBERS).where(_LIVE)) or 0
            if count >= MAX_MEMBERS:
                raise MemberInputError("name", f"the registry is full ({MAX_MEMBERS} members)")
            self._card_free(c, card, None)
            if c.scalar(select(MEMBERS.c.member_id).where(MEMBERS.c.member_id == member_id)):
                raise MemberInputError("member_id", "already in this registry (or deleted)")
            row: dict[str, Any] = {"member_id": member_id, "name": name, "card_tag": card}
            row["active"] = True
            row |= {"home_table": self.table_id or None, "created_at": now, "updated_at": now}
            c.execute(insert(MEMBERS).values(**row))
        return self.get(member_id)

    @staticmethod
    def _card_free(c: Connection, card: str | None, member_id: str | None) -> None:
        if card is None:
            return
        holder = c.scalar(select(MEMBERS.c.member_id).where(MEMBERS.c.card_tag == card))
        if holder is not None and holder != member_id:
            raise MemberInputError("card_tag", "another member's card")

    def get(self, member_id: str) -> MemberRecord:
        with self.engine.connect() as c:
            row = c.execute(select(MEMBERS).where(MEMBERS.c.member_id == member_id, _LIVE)).first()
        if row is None:
            raise UnknownMember(member_id)
        return _record(row)

    def all(self, *, active_only: bool = False) -> list[MemberRecord]:
        query = select(MEMBERS).where(_LIVE)
        if active_only:
            query = query.where(MEMBERS.c.active.is_(True))
        with self.engine.connect() as c:
            return [_record(r) for r in c.execute(query.order_by(MEMBERS.c.name))]

    def edit(
        self,
        member_id: str,
        *,
        name: str | None = None,
        card_tag: str | None = _UNSET,
        active: bool | None = None,
    ) -> MemberRecord:
        """Change what is given; ``card_tag=None`` takes the card away."""
        values: dict[str, Any] = {"updated_at": utcnow()}
        if name is not None:
            values["name"] = check_name(name)
        if card_tag is not _UNSET:
            values["card_tag"] = None if card_tag is None else check_card(card_tag)
        if active is not None:
            values["active"] = bool(active)
        try:
            with self.engine.begin() as c:
                self._card_free(c, values.get("card_tag"), member_id)
                done = c.execute(
                    update(MEMBERS).where(MEMBERS.c.member_id == member_id, _LIVE).values(**values)
                ).rowcount
                if not done:
                    raise UnknownMember(member_id)
        except IntegrityError:  # (a concurrent writer took the card)
            raise MemberInputError("card_tag", "another member's card") from None
        return self.get(member_id)

    def remove(self, member_id: str) -> int:
        """Delete the member: a tombstone stays, their past hands turn anonymous (returns
        how many). Whoever sits in their seat is a guest from now on."""
        now = utcnow()
        gone = {"name": None, "card_tag": None, "active": False, "link_hash": None}
        with self.engine.begin() as c:
            done = c.execute(
                update(MEMBERS)
                .where(MEMBERS.c.member_id == member_id, _LIVE)
                .values(**gone, deleted_at=now, updated_at=now)
            ).rowcount
            if not done:
                raise UnknownMember(member_id)
            return anonymise(c, [member_id])

    def by_card(self, card_tag: str) -> MemberRecord | None:
        """The active member whose card this is, or None."""
        with self.engine.connect() as c:
            row = c.execute(
                select(MEMBERS).where(
                    MEMBERS.c.card_tag == card_tag, MEMBERS.c.active.is_(True), _LIVE
                )
            ).first()
        return None if row is None else _record(row)

    def card_tags(self) -> dict[bytes, str]:
        """Every live member's card UID -> member id (inactive ones too: a card is never a
        tile, whoever holds it)."""
        with self.engine.connect() as c:
            rows = c.execute(
                select(MEMBERS.c.card_tag, MEMBERS.c.member_id).where(
                    MEMBERS.c.card_tag.is_not(None), _LIVE
                )
            )
            return {bytes.fromhex(tag): member_id for tag, member_id in rows}

    def tombstones(self, limit: int = MAX_TOMBSTONES) -> list[str]:
        query = (
            select(MEMBERS.c.member_id)
            .where(MEMBERS.c.deleted_at.is_not(None))
            .order_by(MEMBERS.c.deleted_at.desc())
            .limit(limit)
        )
        with self.engine.connect() as c:
            return list(c.scalars(query))

    # --- the seats ------------------------------------------------------------------------

    def seating(self) -> Players:
        with self.engine.connect() as c:
            return seating_in(c, self.table_id)

    def sit(self, seat: int, member_id: str | None, by: str) -> list[SeatAct]:
        """``member_id`` sits down at ``seat`` (None: the seat is left to a guest), as ``by``
        ("card" or "<role>:<account>") did it, with no table running (``mjtable``'s tools,
        tests): the seat command the table executes (``engine.seating``), its acts stored,
        nothing published. A table seats people through ``controller.table.seating``."""
        role, _, name = by.rpartition(":")
        at = utcnow().isoformat()
        audit = Audit(name, typing.cast(Any, role), at) if role else Audit(by, "player", at)
        with self.engine.begin() as c:
            command = seat_command(c, seat, member_id, audit)
            done = apply_seat(seated_members(c, self.table_id), command)
            if isinstance(done, Rejection):
                raise MemberInputError("seat", done.reason)
            return store_seat_acts(c, self.table_id, self.parlour, done)

    def acts(self, *, hand_id: str | None = None, limit: int = 200) -> list[SeatAct]:
        """This table's seat acts, newest first (``hand_id``: those that led to that hand)."""
        query = select(SEAT_ACTS).where(SEAT_ACTS.c.table_id == self.table_id)
        if hand_id is not None:
            query = select(SEAT_ACTS).where(SEAT_ACTS.c.hand_id == hand_id)
        query = query.order_by(SEAT_ACTS.c.id.desc()).limit(limit)
        with self.engine.connect() as c:
            return [_act(r) for r in c.execute(query)]


def seated(players: Players, acts: Sequence[SeatAct]) -> dict[str, Any]:
    """The answer to a seat act: who sits where now, and the acts it stored."""
    return {"players": players, "acts": [a.as_dict() for a in acts]}


def hand_seat_acts(engine: Any, hand_id: str) -> list[dict[str, Any]]:
    """The seat acts that led to ``hand_id``'s seating, oldest first, as a handlog
    carries them."""
    query = select(SEAT_ACTS).where(SEAT_ACTS.c.hand_id == hand_id).order_by(SEAT_ACTS.c.id)
    with engine.connect() as c:
        return [_act(r).as_dict() for r in c.execute(query)]
