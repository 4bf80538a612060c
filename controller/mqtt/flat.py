"""The flat display topics: one plain-text value per retained topic, for a microcontroller
that shows a value without parsing JSON. The contract (every topic, its payload, the
version) is docs/displays.md; this module derives the values.

Every value is computed from a public JSON payload the service already publishes (``hand``
is ``engine.round.public_view``, ``scores``, ``alerts``), never from the engine's state:
a flat topic can carry nothing the public JSON does not. An empty value ("") is sent as a
zero-length retained message, which clears the topic on the broker ("nothing to show").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

from engine.tiles import parse_kinds, zh_name

CONTRACT_VERSION = 1
PREFIX = "flat/"
WINDS_ZH = ("东", "南", "西", "北")
SEAT_FIELDS = ("score", "total", "wind", "dealer", "turn")
TABLE_FIELDS = ("state", "phase", "hand_no", "dealer", "turn", "wall", "dice", "dice_sum")
DICE_FAIRNESS_FIELDS = ("dice_commitment", "dice_seed")
JING_FIELDS = ("zheng", "zheng_code", "fu", "fu_code", "caishen", "caishen_code")
ALERT_FIELDS = ("alert", "alert_seat", "alert_at")

# Every flat topic name (under the table's prefix), in the order docs/displays.md lists them.
FLAT_NAMES: tuple[str, ...] = (
    PREFIX + "contract",
    *(PREFIX + f for f in TABLE_FIELDS),
    *(PREFIX + f for f in DICE_FAIRNESS_FIELDS),
    *(f"{PREFIX}jing/{f}" for f in JING_FIELDS),
    *(f"{PREFIX}seat/{s}/{f}" for s in range(4) for f in SEAT_FIELDS),
    *(PREFIX + f for f in ALERT_FIELDS),
)

# The hand's phase (engine.round.state.Phase) as the floor's coarse state.
STATE_OF_PHASE: Mapping[str, str] = {
    "shuffle": "dealing",
    "break_dice": "dealing",
    "second_dice": "dealing",
    "deal": "dealing",
    "flip": "dealing",
    "turn": "in_hand",
    "draw": "in_hand",
    "replacement": "in_hand",
    "claim": "in_hand",
    "rob": "in_hand",
    "xia_dice": "settling",
    "settle": "settling",
    "done": "idle",
}
# Phases in which ``turn`` is the seat to act (in a claim window nobody's turn is shown).
ACTING = ("turn", "draw", "replacement")
HEX64 = re.compile(r"[0-9a-f]{64}")


def points(value: Any) -> str:
    """A score as the table writes it: ``12``, ``-3``, ``3.5`` (the engine's ``"7/2"``)."""
    if isinstance(value, bool) or value is None:
        return ""
    n = Fraction(value) if isinstance(value, str | int) else Fraction(str(value))
    return str(n.numerator) if n.denominator == 1 else f"{float(n):g}"


def _tile(code: Any) -> tuple[str, str]:
    """(Chinese name, code) of a public tile code such as ``"5m"``; ("", "") for none."""
    if not isinstance(code, str) or not code:
        return "", ""
    (kind,) = parse_kinds(code)
    return zh_name(kind, long=False), code


def _hex64(value: Any) -> str:
    """A SHA-256 value or a dice seed as 64 lowercase hex digits; "" for anything else."""
    return value if isinstance(value, str) and HEX64.fullmatch(value) else ""


def _seat(value: Any) -> str:
    return str(value) if isinstance(value, int) and 0 <= value < 4 else ""


def from_hand(view: Mapping[str, Any]) -> dict[str, str]:
    """The table, jing and seat topics from a ``hand`` payload (the public projection)."""
    phase = str(view.get("phase", ""))
    dealer, turn = view.get("dealer"), view.get("turn")
    acting = turn if phase in ACTING else None
    dice = view.get("dice") or []
    last = dice[-1] if dice else None
    live = view.get("live")
    out = {
        PREFIX + "state": STATE_OF_PHASE.get(phase, "idle"),
        PREFIX + "phase": phase,
        PREFIX + "hand_no": str(view.get("hand_no", "")),
        PREFIX + "dealer": _seat(dealer),
        PREFIX + "turn": _seat(acting),
        PREFIX + "wall": "" if live is None else str(live),
        PREFIX + "dice": "" if last is None else f"{last['a']}+{last['b']}",
        PREFIX + "dice_sum": "" if last is None else str(last["a"] + last["b"]),
    }
    # The dice fixed before the walls (docs/fairness.md): the whole commitment from the
    # hand's opening, the seed only once the view has it (after the settlement); a new
    # hand's view has no seed yet, so it clears the last one.
    commit = view.get("dice_commitment")
    out[PREFIX + "dice_commitment"] = _hex64(
        commit.get("commitment") if isinstance(commit, Mapping) else None
    )
    out[PREFIX + "dice_seed"] = _hex64(view.get("dice_seed"))
    jing = view.get("jing") or {}
    for field, code in (
        ("zheng", jing.get("zheng")),
        ("fu", jing.get("fu")),
        ("caishen", jing.get("caishen")),
    ):
        text, tile = _tile(code)
        out[f"{PREFIX}jing/{field}"] = text
        out[f"{PREFIX}jing/{field}_code"] = tile
    settlement = view.get("settlement")
    nets = settlement.get("net") if isinstance(settlement, Mapping) else None
    for s in range(4):
        seat = f"{PREFIX}seat/{s}/"
        out[seat + "score"] = points(nets[s]) if nets else "0"
        out[seat + "wind"] = WINDS_ZH[(s - dealer) % 4] if isinstance(dealer, int) else ""
        out[seat + "dealer"] = "1" if s == dealer else "0"
        out[seat + "turn"] = "1" if s == acting else "0"
    return out


def from_scores(scores: Mapping[str, Any]) -> dict[str, str]:
    totals = scores.get("totals") or []
    return {f"{PREFIX}seat/{s}/total": points(t) for s, t in enumerate(totals[:4])}


def from_alert(alert: Mapping[str, Any], at: float) -> dict[str, str]:
    """The latest alert: its kind (a word from docs/service.md's list), seat and time."""
    return {
        PREFIX + "alert": str(alert.get("kind", "")),
        PREFIX + "alert_seat": _seat(alert.get("seat")),
        PREFIX + "alert_at": str(int(at)),
    }


NO_ALERT = {PREFIX + f: "" for f in ALERT_FIELDS}


class FlatTopics:
    """Which flat values a batch of JSON messages changes, against what was last sent.

    ``changes`` is called when the batch is written to the outbox, ``sent`` once it is
    committed: a batch the store refused leaves the record as it was. A fresh instance
    (a restart) sends every value once again.
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._sent: dict[str, str] = {}
        self._pending: dict[str, str] = {}
        self._hand_id: Any = None
        self._pending_hand: Any = None

    def changes(self, messages: Iterable[tuple[str, Any]]) -> list[tuple[str, str]]:
        self._pending, self._pending_hand = {}, self._hand_id  # (if this raises: nothing sent)
        values: dict[str, str] = {PREFIX + "contract": str(CONTRACT_VERSION)}
        hand_id = self._hand_id
        for name, payload in messages:
            if not isinstance(payload, Mapping):
                continue
            if name == "hand":
                if payload.get("hand_id") != hand_id:  # a new hand: its alerts start afresh
                    hand_id = payload.get("hand_id")
                    values |= NO_ALERT
                values |= from_hand(payload)
            elif name == "scores":
                values |= from_scores(payload)
            elif name == "alerts":
                values |= from_alert(payload, self.clock())
        self._pending = {k: v for k, v in values.items() if self._sent.get(k) != v}
        self._pending_hand = hand_id
        return list(self._pending.items())

    def held(self, name: str) -> str:
        """What the broker holds for ``name`` as far as this instance sent it ("": nothing)."""
        return self._sent.get(name, "")

    def sent(self) -> None:
        self._sent |= self._pending
        self._hand_id = self._pending_hand
        self._pending = {}
