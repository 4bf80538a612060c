"""Hand logs out of the web app: CSV (one row per hand) and JSON (hands with settlements)."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from controller.store import HandRecord
from controller.web.schemas import HandOut

CSV_COLUMNS = (
    "hand_id",
    "table_id",
    "session_id",
    "hand_no",
    "ruleset",
    "status",
    "result",
    "dealer",
    "winner",
    "discarder",
    "started_at",
    "ended_at",
    "net_0",
    "net_1",
    "net_2",
    "net_3",
    "reasons",
    "house",  # the owners' house ruleset it was played under (empty: none) …
    "house_version",  # … and its version
)


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    # A spreadsheet runs a cell starting with = + - @ as a formula: quote text that does.
    if text[:1] in ("=", "+", "@") or (text[:1] == "-" and not _is_number(text)):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def hands_csv(
    table_id: str, hands: Sequence[HandRecord], settlements: Mapping[str, dict[str, Any]]
) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for h in hands:
        view = HandOut.of(h)
        net: list[Any] = list(view.net) if view.net is not None else [None] * 4
        lines = settlements.get(h.id, {}).get("lines", [])
        reasons = "; ".join(
            f"{line.get('reason')} {line.get('from')}→{line.get('to')} {line.get('amount')}"
            for line in lines
        )
        row = [
            h.id,
            table_id,
            h.session_id,
            h.hand_no,
            h.ruleset,
            h.status,
            h.result,
            h.dealer,
            h.winner,
            h.discarder,
            h.started_at.isoformat(),
            h.ended_at.isoformat() if h.ended_at else None,
            *net,
            reasons,
            None if view.house is None else view.house.name,
            None if view.house is None else view.house.version,
        ]
        writer.writerow([_cell(v) for v in row])
    return out.getvalue()


def hands_json(
    table_id: str, hands: Sequence[HandRecord], settlements: Mapping[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    return [
        HandOut.of(h).model_dump(mode="json")
        | {"table_id": table_id, "settlement": settlements.get(h.id)}
        for h in hands
    ]
