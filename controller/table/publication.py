"""What the service publishes, and where: MQTT (through the store's outbox) and the live hub.

Payloads are built here from stored events and the folded state, through the engine's
public forms only (``Event.public_dict``, ``engine.round.public_view``): concealed tiles,
the wall order and lianhua's 暗精 never reach a public topic. The settlement, the scores
and the hand log come only once the hand is over. Every topic and payload is described
once, in docs/displays.md (the display contract); the flat topics for microcontrollers
are derived from these payloads by ``controller.mqtt.flat``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import structlog

from controller.mqtt.flat import FlatTopics
from controller.mqtt.topics import Topics, encode
from controller.process.metrics import Metrics
from controller.store import OutboxMessage
from controller.table.alerts import PublicAlert
from engine.round.events import DiceRolled, Event, JingFlipped
from engine.round.narration import texts
from engine.round.projection import public_view, shown_flip
from engine.round.state import RoundState
from engine.settlement import Settlement
from engine.settlement.ledger import Amount, plain
from engine.tiles import kind_name, successor

log = structlog.get_logger(__name__)

Message = tuple[str, Any]
# What the web's live hub carries (seats first: a page knows the names before it draws the
# hand), the retained topics and then the two streams.
LIVE_TOPICS = (
    "seats",
    "status",
    "hand",
    "jing",
    "dice",
    "scores",
    "settlement",
    "cashout",
    "dealer",
    "events",
    "alerts",
)


class LiveSink(Protocol):
    """The web app's live hub (``controller.web.live.LiveHub``), or anything like it."""

    def publish(self, topic: str, payload: Any) -> object: ...


class Listener(Protocol):
    """Hears what was published, in public form (the voice: ``controller.voice``); must
    return at once."""

    def hear(self, messages: Sequence[Message]) -> None: ...


# --- payloads ------------------------------------------------------------------------------


def jing_payload(hand_id: str, state: RoundState) -> dict[str, Any]:
    """The 正精/副精 (or 财神) once turned up; just the hand id before."""
    out: dict[str, Any] = {"hand_id": hand_id}
    wall = state.wall
    k = shown_flip(state)
    if k is None:
        return out
    if state.ruleset.flip_kind.value == "caishen":
        out |= {"indicator": kind_name(k), "caishen": kind_name(successor(k))}
    else:
        out |= {
            "indicator": kind_name(k),
            "zheng_jing": kind_name(k),
            "fu_jing": kind_name(successor(k)),
        }
    xia = None if wall is None else wall.xia_jing
    if xia is not None and xia.kind is not None:
        out |= {
            "xia_zheng_jing": kind_name(xia.kind),
            "xia_fu_jing": kind_name(successor(xia.kind)),
        }
    return out


def event_messages(
    hand_id: str, first_seq: int, events: Sequence[Event], after: RoundState
) -> list[Message]:
    """The messages for one stored batch of events (``after``: the state they lead to)."""
    out: list[Message] = []
    for i, e in enumerate(events):
        out.append(
            (
                "events",
                {
                    "hand_id": hand_id,
                    "seq": first_seq + i,
                    "event": e.public_dict(),
                    "text": texts(e, public=True),
                },
            )
        )
    for e in events:
        if isinstance(e, DiceRolled):
            dice = {"hand_id": hand_id, "seat": e.seat, "purpose": e.purpose, "a": e.a, "b": e.b}
            out.append(("dice", dice))
    if first_seq == 0 or any(isinstance(e, JingFlipped) for e in events):
        out.append(("jing", jing_payload(hand_id, after)))
    out.append(("hand", public_view(after) | {"hand_id": hand_id}))
    return out


def number(a: Amount) -> int | float:
    return plain(a)


def settlement_messages(
    hand_id: str,
    settlement: Settlement,
    *,
    session_id: str | None,
    hand_no: int,
    totals: Sequence[Amount],
) -> list[Message]:
    return [
        ("settlement", settlement.as_dict() | {"hand_id": hand_id}),
        ("scores", scores_payload(session_id, hand_no, totals)),
    ]


def scores_payload(
    session_id: str | None, hand_no: int, totals: Sequence[Amount]
) -> dict[str, Any]:
    """The session's running totals (``hand_no``: the hand they stand after, or in)."""
    return {"session_id": session_id, "hand_no": hand_no, "totals": [number(t) for t in totals]}


def alert_message(alert: PublicAlert, hand_id: str | None) -> Message:
    """An alert's public form only: its private detail has no way here."""
    payload: dict[str, Any] = alert.as_dict()
    if hand_id is not None:
        payload["hand_id"] = hand_id
    return ("alerts", payload)


# --- where they go --------------------------------------------------------------------------


class Waker(Protocol):
    def wake(self) -> None: ...

    def send_unstored(self, messages: Sequence[OutboxMessage]) -> None: ...


@runtime_checkable
class StatusSetter(Protocol):
    def set_status(self, extra: Mapping[str, Any] | None) -> None: ...


class Outlet:
    """MQTT through the outbox (durable with the events), then the live hub, then the
    voice, in that order.

    With the JSON messages go the flat topics whose values they change (only those: a
    display is not woken for a value it already shows)."""

    def __init__(
        self,
        topics: Topics,
        *,
        publisher: Waker | None = None,
        live: LiveSink | None = None,
        metrics: Metrics | None = None,
        voice: Listener | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.topics = topics
        self.publisher = publisher
        self.live = live
        self.voice = voice
        self.metrics = metrics
        self.flat = FlatTopics(clock)

    def outbox(self, messages: Sequence[Message]) -> list[OutboxMessage]:
        """The MQTT messages, to store in the same transaction as the events."""
        rows = [
            OutboxMessage(
                topic=self.topics.topic(name),
                payload=encode(payload),
                qos=1,
                retain=Topics.retained(name),
            )
            for name, payload in messages
            if name != "dealer"
        ]
        try:
            flat = self.flat.changes(messages)
        except Exception:  # the displays' convenience must never keep the events from the store
            log.exception("flat display topics could not be derived")
            flat = []
        rows += [
            OutboxMessage(topic=self.topics.topic(name), payload=text, qos=1, retain=True)
            for name, text in flat
        ]
        return rows

    def committed(self, messages: Sequence[Message], *, heard: bool = True) -> None:
        """The outbox rows are stored: send them, and show the same on the live hub (and
        say them, ``heard``). Called by ``controller.table.unit_of_work`` only."""
        self.flat.sent()
        if self.publisher is not None:
            self.publisher.wake()
        for name, payload in messages:
            self.to_live(name, payload)
        if heard:
            self.to_voice(messages)

    def status(self, extra: Mapping[str, Any] | None) -> None:
        """The ``status`` topic: online plus ``extra`` (None: online only), on MQTT (the
        publisher owns it: it is the connection's) and on the live hub."""
        if isinstance(self.publisher, StatusSetter):
            self.publisher.set_status(extra)
        if self.live is not None:
            self.live.publish("status", {"state": "online"} | dict(extra or {}))

    def unstored(self, messages: Sequence[Message]) -> None:
        """The store refused these (a full disk): send them from memory, and live."""
        if self.publisher is not None:
            self.publisher.send_unstored(self.outbox(messages))
        for name, payload in messages:
            self.to_live(name, payload)
        self.to_voice(messages)

    def to_voice(self, messages: Sequence[Message]) -> None:
        if self.voice is None or not messages:
            return
        try:
            self.voice.hear(messages)
        except Exception:  # the loudspeaker must never stop the table
            log.exception("the voice refused a message")

    def to_live(self, name: str, payload: Any) -> None:
        if self.live is None or name not in LIVE_TOPICS:
            return
        if name == "events":
            payload = dict(payload["event"]) | {
                "hand_id": payload["hand_id"],
                "seq": payload["seq"],
                "text": payload["text"],
            }
        try:
            self.live.publish(name, payload)
        except Exception:  # the web page's feed must never stop the table
            log.exception("live hub refused a message", topic=name)
