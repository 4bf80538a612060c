"""Which rules the table plays: ``table.toml``'s ``[ruleset]``, or the house ruleset an
owner assigned to this table (docs/house-rules.md), taken at a session's start, never
mid-session or mid-hand, or at the next hand when the owner asked for that.

A house ruleset the table cannot validate (a built-in or an option this software does not
know) is never played: the table keeps what it plays, and the reason is stored with the
assignment for the owners' pages and said in the log."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import structlog

from controller.house.options import HouseRulesError, check_house
from controller.store import EventStore
from controller.store.house_rules import HouseAssignment, HouseRules

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class RulesInForce:
    ruleset: str  # a built-in preset
    options: dict[str, Any] = field(default_factory=dict)
    house: dict[str, Any] | None = None  # {"name", "version"}: a house ruleset's

    @property
    def name(self) -> str | None:
        return None if self.house is None else str(self.house.get("name"))


class HouseChoice:
    """The rules for the table's next session or hand, from its store's assignment."""

    def __init__(self, store: EventStore, table: str, configured: RulesInForce) -> None:
        self.rules = HouseRules(store)
        self.table = table
        self.configured = configured
        self.problem: str | None = None  # why the assignment is not played (None: it is)

    def for_session(self, current: RulesInForce | None) -> RulesInForce:
        """At a session's start: the assigned house ruleset, table.toml's without one, or
        ``current`` when the assigned one cannot be played."""
        assignment = self.rules.assignment(self.table)
        if assignment is None:
            self.problem = None
            return self.configured
        return self._assigned(assignment, current)

    def for_next_hand(self, current: RulesInForce) -> RulesInForce | None:
        """Between hands of a session: the assigned house ruleset if the owner asked for it
        from the next hand and the session does not play it yet (None: keep playing)."""
        assignment = self.rules.assignment(self.table)
        if assignment is None or not assignment.from_next_hand:
            return None
        wanted = {"name": assignment.name, "version": assignment.version}
        if current.house == wanted:
            return None
        chosen = self._assigned(assignment, current)
        return None if chosen == current else chosen

    def _assigned(self, assignment: HouseAssignment, current: RulesInForce | None) -> RulesInForce:
        fallback = current or self.configured
        ruleset = self.rules.get(assignment.name)
        try:
            if ruleset is None:
                raise HouseRulesError(f"店规「{assignment.name}」不在本桌")
            if ruleset.version != assignment.version:
                raise HouseRulesError(
                    f"店规「{assignment.name}」本桌只有第 {ruleset.version} 版，"
                    f"指派的是第 {assignment.version} 版"
                )
            options = check_house(ruleset.base, ruleset.options)
        except HouseRulesError as err:
            why = f"{err}；本桌继续用原来的规则"
            if why != self.problem:
                log.error("house ruleset refused", name=assignment.name, why=why)
                self.rules.report_applied(self.table, None, why)
            self.problem = why
            return fallback
        # (a problem this choice did not find stays: the hub's newer rules, refused as they
        # came, while these play on)
        if assignment.applied_version != ruleset.version or self.problem is not None:
            self.rules.report_applied(self.table, ruleset.version, None)
        self.problem = None
        house = {"name": ruleset.name, "version": ruleset.version}
        return RulesInForce(ruleset.base, options, house)
