"""The hub's side of a table's request for its own hands back (``controller.hub.handlog_restore``
has the protocol and the table's side)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiomqtt
import structlog
from sqlalchemy import or_, select

from controller.mqtt.topics import RESTORE_NAME, encode
from controller.store import EventStore
from controller.store.hand_filters import OLDEST_FIRST
from controller.store.members import hand_seat_acts
from controller.store.models import HANDS
from controller.table.handlog import (
    build_handlog,
    parse_restore_request,
    table_of_topic,
)

log = structlog.get_logger(__name__)

RESTORE_MAX = 1000  # hands per request (a week of play is ~2,000: the table asks again)
REQUEST_EVERY = 10.0  # s between two requests of one table the hub answers


def hands_to_restore(store: EventStore, topic: str, after_seq: int) -> list[dict[str, Any]]:
    """The handlogs of the requesting table (from the request's topic) after ``after_seq``
    (for 0 also those stored before tables numbered their hands), oldest first."""
    parlour, table = table_of_topic(topic.rsplit("/", 1)[0] + "/handlog")
    newer = HANDS.c.table_seq > after_seq
    query = (
        select(HANDS.c.id)
        .where(
            HANDS.c.parlour == parlour,
            HANDS.c.table_id == table,
            HANDS.c.status == "finished",
            or_(newer, HANDS.c.table_seq.is_(None)) if after_seq == 0 else newer,
        )
        .order_by(*OLDEST_FIRST)
        .limit(RESTORE_MAX)
    )
    with store.engine.connect() as c:
        ids = list(c.scalars(query))
    return [
        build_handlog(
            store.load_hand(i),
            parlour=parlour,
            table=table,
            seat_acts=hand_seat_acts(store.engine, i),
        )
        for i in ids
    ]


class RestoreAnswers:
    """Answers requests, at most one per table per ``REQUEST_EVERY``; anything else that
    arrives on a request topic is ignored."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._last: dict[str, float] = {}

    async def answer(self, client: aiomqtt.Client, topic: str, raw: bytes) -> None:
        after = parse_restore_request(raw)
        now = time.monotonic()
        if after is None or now - self._last.get(topic, -REQUEST_EVERY) < REQUEST_EVERY:
            return
        self._last[topic] = now
        try:
            logs = await asyncio.to_thread(hands_to_restore, self.store, topic, after)
        except Exception as err:  # a request must never stop the hub
            log.error("hub: could not answer a restore request", topic=topic, error=str(err))
            return
        out = topic.rsplit("/", 1)[0] + "/" + RESTORE_NAME
        for payload in logs:
            await client.publish(out, encode(payload), qos=1)
        await client.publish(out, encode({"done": True, "count": len(logs)}), qos=1)
        log.warning("hub: hands sent back to a table", topic=out, count=len(logs))
