"""The table's topics and how payloads are written.

The display contract, every topic and its payload, is docs/displays.md (one place); the
names here and in ``controller.mqtt.flat`` are checked against its table by
tests/controller/mqtt/test_display_contract.py.
"""

from __future__ import annotations

import json
from typing import Any

from controller.mqtt.flat import FLAT_NAMES

# State a display needs on connect: retained, absolute values (never deltas).
RETAINED = ("status", "jing", "dice", "scores", "hand", "settlement", "seats", "cashout")
# Streams: not retained; the hub de-duplicates handlog by hand id, displays events by seq.
STREAMS = ("events", "alerts", "handlog")
# Plain-text values for microcontrollers, all retained (controller.mqtt.flat).
FLAT = frozenset(FLAT_NAMES)
# The hub sync's topics (controller.hub): a finished hand's full log, for the hub's account
# only (broker_acl), and its ack; a table that lost hands asks for its own back
# (controller.hub.handlog_restore); the parlour's members, retained.
HANDLOG_NAME = "handlog"
ACK_NAME = "handlog_ack"
REQUEST_NAME = "handlog_request"
RESTORE_NAME = "handlog_restore"
MEMBERS_NAME = "members"
# An owner's house ruleset from the hub to one table (retained), and the table's answer
# (controller.hub.house_sync): the table's own subtree, never a display's (broker_acl).
HOUSE_RULES_NAME = "house_rules"
HOUSE_ACK_NAME = "house_rules_ack"
ONLINE = {"state": "online"}
OFFLINE = {"state": "offline"}


def encode(payload: Any) -> str:
    """Compact UTF-8 JSON (Chinese stays readable); ValueError names what is not JSON."""
    try:
        return json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise ValueError(f"payload is not JSON-serialisable: {err}") from None


class Topics:
    """``mahjong/<parlour>/<table>/<name>``."""

    def __init__(self, parlour: str, table: str, root: str = "mahjong") -> None:
        for label, level in (("parlour", parlour), ("table", table)):
            if not level or any(c in level for c in "/+#"):
                raise ValueError(f"{label}: not a single topic level: {level!r}")
        self.prefix = f"{root}/{parlour}/{table}/"

    def topic(self, name: str) -> str:
        if name not in RETAINED and name not in STREAMS and name not in FLAT:
            raise ValueError(f"unknown topic {name!r}; known: {', '.join(RETAINED + STREAMS)}")
        return self.prefix + name

    @staticmethod
    def retained(name: str) -> bool:
        return name in RETAINED or name in FLAT

    @property
    def status(self) -> str:
        return self.prefix + "status"

    @property
    def all(self) -> str:
        """A filter for every topic of this table (``…/#``)."""
        return self.prefix + "#"
