"""What the service publishes, and where: MQTT (through the store's outbox) and the live hub.

Payloads are built here from stored events and the folded state, through the engine's
public forms only (``Event.public_dict``, ``engine.round.public_view``): concealed tiles,
the wall order and lianhua's 暗精 never reach a public topic. The settlement, the scores
and the hand log come only once the hand is over.

    events      {"hand_id", "seq", "event": public_dict}        (live hub: flat)
    hand        public_view(state) | {"hand_id"}                  retained
    jing        {"hand_id", "indicator", "zheng_jing", "fu_jing"} | {"…", "caishen"}
    dice        {"hand_id", "seat", "purpose", "a", "b"}           retained
    scores      {"session_id", "hand_no", "totals": [4]}            retained
    settlement  Settlement.as_dict() | {"hand_id"}                  retained
    alerts      PublicAlert.as_dict() | {"hand_id"}: seat, kind, a text from public facts
    handlog     the finished hand's full log (controller.handlog)
    dealer      live hub only: where to break / flip (controller.dealer_guide)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import structlog

from controller.alerts import PublicAlert
from controller.metrics import Metrics
from controller.mqtt.topics import Topics, encode
from controller.store import OutboxMessage
from engine.round.events import DiceRolled, Event, JingFlipped
from engine.round.projection import public_view
from engine.round.state import RoundState
from engine.settlement import Settlement
from engine.settlement.ledger import Amount, plain
from engine.tiles import kind_name, successor

log = structlog.get_logger(__name__)

Message = tuple[str, Any]
LIVE_TOPICS = (
    "status",
    "hand",
    "jing",
    "dice",
    "scores",
    "settlement",
    "dealer",
    "events",
    "alerts",
)


class LiveSink(Protocol):
    """The web app's live hub (``controller.web.live.LiveHub``), or anything like it."""

    def publish(self, topic: str, payload: Any) -> object: ...


# --- payloads ------------------------------------------------------------------------------


def jing_payload(hand_id: str, state: RoundState) -> dict[str, Any]:
    """The 正精/副精 (or 财神) once turned up; just the hand id before."""
    out: dict[str, Any] = {"hand_id": hand_id}
    wall = state.wall
    flip = None if wall is None else wall.flip
    if flip is None or flip.kind is None:
        return out
    k = flip.kind
    if flip.purpose.value == "caishen":
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
        out.append(("events", {"hand_id": hand_id, "seq": first_seq + i, "event": e.public_dict()}))
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
        (
            "scores",
            {"session_id": session_id, "hand_no": hand_no, "totals": [number(t) for t in totals]},
        ),
    ]


def alert_message(alert: PublicAlert, hand_id: str | None) -> Message:
    """An alert's public form only: its private detail has no way here."""
    payload: dict[str, Any] = alert.as_dict()
    if hand_id is not None:
        payload["hand_id"] = hand_id
    return ("alerts", payload)


# --- where they go --------------------------------------------------------------------------


class Waker(Protocol):
    def wake(self) -> None: ...


class Outlet:
    """MQTT through the outbox (durable with the events), then the live hub, in that order."""

    def __init__(
        self,
        topics: Topics,
        *,
        publisher: Waker | None = None,
        live: LiveSink | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.topics = topics
        self.publisher = publisher
        self.live = live
        self.metrics = metrics

    def outbox(self, messages: Sequence[Message]) -> list[OutboxMessage]:
        """The MQTT messages, to store in the same transaction as the events."""
        return [
            OutboxMessage(
                topic=self.topics.topic(name),
                payload=encode(payload),
                qos=1,
                retain=Topics.retained(name),
            )
            for name, payload in messages
            if name != "dealer"
        ]

    def committed(self, messages: Sequence[Message]) -> None:
        """The outbox rows are stored: send them, and show the same on the live hub."""
        if self.publisher is not None:
            self.publisher.wake()
        for name, payload in messages:
            self.to_live(name, payload)

    def to_live(self, name: str, payload: Any) -> None:
        if self.live is None or name not in LIVE_TOPICS:
            return
        if name == "events":
            payload = dict(payload["event"]) | {
                "hand_id": payload["hand_id"],
                "seq": payload["seq"],
            }
        try:
            self.live.publish(name, payload)
        except Exception:  # the web page's feed must never stop the table
            log.exception("live hub refused a message", topic=name)
