"""The parlour broker's access rules (a Mosquitto ``acl_file``), from the list of tables.

Three kinds of account, one password each (``mosquitto_passwd``):

- ``table-<id>``: the table's Pi. Reads and writes its own subtree only
  (``<root>/<parlour>/<id>/#``): it cannot speak for another table.
- ``display-<id>``: the table's displays. Read only, and only the public topics of that
  table (docs/displays.md): never ``handlog`` (concealed hands, wall order) or
  ``handlog_ack``.
- ``floor`` (``floor_user``): the parlour's floor view. Read only, the public topics of
  every table.
- the hub (``hub``): reads every table's ``handlog``, ``status``, ``handlog_request`` and
  ``members`` (its member registry, controller.hub.member_sync),
  writes ``handlog_ack`` and ``handlog_restore`` (a table's own hands sent back to it);
  writes each table's ``house_rules`` and reads its ``house_rules_ack``
  (controller.hub.house_sync). A table's ``house_rules`` lies in its own subtree: no other
  table's account may write it, no display may read it.

Anything not granted is refused (Mosquitto denies by default once an acl_file is set).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from controller.config import ID_PATTERN
from controller.mqtt.flat import PREFIX as FLAT_PREFIX
from controller.mqtt.topics import (
    ACK_NAME,
    HANDLOG_NAME,
    HOUSE_ACK_NAME,
    HOUSE_RULES_NAME,
    MEMBERS_NAME,
    REQUEST_NAME,
    RESTORE_NAME,
    RETAINED,
)

# What a display may read: the retained state, the public streams and the flat topics.
PUBLIC = (*RETAINED, "events", "alerts", FLAT_PREFIX + "#")


def table_user(table: str) -> str:
    return f"table-{table}"


def display_user(table: str) -> str:
    return f"display-{table}"


def _check(what: str, value: str) -> str:
    # Every name lands in a line of the acl_file: a newline, a space or a wildcard in one
    # would write rules of its own (e.g. hub user "hub\ntopic readwrite #").
    if not re.fullmatch(ID_PATTERN, value):
        raise ValueError(f"{what}: letters, digits, _ . - (1-64, not first), got {value!r}")
    return value


def render_acl(
    parlour: str,
    tables: Iterable[str],
    *,
    root: str = "mahjong",
    hub_user: str = "hub",
    floor_user: str = "floor",
) -> str:
    names = list(dict.fromkeys(tables))
    _check("parlour id", parlour)
    for name in names:
        _check("table id", name)
    _check("hub user", hub_user)
    for level in root.split("/"):
        _check(f"topic root {root!r}, each level", level)
    base = f"{root}/{parlour}"
    lines = [
        "# mjtable: Mosquitto acl_file, written by `mjtable broker-acl`. Regenerate it when",
        "# tables are added; passwords: mosquitto_passwd /etc/mosquitto/mjtable.passwd <user>",
        "",
        "# The hub: every table's finished hands and status in, acknowledgements out;",
        "# a table's request for its own hands back in, those hands out.",
        f"user {hub_user}",
        f"topic read {base}/+/{HANDLOG_NAME}",
        f"topic read {base}/+/status",
        f"topic write {base}/+/{ACK_NAME}",
        f"topic read {base}/+/{REQUEST_NAME}",
        f"topic write {base}/+/{RESTORE_NAME}",
        f"topic read {base}/+/{MEMBERS_NAME}",
        "# Each table's house ruleset out (retained, in its subtree), its answer in.",
        f"topic write {base}/+/{HOUSE_RULES_NAME}",
        f"topic read {base}/+/{HOUSE_ACK_NAME}",
        "",
        "# The floor view: every table's public topics, read only.",
        f"user {floor_user}",
        *(f"topic read {base}/+/{name}" for name in PUBLIC),
    ]
    for table in names:
        lines += [
            "",
            f"# Table {table}: its own subtree, nothing else.",
            f"user {table_user(table)}",
            f"topic readwrite {base}/{table}/#",
            "",
            f"# Displays of table {table}: its public topics, read only.",
            f"user {display_user(table)}",
            *(f"topic read {base}/{table}/{name}" for name in PUBLIC),
        ]
    return "\n".join(lines) + "\n"
