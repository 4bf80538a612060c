"""A table's member registry on its way to the parlour hub, and back into the hub's store.

The table publishes its registry as one retained QoS 1 message on
``mahjong/<parlour>/<table>/members`` (the hub's account alone may read it: broker_acl)
whenever it changed (``controller.hub.handlog_sync`` looks each pass): the newest state wins,
and a hub that was down reads the retained one when it comes back. Payload, version 1::

    {"format": "mjtable.members", "version": 1,
     "members": [{"member_id": "<uuid4 hex>", "name": "王五", "active": true}, …],
     "removed": ["<uuid4 hex>", …]}     # deleted here: the hub forgets them too

No card tags (the hub does not read cards) and no link tokens travel. The hub keeps a member
under the table that registered it (``home_table``): another table cannot rename it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, select, update

from controller.json_bounds import JsonBoundsError, loads_bounded
from controller.mqtt.topics import MEMBERS_NAME, Topics
from controller.store.members import (
    MAX_MEMBERS,
    MAX_TOMBSTONES,
    MemberInputError,
    Members,
    anonymise,
    check_member_id,
    check_name,
)
from controller.store.models import MEMBERS, utcnow

FORMAT = "mjtable.members"
VERSION = 1
MAX_BYTES = 1 << 20
MAX_DEPTH = 4


class MembersError(ValueError):
    pass


def members_topic(topics: Topics) -> str:
    """Not one of ``Topics``' public names: displays never see it."""
    return topics.prefix + MEMBERS_NAME


def hub_members_filter(parlour: str, root: str = "mahjong") -> str:
    return f"{root}/{parlour}/+/{MEMBERS_NAME}"


def registry_version(engine: Engine) -> tuple[int, str]:
    """Changes with every add, edit and deletion (each sets ``updated_at``)."""
    with engine.connect() as c:
        count, newest = c.execute(
            select(func.count(), func.max(MEMBERS.c.updated_at)).select_from(MEMBERS)
        ).one()
    return int(count), str(newest)


def build_members(members: Members) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "members": [
            {"member_id": m.member_id, "name": m.name, "active": m.active} for m in members.all()
        ],
        "removed": members.tombstones(),
    }


@dataclass(frozen=True, slots=True)
class MemberSnapshot:
    members: tuple[tuple[str, str, bool], ...]  # (member_id, name, active)
    removed: tuple[str, ...]


def _member_id(value: Any, where: str) -> str:
    try:
        return check_member_id(value)
    except MemberInputError:
        raise MembersError(f"{where}: expected 32 lowercase hex digits") from None


def parse_members(payload: bytes | str | Mapping[str, Any]) -> MemberSnapshot:
    """Validate a ``members`` message; the error names the field."""
    data: Any = payload
    if not isinstance(payload, Mapping):
        try:
            data = loads_bounded(payload, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH)
        except JsonBoundsError as err:
            raise MembersError(f"members: {err}") from None
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise MembersError(f"members.format: expected {FORMAT!r}")
    if data.get("version") != VERSION:
        raise MembersError(f"members.version: this hub reads version {VERSION}")
    listed, removed = data.get("members"), data.get("removed", [])
    if not isinstance(listed, list) or len(listed) > MAX_MEMBERS:
        raise MembersError(f"members.members: a list of at most {MAX_MEMBERS}")
    if not isinstance(removed, list) or len(removed) > MAX_TOMBSTONES:
        raise MembersError(f"members.removed: a list of at most {MAX_TOMBSTONES}")
    out = []
    for i, m in enumerate(listed):
        where = f"members.members[{i}]"
        if not isinstance(m, Mapping):
            raise MembersError(f"{where}: expected an object")
        try:
            name = check_name(m.get("name"))
        except MemberInputError as err:
            raise MembersError(f"{where}.{err}") from None
        active = m.get("active")
        if not isinstance(active, bool):
            raise MembersError(f"{where}.active: true or false")
        out.append((_member_id(m.get("member_id"), f"{where}.member_id"), name, active))
    gone = tuple(_member_id(r, f"members.removed[{i}]") for i, r in enumerate(removed))
    return MemberSnapshot(tuple(out), gone)


def apply_members(engine: Engine, snapshot: MemberSnapshot, *, table: str) -> None:
    """The hub takes a table's registry: its members added or updated (never one another
    table registered, never one deleted), its deletions done (hands anonymised)."""
    with engine.begin() as c:
        _apply(c, table, snapshot)


def _own(known: dict[str, tuple[str | None, bool]], member_id: str, table: str) -> bool:
    """A member this table registered and nobody deleted: the table's to change."""
    home, deleted = known[member_id]
    return home == table and not deleted


def _update(c: Connection, member_id: str, **values: Any) -> None:
    c.execute(update(MEMBERS).where(MEMBERS.c.member_id == member_id).values(**values))


def _apply(c: Connection, table: str, snapshot: MemberSnapshot) -> None:
    now = utcnow()
    ids = [m[0] for m in snapshot.members] + list(snapshot.removed)
    known: dict[str, tuple[str | None, bool]] = {}
    for start in range(0, len(ids), 1000):
        rows = c.execute(
            select(MEMBERS.c.member_id, MEMBERS.c.home_table, MEMBERS.c.deleted_at).where(
                MEMBERS.c.member_id.in_(ids[start : start + 1000])
            )
        )
        known.update((m, (home, deleted is not None)) for m, home, deleted in rows)
    for member_id, name, active in snapshot.members:
        if member_id not in known:
            row = {"member_id": member_id, "name": name, "active": active, "home_table": table}
            c.execute(insert(MEMBERS).values(**row, created_at=now, updated_at=now))
            continue
        if _own(known, member_id, table):
            _update(c, member_id, name=name, active=active, updated_at=now)
    gone = {"name": None, "card_tag": None, "active": False, "link_hash": None}
    forget = []
    for member_id in snapshot.removed:
        if member_id not in known:
            row = {"member_id": member_id, **gone, "home_table": table}
            c.execute(insert(MEMBERS).values(**row, created_at=now, updated_at=now, deleted_at=now))
            forget.append(member_id)  # (its hands may have come before its registry)
            continue
        if _own(known, member_id, table):
            _update(c, member_id, **gone, deleted_at=now, updated_at=now)
            forget.append(member_id)
    anonymise(c, forget)
