"""House rulesets in the store (``house_rulesets``, ``house_assignments``, ``house_audit``):
saved under a name by an owner, assigned to tables, every change audited with the values
before and after. The same code keeps a table's own (on its Pi) and the hub's (PostgreSQL).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Row, insert, select, update

from controller.house.options import HouseRulesError, check_house
from controller.store.event_store import EventStore
from controller.store.models import HOUSE_ASSIGNMENTS, HOUSE_AUDIT, HOUSE_RULESETS, utcnow
from controller.store.owners import check_table
from controller.store.records import StoreError, StoreInputError

# A name owners and players read (本店兴国): letters of any script, digits, space · _ . -
HOUSE_NAME = re.compile(r"^[^\W_][\w .·-]{0,63}$")
MAX_AUDIT = 500
MAX_PROBLEM = 500  # characters of a refusal kept


class UnknownHouseRuleset(StoreError, LookupError):
    pass


@dataclass(frozen=True, slots=True)
class HouseRuleset:
    name: str
    base: str  # the built-in preset
    options: dict[str, Any]  # the values that differ from base's
    version: int
    updated_by: str
    updated_at: datetime

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"updated_at": self.updated_at.isoformat()}


@dataclass(frozen=True, slots=True)
class HouseAssignment:
    table_id: str
    name: str
    version: int
    from_next_hand: bool
    assigned_by: str
    assigned_at: datetime
    applied_version: int | None = None
    applied_at: datetime | None = None
    problem: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {
            "assigned_at": self.assigned_at.isoformat(),
            "applied_at": None if self.applied_at is None else self.applied_at.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class AuditEntry:
    id: int
    at: datetime
    by: str
    action: str  # save | receive (from the hub) | assign | refuse (the hub's, at a table)
    name: str
    table_id: str | None
    old: dict[str, Any] | None
    new: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"at": self.at.isoformat()}


def check_house_name(name: Any) -> str:
    if not isinstance(name, str) or not HOUSE_NAME.fullmatch(name):
        raise StoreInputError(
            "规则名称：1-64 个字（汉字、字母、数字、空格、· _ . -），不以符号开头"
        )
    return name


def _ruleset(row: Row[Any]) -> HouseRuleset:
    return HouseRuleset(
        row.name, row.base, dict(row.options), row.version, row.updated_by, row.updated_at
    )


def _assignment(row: Row[Any]) -> HouseAssignment:
    return HouseAssignment(
        row.table_id,
        row.name,
        row.version,
        row.from_next_hand,
        row.assigned_by,
        row.assigned_at,
        row.applied_version,
        row.applied_at,
        row.problem,
    )


class HouseRules:
    def __init__(self, store: EventStore) -> None:
        self.engine = store.engine

    # --- rulesets ----------------------------------------------------------------------------

    def save(
        self,
        name: str,
        base: str,
        options: dict[str, Any],
        by: str,
        *,
        expected_version: int | None = None,
    ) -> HouseRuleset:
        """Create ``name`` (``expected_version`` 0 or None) or save its next version; the
        values are checked as ``mjtable rules check`` does. ``expected_version``: the
        version the owner edited (another owner's save since is refused, not overwritten).
        The tables assigned ``name`` are assigned the new version."""

        def next_version(old: HouseRuleset | None) -> int:
            if expected_version is not None and expected_version != (old.version if old else 0):
                who, seen = (old.updated_by, old.version) if old else ("别人", 0)
                raise StoreInputError(f"「{name}」已被 {who} 改过（第 {seen} 版），请重新打开再改")
            return 1 if old is None else old.version + 1

        return self._put(name, base, options, by, "save", next_version)

    def receive(
        self, name: str, base: str, options: dict[str, Any], by: str, version: int
    ) -> HouseRuleset:
        """A house ruleset as the hub sent it, under the hub's version (a table keeps the
        hub's numbering); checked as ``save`` checks it. The same version again: unchanged."""
        return self._put(name, base, options, by, "receive", lambda _old: version)

    def _put(
        self,
        name: str,
        base: str,
        options: dict[str, Any],
        by: str,
        action: str,
        version_of: Callable[[HouseRuleset | None], int],
    ) -> HouseRuleset:
        check_house_name(name)
        try:
            changed = check_house(base, options)
        except HouseRulesError as err:
            raise StoreInputError(str(err)) from None
        now = utcnow()
        with self.engine.begin() as c:
            row = c.execute(
                select(HOUSE_RULESETS).where(HOUSE_RULESETS.c.name == name).with_for_update()
            ).first()
            old = None if row is None else _ruleset(row)
            version = version_of(old)
            if old is not None and (old.version, old.base, old.options) == (version, base, changed):
                return old
            values = {
                "base": base,
                "options": changed,
                "version": version,
                "updated_by": by,
                "updated_at": now,
            }
            if old is None:
                c.execute(insert(HOUSE_RULESETS).values(name=name, **values))
            else:
                same = HOUSE_RULESETS.c.name == name
                c.execute(update(HOUSE_RULESETS).where(same).values(values))
                assigned = HOUSE_ASSIGNMENTS.c.name == name
                c.execute(update(HOUSE_ASSIGNMENTS).where(assigned).values(version=version))
            before = None if old is None else _values(old)
            after = {"base": base, "options": changed, "version": version}
            self._audit(c, by, action, name, None, before, after)
        return HouseRuleset(name, base, changed, version, by, now)

    def get(self, name: str) -> HouseRuleset | None:
        with self.engine.connect() as c:
            row = c.execute(select(HOUSE_RULESETS).where(HOUSE_RULESETS.c.name == name)).first()
        return None if row is None else _ruleset(row)

    def all(self) -> list[HouseRuleset]:
        with self.engine.connect() as c:
            rows = c.execute(select(HOUSE_RULESETS).order_by(HOUSE_RULESETS.c.name)).all()
        return [_ruleset(r) for r in rows]

    # --- assignments ---------------------------------------------------------------------------

    def assign(
        self, table: str, name: str, by: str, *, from_next_hand: bool = False
    ) -> HouseAssignment:
        """``table`` plays ``name`` from its next session (or from its next hand)."""
        check_table(table)
        now = utcnow()
        with self.engine.begin() as c:
            ruleset = c.execute(select(HOUSE_RULESETS).where(HOUSE_RULESETS.c.name == name)).first()
            if ruleset is None:
                raise UnknownHouseRuleset(name)
            row = c.execute(
                select(HOUSE_ASSIGNMENTS).where(HOUSE_ASSIGNMENTS.c.table_id == table)
            ).first()
            values = {
                "name": name,
                "version": ruleset.version,
                "from_next_hand": from_next_hand,
                "assigned_by": by,
                "assigned_at": now,
                "applied_version": None,
                "applied_at": None,
                "problem": None,
            }
            if row is None:
                c.execute(insert(HOUSE_ASSIGNMENTS).values(table_id=table, **values))
            else:
                c.execute(
                    update(HOUSE_ASSIGNMENTS)
                    .where(HOUSE_ASSIGNMENTS.c.table_id == table)
                    .values(values)
                )
            before = None if row is None else {"name": row.name, "version": row.version}
            after = {"name": name, "version": ruleset.version, "from_next_hand": from_next_hand}
            self._audit(c, by, "assign", name, table, before, after)
        return HouseAssignment(table, name, ruleset.version, from_next_hand, by, now)

    def assignment(self, table: str) -> HouseAssignment | None:
        with self.engine.connect() as c:
            row = c.execute(
                select(HOUSE_ASSIGNMENTS).where(HOUSE_ASSIGNMENTS.c.table_id == table)
            ).first()
        return None if row is None else _assignment(row)

    def assignments(self) -> list[HouseAssignment]:
        with self.engine.connect() as c:
            rows = c.execute(select(HOUSE_ASSIGNMENTS).order_by(HOUSE_ASSIGNMENTS.c.table_id))
            return [_assignment(r) for r in rows]

    def report_applied(self, table: str, version: int | None, problem: str | None) -> None:
        """What the table says it plays: the version it applied, or why it refused one."""
        values: dict[str, Any] = {"problem": problem}
        if version is not None:
            values |= {"applied_version": version, "applied_at": utcnow()}
        with self.engine.begin() as c:
            c.execute(
                update(HOUSE_ASSIGNMENTS)
                .where(HOUSE_ASSIGNMENTS.c.table_id == table)
                .values(values)
            )

    def refuse(self, table: str, name: str, version: int, why: str, by: str) -> None:
        """The hub's house ruleset the table refused as it came, in the audit (once for a
        message the hub sends again): ``refusal`` says it until another comes."""
        new = {"name": name, "version": version, "problem": why[:MAX_PROBLEM]}
        with self.engine.begin() as c:
            if _latest(c, table) == ("refuse", new):
                return
            self._audit(c, by, "refuse", name[:64], table, None, new)

    def refusal(self, table: str) -> str | None:
        """Why the table refused the hub's latest house ruleset (None: it took it, or none
        came): the table's latest assignment or refusal in the audit."""
        with self.engine.connect() as c:
            latest = _latest(c, table)
        if latest is None or latest[0] != "refuse":
            return None
        return str(latest[1].get("problem"))

    # --- audit ---------------------------------------------------------------------------------

    def audit(self, limit: int = 100) -> list[AuditEntry]:
        """The latest changes and assignments, newest first."""
        query = select(HOUSE_AUDIT).order_by(HOUSE_AUDIT.c.id.desc()).limit(min(limit, MAX_AUDIT))
        with self.engine.connect() as c:
            return [
                AuditEntry(r.id, r.at, r.by, r.action, r.name, r.table_id, r.old, r.new)
                for r in c.execute(query)
            ]

    @staticmethod
    def _audit(
        c: Connection,
        by: str,
        action: str,
        name: str,
        table: str | None,
        old: dict[str, Any] | None,
        new: dict[str, Any],
    ) -> None:
        c.execute(
            insert(HOUSE_AUDIT).values(
                at=utcnow(), by=by, action=action, name=name, table_id=table, old=old, new=new
            )
        )


def _latest(c: Connection, table: str) -> tuple[str, dict[str, Any]] | None:
    """The table's latest assignment or refusal in the audit: (action, new values)."""
    row = c.execute(
        select(HOUSE_AUDIT.c.action, HOUSE_AUDIT.c.new)
        .where(HOUSE_AUDIT.c.table_id == table)
        .order_by(HOUSE_AUDIT.c.id.desc())
        .limit(1)
    ).first()
    return None if row is None else (row.action, dict(row.new))


def _values(ruleset: HouseRuleset) -> dict[str, Any]:
    return {"base": ruleset.base, "options": ruleset.options, "version": ruleset.version}
