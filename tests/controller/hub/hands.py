"""Real hands for the hub tests and the bench: played by the engine's bots, stored the way the
table service stores them, published the way it publishes them."""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from controller.mqtt import Publisher
from controller.store import EventStore
from controller.store.members import hand_seat_acts
from controller.table.handlog import Handlog, build_handlog, parse_handlog
from engine.simulation import play_session

EventDicts = list[dict[str, Any]]


@lru_cache(maxsize=8)
def _played(n: int, ruleset: str, seed: int) -> tuple[tuple[dict[str, Any], ...], ...]:
    return tuple(
        tuple(e.to_dict() for e in r.log) for r in play_session(ruleset, n, random.Random(seed))
    )


def played_hands(n: int, ruleset: str = "xingguo", seed: int = 0) -> list[EventDicts]:
    """``n`` hands in a row (one session), each its list of event dicts."""
    return [[dict(e) for e in hand] for hand in _played(n, ruleset, seed)]


def outcome(events: EventDicts) -> tuple[str, int | None, int | None]:
    """(result, winner, discarder) as the service records them."""
    wins = [e for e in events if e["type"] == "win_declared"]
    if not wins:
        return "draw", None, None
    win = wins[0]
    return ("self_draw" if win["source"] == "self" else "win"), win["seat"], win.get("discarder")


def record_hand(
    store: EventStore,
    events: EventDicts,
    *,
    session_id: str | None = None,
    hand_no: int = 1,
    house: dict[str, Any] | None = None,
) -> str:
    """Store a whole hand and its settlement (the Settled event's) as the service does;
    ``house``: the house ruleset it was played under."""
    started = events[0]
    hand_id = store.start_hand(
        ruleset=started["ruleset"],
        hand_no=hand_no,
        session_id=session_id,
        dealer=started["dealer"],
        events=events,
        house=house,
    )
    result, winner, discarder = outcome(events)
    settled = next(e for e in reversed(events) if e["type"] == "settled")
    store.record_settlement(
        hand_id, settled["settlement"], result=result, winner=winner, discarder=discarder
    )
    return hand_id


def finish_and_publish(
    store: EventStore,
    publisher: Publisher,
    events: EventDicts,
    *,
    parlour: str,
    table: str,
    session_id: str | None = None,
    hand_no: int = 1,
) -> str:
    """What the service does when a hand settles: store it, then its handlog via the outbox."""
    hand_id = record_hand(store, events, session_id=session_id, hand_no=hand_no)
    acts = hand_seat_acts(store.engine, hand_id)
    payload = build_handlog(store.load_hand(hand_id), parlour=parlour, table=table, seat_acts=acts)
    publisher.publish("handlog", payload)
    return hand_id


def table_handlogs(
    hands: list[EventDicts], *, table: str = "t1", session_id: str = "s-dice"
) -> list[Handlog]:
    """``hands`` as ``table`` sends them to the hub: stored in a session of its own
    (``session_id``), numbered from 1, each as its handlog."""
    source = EventStore.open("sqlite://")
    try:
        source.start_session(ruleset="xingguo", parlour="p1", table_id=table, session_id=session_id)
        out = []
        for i, events in enumerate(hands):
            hid = record_hand(source, events, session_id=session_id, hand_no=i + 1)
            out.append(
                parse_handlog(build_handlog(source.load_hand(hid), parlour="p1", table=table))
            )
        return out
    finally:
        source.close()
