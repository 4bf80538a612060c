"""The ids the hub stores a table's session or hand under when another table holds the one
it sent (ids are not secret: the displays show them): derived, so a re-send finds it, and
reversible against what the hand itself says (its dice commitment names its session).
The owners' pages read it on a table too: it holds nothing of the hub's service."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from engine.round.events import DiceCommitted


def alias(parlour: str, table: str, an_id: str) -> str:
    """The id the hub stores ``table``'s session or hand under when another table holds
    ``an_id`` already."""
    return hashlib.sha256(f"{parlour}/{table}/{an_id}".encode()).hexdigest()[:32]


def sent_session(
    parlour: str, table: str, stored: str | None, events: Sequence[Mapping[str, Any]]
) -> str | None:
    """The session id the table sent the hand with: the stored one, unless the hub stored
    it under the table's alias, which the committed session, hashed, gives back."""
    commits = (e for e in events if e.get("type") == DiceCommitted.type)
    committed = next((e.get("session") for e in commits), None)
    if isinstance(committed, str) and stored == alias(parlour, table, committed):
        return committed
    return stored
