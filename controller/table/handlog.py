"""The finished-hand log a table sends to the parlour hub, and the hub's acknowledgement.

A table publishes ``build_handlog(stored_hand, parlour=…, table=…)`` on
``mahjong/<parlour>/<table>/handlog`` (QoS 1, not retained, through the outbox) once the
hand is settled. The hub stores it (idempotently, by ``hand_id``) and, after the commit,
publishes ``{"hand_id": …}`` on ``mahjong/<parlour>/<table>/handlog_ack`` (QoS 1); the table
then calls ``store.mark_handlog_acked``. Unacknowledged hands are sent again
(``controller.hub.handlog_sync``), so every hand reaches the hub at least once, and is stored once.

Payload, version 1 (JSON; times ISO 8601 with offset; seats absolute 0-3)::

    {"format": "mjtable.handlog", "version": 1,
     "parlour": "p1", "table": "t7", "hand_id": "…", "session_id": "…" | null,
     "hand_no": 3, "ruleset": "xingguo", "dealer": 0 | null,
     "result": "win", "winner": 2 | null, "discarder": 1 | null,
     "started_at": "2026-11-30T10:00:00+00:00", "finished_at": "…",
     "table_seq": 42 | null, "clock_synced": true | false | null, "played_s": 312.5 | null,
     "players": [null | {"member_id": "<uuid4 hex>", "name": "王五"}, …] | null,  # by seat
     "seat_acts": [{"seat": 2, "member_id": … | null, "name": … | null,
                    "by": "card" | "staff:li", "at": "…"}, …],  # what led to that seating
     "events": [{"type": "hand_started", …}, …],   # every event's to_dict(), in order
     "settlement": {"net": [a, b, c, d], …},        # Settlement.as_dict(), as stored
     "house": {"name": "本店兴国", "version": 2}}   # the house ruleset played (absent: none)

A hand's values are its ``hand_started`` event's (``ruleset``, ``options``); ``house`` names
the owners' house ruleset they came from (docs/house-rules.md).

A reader accepts any version-1 payload with extra keys (later additions) and refuses a
newer major version, naming it.

The times are the table's wall clock, a fact that may be wrong (a Pi before NTP says 1970;
a clock moved back makes ``finished_at`` earlier than ``started_at``): a hand is never
refused for its times. ``table_seq`` is the table's own running number of the hand (its
order), ``played_s`` its duration by the monotonic clock, ``clock_synced`` whether the
wall clock was set (``controller.process.wall_clock``); the hub marks implausible times
``clock_synced: false``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from numbers import Real
from typing import Any

from controller.config import ID_PATTERN
from controller.json_bounds import JsonBoundsError, check_values, loads_bounded, loads_object
from controller.mqtt.topics import ACK_NAME, HANDLOG_NAME, REQUEST_NAME, Topics
from controller.store import HandRecord, StoredHand, StoreInputError
from controller.store.house_rules import check_house_name
from controller.store.members import BY_MAX, MEMBER_ID_PATTERN, MemberInputError, check_name
from engine.errors import EngineError
from engine.round.events import STAFF_ACT_TYPES, event_from_dict
from engine.round.fold import fold
from engine.round.staff import hand_net

FORMAT = "mjtable.handlog"
VERSION = 1
MAX_ID_LENGTH = 64
MAX_EVENTS = 10_000  # a real hand has a few hundred; more is not a hand log
# Bounds on what a table account can make the hub parse and store (a real handlog is ~100 KB,
# nests 6 deep; Mosquitto's message_size_limit in deploy/ is 1 MiB).
MAX_BYTES = 1 << 20
MAX_DEPTH = 16
MAX_TEXT = 4096  # characters in any string of an event or the settlement
MAX_NUMBER = 1e12  # any number in an event or the settlement (the store's money is 14.4)
MAX_NET = 1e9
MAX_HAND_NO = 1_000_000
MAX_TABLE_SEQ = 1 << 53  # any count of hands a table could play, exact in JSON
MAX_SEAT_ACTS = 200  # seat acts between two hands that a handlog carries
MAX_SECONDS = 1e7  # a hand's duration: under four months
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)
# Hand and session ids: what tables make (uuid hex), or any id a topic level may be.
HAND_ID_PATTERN = ID_PATTERN
RESULT_PATTERN = r"^[a-z][a-z_]{0,31}$"


class HandlogError(ValueError):
    """A payload that is not a valid handlog (or ack); the message names the field.
    ``hand_id``: the refused handlog's id, when it had a valid one (the hub acks the refusal)."""

    hand_id: str | None = None


@dataclass(frozen=True, slots=True)
class Handlog:
    parlour: str
    table: str
    hand_id: str
    session_id: str | None
    hand_no: int
    ruleset: str
    dealer: int | None
    result: str
    winner: int | None
    discarder: int | None
    started_at: datetime
    finished_at: datetime
    events: tuple[dict[str, Any], ...]
    settlement: dict[str, Any]
    table_seq: int | None = None
    clock_synced: bool | None = None
    played_s: float | None = None
    players: list[dict[str, str] | None] | None = None
    seat_acts: tuple[dict[str, Any], ...] = ()
    house: dict[str, Any] | None = None  # the house ruleset played ({"name", "version"})

    @property
    def settled_net(self) -> tuple[float, float, float, float]:
        """The settlement's own nets."""
        n = self.settlement["net"]
        return (float(n[0]), float(n[1]), float(n[2]), float(n[3]))

    @property
    def net(self) -> tuple[float, float, float, float]:
        """What the hand moved: its settlement's nets, and what acts of staff moved beside
        them (penalties, adjustments, earlier hands voided), as the table counted it."""
        settled = self.settled_net
        if not any(e.get("type") in STAFF_ACT_TYPES for e in self.events):
            return settled
        try:
            moved = hand_net(fold([event_from_dict(dict(e)) for e in self.events]))
        except EngineError:  # a log the engine cannot fold: the settlement's word stands
            return settled
        return (float(moved[0]), float(moved[1]), float(moved[2]), float(moved[3]))


# --- topics -------------------------------------------------------------------------------


def handlog_topic(topics: Topics) -> str:
    return topics.topic(HANDLOG_NAME)


def ack_topic(topics: Topics) -> str:
    """Where the hub acknowledges this table's hands (not one of ``Topics``' public names:
    displays never see it)."""
    return topics.prefix + ACK_NAME


def hub_filter(parlour: str, root: str = "mahjong") -> str:
    """What the hub subscribes to: every table's handlog."""
    return f"{root}/{parlour}/+/handlog"


def table_of_topic(topic: str) -> tuple[str, str]:
    """(parlour, table) of ``<root>/<parlour>/<table>/handlog`` (or ``…/handlog_ack``)."""
    parts = topic.split("/")
    if len(parts) < 4 or parts[-1] not in (HANDLOG_NAME, ACK_NAME):
        raise HandlogError(f"not a handlog topic: {topic!r}")
    return parts[-3], parts[-2]


def request_filter(parlour: str, root: str = "mahjong") -> str:
    """What the hub subscribes to: every table's requests for its hands back."""
    return f"{root}/{parlour}/+/{REQUEST_NAME}"


def parse_restore_request(raw: bytes) -> int | None:
    """``after_seq`` of a ``handlog_request``, or None for anything else."""
    try:
        data = loads_bounded(raw, max_bytes=256, max_depth=2)
    except JsonBoundsError:
        return None
    after = data.get("after_seq") if isinstance(data, dict) else None
    if isinstance(after, int) and not isinstance(after, bool) and 0 <= after <= MAX_TABLE_SEQ:
        return after
    return None


def ack_topic_for(handlog_topic_name: str) -> str:
    """The ack topic beside a handlog topic."""
    table_of_topic(handlog_topic_name)
    return handlog_topic_name.rsplit("/", 1)[0] + "/" + ACK_NAME


def topics_identity(topics: Topics) -> tuple[str, str]:
    """(parlour, table) a ``Topics`` was made for."""
    parts = topics.prefix.rstrip("/").split("/")
    return parts[-2], parts[-1]


# --- building ----------------------------------------------------------------------------


def build_handlog(
    stored: StoredHand,
    *,
    parlour: str,
    table: str,
    seat_acts: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The handlog payload of a finished, settled hand (``EventStore.load_hand``)."""
    return handlog_of(
        stored.hand,
        stored.event_dicts(),
        stored.settlement,
        parlour=parlour,
        table=table,
        seat_acts=seat_acts,
    )


def handlog_of(
    hand: HandRecord,
    events: Sequence[Mapping[str, Any]],
    settlement: Mapping[str, Any] | None,
    *,
    parlour: str,
    table: str,
    seat_acts: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The same from the parts a table service holds when it closes a hand (no reload);
    ``seat_acts``: the acts that led to its seating (``Members.acts(hand_id=…)``)."""
    if hand.status != "finished" or settlement is None or hand.ended_at is None:
        raise ValueError(f"hand {hand.id} is {hand.status}, not finished and settled")
    return {
        "format": FORMAT,
        "version": VERSION,
        "parlour": parlour,
        "table": table,
        "hand_id": hand.id,
        "session_id": hand.session_id,
        "hand_no": hand.hand_no,
        "ruleset": hand.ruleset,
        "dealer": hand.dealer,
        "result": hand.result,
        "winner": hand.winner,
        "discarder": hand.discarder,
        "started_at": hand.started_at.isoformat(),
        "finished_at": hand.ended_at.isoformat(),
        "table_seq": hand.table_seq,
        "clock_synced": hand.clock_synced,
        "played_s": hand.played_s,
        "players": hand.players,
        "seat_acts": [dict(a) for a in seat_acts][:MAX_SEAT_ACTS],
        "events": list(events),
        "settlement": settlement,
    } | ({} if hand.house is None else {"house": hand.house})


def build_ack(hand_id: str) -> dict[str, Any]:
    return {"hand_id": hand_id}


# --- parsing -----------------------------------------------------------------------------


def _load(payload: bytes | str | Mapping[str, Any], what: str) -> Mapping[str, Any]:
    if isinstance(payload, Mapping):
        return payload
    try:
        return loads_object(payload, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH)
    except JsonBoundsError as err:
        raise HandlogError(f"{what}: {err}") from None


def _text(data: Mapping[str, Any], key: str, limit: int = MAX_ID_LENGTH) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not 1 <= len(value) <= limit:
        raise HandlogError(
            f"handlog.{key}: expected a string of 1-{limit} characters, got {value!r:.80}"
        )
    return value


def _level(data: Mapping[str, Any], key: str, pattern: str = ID_PATTERN) -> str:
    value = _text(data, key)
    if not re.fullmatch(pattern, value):
        raise HandlogError(f"handlog.{key}: not a topic level id: {value!r}")
    return value


def _int(
    data: Mapping[str, Any],
    key: str,
    *,
    seat: bool = False,
    optional: bool = False,
    limit: int = MAX_HAND_NO,
) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise HandlogError(f"handlog.{key}: expected an integer, got {value!r:.40}")
    if seat and value not in range(4):
        raise HandlogError(f"handlog.{key}: a seat 0-3, got {value!r:.40}")
    if not 0 <= value <= limit:
        raise HandlogError(f"handlog.{key}: expected 0-{limit}, got {value!r:.40}")
    return value


def _flag(data: Mapping[str, Any], key: str) -> bool | None:
    value = data.get(key)
    if value is not None and not isinstance(value, bool):
        raise HandlogError(f"handlog.{key}: expected true, false or null, got {value!r:.40}")
    return value


def _seconds(data: Mapping[str, Any], key: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if (
        not isinstance(value, int | float)
        or isinstance(value, bool)
        or not 0 <= value <= MAX_SECONDS
    ):
        raise HandlogError(f"handlog.{key}: expected 0-{MAX_SECONDS} seconds, got {value!r:.40}")
    return float(value)


def _time(data: Mapping[str, Any], key: str) -> datetime:
    value = data.get(key)
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise HandlogError(
            f"handlog.{key}: expected an ISO 8601 time with offset, got {value!r:.80}"
        )
    try:  # 9999-12-31T23:59:59-23:59 is past the last datetime in UTC
        return when.astimezone(UTC)
    except OverflowError:
        raise HandlogError(f"handlog.{key}: {value} is out of range") from None


def plausible(when: datetime) -> bool:
    """A time a set clock could have given (the table's wall clock may not have been)."""
    return EARLIEST <= when < LATEST


def _events(data: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
    events = data.get("events")
    if not isinstance(events, list) or not events:
        raise HandlogError("handlog.events: expected a non-empty list of event objects")
    if len(events) > MAX_EVENTS:
        raise HandlogError(f"handlog.events: {len(events)} events, more than {MAX_EVENTS}")
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            raise HandlogError(f"handlog.events[{i}]: expected an object, got {event!r}")
        kind = event.get("type")
        if not isinstance(kind, str) or not re.fullmatch(ID_PATTERN, kind):
            raise HandlogError(f"handlog.events[{i}]: needs a 'type' name")
    _values(events, "handlog.events")
    return tuple(events)


def _values(value: Any, where: str) -> None:
    try:
        check_values(value, where, max_text=MAX_TEXT, max_abs=MAX_NUMBER)
    except JsonBoundsError as err:
        raise HandlogError(str(err)) from None


def _settlement(data: Mapping[str, Any]) -> dict[str, Any]:
    settlement = data.get("settlement")
    if not isinstance(settlement, dict):
        raise HandlogError(f"handlog.settlement: expected an object, got {settlement!r}")
    net = settlement.get("net")
    if (
        not isinstance(net, list)
        or len(net) != 4
        or not all(isinstance(n, Real) and not isinstance(n, bool) for n in net)
        or not all(abs(n) <= MAX_NET for n in net)  # NaN fails this too
    ):
        raise HandlogError(f"handlog.settlement.net: expected 4 numbers, got {net!r:.200}")
    _values(settlement, "handlog.settlement")
    return settlement


def _player(value: Any, where: str) -> dict[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"member_id", "name"}:
        raise HandlogError(f"{where}: expected null or {{member_id, name}}")
    member_id, name = value["member_id"], value["name"]
    if not isinstance(member_id, str) or not re.fullmatch(MEMBER_ID_PATTERN, member_id):
        raise HandlogError(f"{where}.member_id: expected 32 lowercase hex digits")
    try:
        name = check_name(name)
    except MemberInputError as err:
        raise HandlogError(f"{where}.{err}") from None
    return {"member_id": member_id, "name": name}


def _players(value: Any, where: str) -> list[dict[str, str] | None] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 4:
        raise HandlogError(f"{where}: expected 4 entries (one a seat) or null")
    return [_player(p, f"{where}[{i}]") for i, p in enumerate(value)]


def _seat_acts(data: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
    acts = data.get("seat_acts", [])
    if not isinstance(acts, list) or len(acts) > MAX_SEAT_ACTS:
        raise HandlogError(f"handlog.seat_acts: expected a list of at most {MAX_SEAT_ACTS}")
    out = []
    for i, act in enumerate(acts):
        where = f"handlog.seat_acts[{i}]"
        if not isinstance(act, dict):
            raise HandlogError(f"{where}: expected an object")
        seat = act.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in range(4):
            raise HandlogError(f"{where}.seat: a seat 0-3")
        who = act.get("member_id")
        player = (
            None if who is None else _player({"member_id": who, "name": act.get("name")}, where)
        )
        by = act.get("by")
        if not isinstance(by, str) or not 1 <= len(by) <= BY_MAX:
            raise HandlogError(f"{where}.by: 1-{BY_MAX} characters")
        at = _time(act, "at")
        entry: dict[str, Any] = {"seat": seat, "member_id": None, "name": None}
        out.append(entry | (player or {}) | {"by": by, "at": at})
    return tuple(out)


def _house(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"name", "version"}:
        raise HandlogError('handlog.house: expected {"name", "version"} or null')
    try:
        name = check_house_name(value["name"])
    except StoreInputError:
        name = f"{value['name']!r:.80}"
        raise HandlogError(f"handlog.house.name: not a house ruleset's name: {name}") from None
    version = value["version"]
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version < 1 << 31:
        raise HandlogError(f"handlog.house.version: a version number, got {version!r:.40}")
    return {"name": name, "version": version}


def parse_handlog(payload: bytes | str | Mapping[str, Any], *, topic: str | None = None) -> Handlog:
    """Validate a handlog; with ``topic``, its parlour and table must be the topic's (a table
    may only report its own hands)."""
    data = _load(payload, "handlog")
    try:
        return _handlog(data, topic)
    except HandlogError as err:
        hint = data.get("hand_id")
        if isinstance(hint, str) and re.fullmatch(HAND_ID_PATTERN, hint):
            err.hand_id = hint
        raise


def _handlog(data: Mapping[str, Any], topic: str | None) -> Handlog:
    if data.get("format") != FORMAT:
        raise HandlogError(f"handlog.format: expected {FORMAT!r}, got {data.get('format')!r}")
    version = data.get("version")
    if version != VERSION:
        raise HandlogError(f"handlog.version: this hub reads version {VERSION}, got {version!r}")
    session_id = data.get("session_id")
    if session_id is not None:
        session_id = _level(data, "session_id", HAND_ID_PATTERN)
    log = Handlog(
        parlour=_level(data, "parlour"),
        table=_level(data, "table"),
        hand_id=_level(data, "hand_id", HAND_ID_PATTERN),
        session_id=session_id,
        hand_no=_int(data, "hand_no"),
        ruleset=_level(data, "ruleset"),
        dealer=_int(data, "dealer", seat=True, optional=True),
        result=_level(data, "result", RESULT_PATTERN),
        winner=_int(data, "winner", seat=True, optional=True),
        discarder=_int(data, "discarder", seat=True, optional=True),
        started_at=_time(data, "started_at"),
        finished_at=_time(data, "finished_at"),
        events=_events(data),
        settlement=_settlement(data),
        table_seq=_int(data, "table_seq", optional=True, limit=MAX_TABLE_SEQ),
        clock_synced=_flag(data, "clock_synced"),
        played_s=_seconds(data, "played_s"),
        players=_players(data.get("players"), "handlog.players"),
        seat_acts=_seat_acts(data),
        house=_house(data.get("house")),
    )
    if (
        not plausible(log.started_at)
        or not plausible(log.finished_at)
        or log.finished_at < log.started_at
    ):
        # The table's clock was wrong (not set yet, or moved back): keep the hand, say so.
        log = dataclasses.replace(log, clock_synced=False)
    if topic is not None:
        parlour, table = table_of_topic(topic)
        if (log.parlour, log.table) != (parlour, table):
            raise HandlogError(
                f"handlog: says {log.parlour}/{log.table} but came on {topic!r} "
                "(a table reports only its own hands)"
            )
    return log


def parse_ack(payload: bytes | str | Mapping[str, Any]) -> str:
    """The hand id of a ``handlog_ack`` payload."""
    data = _load(payload, "handlog_ack")
    hand_id = data.get("hand_id")
    if not isinstance(hand_id, str) or not 1 <= len(hand_id) <= MAX_ID_LENGTH:
        raise HandlogError(f"handlog_ack.hand_id: expected a string, got {hand_id!r}")
    return hand_id
