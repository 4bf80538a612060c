"""Per-seat and per-table totals over time, from finished hands' nets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.store import HandRecord
from controller.web.schemas import number


def totals(table_id: str, hands: Sequence[HandRecord]) -> dict[str, Any]:
    """``hands`` oldest first; unsettled ones are skipped. Days are the server's local dates."""
    cumulative = [0.0, 0.0, 0.0, 0.0]
    series: list[dict[str, Any]] = []
    days: dict[str, dict[str, Any]] = {}
    for h in hands:
        if h.net is None:
            continue
        cumulative = [c + n for c, n in zip(cumulative, h.net, strict=True)]
        series.append(
            {
                "hand_id": h.id,
                "hand_no": h.hand_no,
                "session_id": h.session_id,
                "at": h.ended_at or h.started_at,
                "net": [number(n) for n in h.net],
                "cumulative": [number(c) for c in cumulative],
            }
        )
        day = (h.ended_at or h.started_at).astimezone().date().isoformat()
        d = days.setdefault(day, {"date": day, "hands": 0, "moved": 0.0, "net": [0.0] * 4})
        d["hands"] += 1
        d["moved"] += sum(n for n in h.net if n > 0)
        d["net"] = [a + n for a, n in zip(d["net"], h.net, strict=True)]
    return {
        "table_id": table_id,
        "hands": len(series),
        "seats": [number(c) for c in cumulative],
        "series": series,
        "days": [
            d | {"moved": number(d["moved"]), "net": [number(n) for n in d["net"]]}
            for d in days.values()
        ],
    }
