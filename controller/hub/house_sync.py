"""House rulesets from the hub to each table, and each table's answer back.

The hub publishes each table's assigned house ruleset as one retained QoS 1 message on
``mahjong/<parlour>/<table>/house_rules`` (in the table's own subtree: only that table's
account and the hub's may read it, and no other table's account may write it: broker_acl);
a table offline meanwhile reads it when it reconnects. Payload, version 1::

    {"format": "mjtable.house_rules", "version": 1, "name": "本店兴国",
     "base": "xingguo", "options": {"win.deguo_bonus": 10}, "rules_version": 3,
     "from_next_hand": false, "by": "boss"}

The table checks it as ``mjtable rules check`` does, keeps it in its store and plays it from
its next session (``controller.table.house_choice``); it answers, retained, on
``…/house_rules_ack`` with what it was assigned, the version it applied, and why it
refused one (it then keeps its rules)::

    {"format": "mjtable.house_rules_ack", "version": 1, "name": "本店兴国",
     "assigned": 3, "applied": 2, "problem": null}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from controller.json_bounds import JsonBoundsError, loads_object
from controller.mqtt.topics import HOUSE_ACK_NAME, HOUSE_RULES_NAME, Topics
from controller.process.software import SOFTWARE, software_version
from controller.store import EventStore, StoreInputError
from controller.store.house_rules import (
    MAX_PROBLEM,
    HouseAssignment,
    HouseRules,
    HouseRuleset,
)

FORMAT = "mjtable.house_rules"
ACK_FORMAT = "mjtable.house_rules_ack"
VERSION = 1
MAX_BYTES = 64 * 1024
MAX_DEPTH = 4


class HouseSyncError(ValueError):
    pass


def house_topic(topics: Topics) -> str:
    """Not one of ``Topics``' public names: displays never see it."""
    return topics.prefix + HOUSE_RULES_NAME


def house_ack_topic(topics: Topics) -> str:
    return topics.prefix + HOUSE_ACK_NAME


def hub_house_topic(parlour: str, table: str, root: str = "mahjong") -> str:
    return f"{root}/{parlour}/{table}/{HOUSE_RULES_NAME}"


def hub_ack_filter(parlour: str, root: str = "mahjong") -> str:
    return f"{root}/{parlour}/+/{HOUSE_ACK_NAME}"


@dataclass(frozen=True, slots=True)
class HouseMessage:
    name: str
    base: str
    options: dict[str, Any]
    rules_version: int
    from_next_hand: bool
    by: str


def build_house(ruleset: HouseRuleset, assignment: HouseAssignment) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": ruleset.name,
        "base": ruleset.base,
        "options": ruleset.options,
        "rules_version": ruleset.version,
        "from_next_hand": assignment.from_next_hand,
        "by": assignment.assigned_by,
    }


def _load(raw: bytes | str, what: str) -> Mapping[str, Any]:
    try:
        return loads_object(raw, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH)
    except JsonBoundsError as err:
        raise HouseSyncError(f"{what}: {err}") from None


def _text(data: Mapping[str, Any], key: str, limit: int = 64) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not 1 <= len(value) <= limit:
        raise HouseSyncError(f"house_rules.{key}: 1-{limit} characters")
    return value


def _count(data: Mapping[str, Any], key: str, *, optional: bool = False) -> int | None:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 31:
        raise HouseSyncError(f"{key}: a version number")
    return value


def parse_house(raw: bytes | str) -> HouseMessage:
    """The message's shape (the values are checked as the table takes them)."""
    data = _load(raw, "house_rules")
    if data.get("format") != FORMAT or data.get("version") != VERSION:
        raise HouseSyncError(f"house_rules: expected {FORMAT!r} version {VERSION}")
    options = data.get("options")
    if not isinstance(options, dict):
        raise HouseSyncError("house_rules.options: expected an object")
    from_next_hand = data.get("from_next_hand")
    if not isinstance(from_next_hand, bool):
        raise HouseSyncError("house_rules.from_next_hand: true or false")
    version = _count(data, "rules_version")
    assert version is not None
    return HouseMessage(
        _text(data, "name"),
        _text(data, "base"),
        options,
        version,
        from_next_hand,
        _text(data, "by", 80),
    )


def take_house(store: EventStore, table: str, message: HouseMessage) -> str | None:
    """The table keeps the hub's house ruleset and its assignment (played from its next
    session); returns why it refused it (None: taken). A refused one is never played."""
    rules = HouseRules(store)
    by = f"hub:{message.by}"
    try:
        rules.receive(message.name, message.base, message.options, by, message.rules_version)
    except StoreInputError as err:
        why = f"{err}；本桌继续用原来的规则"
        rules.report_applied(table, None, why)
        rules.refuse(table, message.name, message.rules_version, why, by)
        return why
    now = rules.assignment(table)
    if now is None or (now.name, now.version, now.from_next_hand) != (
        message.name,
        message.rules_version,
        message.from_next_hand,
    ):
        rules.assign(table, message.name, by, from_next_hand=message.from_next_hand)
    return None


def ack_state(store: EventStore, table: str, refused: str | None) -> dict[str, Any]:
    """What the table answers the hub: its assignment, the version applied, and why not."""
    found = HouseRules(store).assignment(table)
    problem = refused or (None if found is None else found.problem)
    return {
        "format": ACK_FORMAT,
        "version": VERSION,
        "name": None if found is None else found.name,
        "assigned": None if found is None else found.version,
        "applied": None if found is None else found.applied_version,
        "problem": None if problem is None else problem[:MAX_PROBLEM],
        "software": software_version(),
    }


def parse_ack(raw: bytes | str) -> tuple[int | None, str | None, str | None]:
    """(the version applied, why one was refused, the software it runs) of an answer."""
    data = _load(raw, "house_rules_ack")
    if data.get("format") != ACK_FORMAT or data.get("version") != VERSION:
        raise HouseSyncError(f"house_rules_ack: expected {ACK_FORMAT!r} version {VERSION}")
    problem = data.get("problem")
    if problem is not None and (not isinstance(problem, str) or len(problem) > MAX_PROBLEM):
        raise HouseSyncError(f"house_rules_ack.problem: at most {MAX_PROBLEM} characters")
    software = data.get("software")
    if not isinstance(software, str) or not SOFTWARE.fullmatch(software):
        software = None
    return _count(data, "applied", optional=True), problem, software
