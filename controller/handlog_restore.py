"""A table whose store lost hands gets back those the hub holds, over the broker.

The table (its own account: it may read and write only its own subtree) publishes
``{"after_seq": N}`` on ``<root>/<parlour>/<table>/handlog_request``; the hub (which may
read every table's request and write every table's ``handlog_restore``) answers on
``…/handlog_restore`` with each of that table's hands whose ``table_seq`` is above N (all of
them for 0), oldest first, at most ``RESTORE_MAX``, each as the handlog the table once
sent, then ``{"done": true, "count": n}``. The table stores them as the hub ingests them
(``controller.hub.ingest.store_handlogs``: idempotent, already acknowledged). A table may
ask at most once per ``REQUEST_EVERY`` seconds; any other payload is ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import aiomqtt
import structlog
from sqlalchemy import func, or_, select

from controller.config import MqttSettings
from controller.handlog import (
    HandlogError,
    build_handlog,
    parse_handlog,
    table_of_topic,
    topics_identity,
)
from controller.hub.ingest import store_handlogs
from controller.json_bounds import JsonBoundsError, loads_bounded
from controller.mqtt.client import make_client
from controller.mqtt.topics import Topics, encode
from controller.store import EventStore
from controller.store.event_store import OLDEST_FIRST
from controller.store.models import HANDS

log = structlog.get_logger(__name__)

REQUEST_NAME = "handlog_request"
RESTORE_NAME = "handlog_restore"
RESTORE_MAX = 1000  # hands per request (a week of play is ~2,000: ask again after)
REQUEST_EVERY = 10.0  # s between two requests of one table the hub answers
RESTORE_WAIT = 10.0  # s the table waits for the hub's answer at start (systemd waits 90)


def request_filter(parlour: str, root: str = "mahjong") -> str:
    return f"{root}/{parlour}/+/{REQUEST_NAME}"


def parse_request(raw: bytes) -> int | None:
    """``after_seq`` of a request, or None for anything else."""
    with contextlib.suppress(JsonBoundsError):
        data = loads_bounded(raw, max_bytes=256, max_depth=2)
        after = data.get("after_seq") if isinstance(data, dict) else None
        if isinstance(after, int) and not isinstance(after, bool) and 0 <= after < 1 << 53:
            return after
    return None


# --- the hub's side ----------------------------------------------------------------------


def hands_to_restore(store: EventStore, topic: str, after_seq: int) -> list[dict[str, Any]]:
    """The handlogs of the requesting table (from the request's topic) after ``after_seq``."""
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
    return [build_handlog(store.load_hand(i), parlour=parlour, table=table) for i in ids]


class RestoreAnswers:
    """The hub's answers to requests, at most one per table per ``REQUEST_EVERY``."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._last: dict[str, float] = {}

    async def answer(self, client: aiomqtt.Client, topic: str, raw: bytes) -> None:
        after = parse_request(raw)
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


# --- the table's side --------------------------------------------------------------------


async def restore_from_hub(
    store: EventStore,
    settings: MqttSettings,
    topics: Topics,
    client_id: str,
    *,
    wait: float = RESTORE_WAIT,
) -> int | None:
    """Ask the hub for this table's hands the store lacks and store them; how many were
    new (None: no answer in ``wait`` seconds)."""
    parlour, table = topics_identity(topics)
    after = await asyncio.to_thread(_last_seq, store)
    answer = topics.prefix + RESTORE_NAME
    received = []
    try:
        async with asyncio.timeout(wait), make_client(settings, client_id) as client:
            await client.subscribe(answer, qos=1)
            await client.publish(topics.prefix + REQUEST_NAME, encode({"after_seq": after}), qos=1)
            async for message in client.messages:
                raw = message.payload if isinstance(message.payload, bytes) else b""
                with contextlib.suppress(JsonBoundsError):
                    data = loads_bounded(raw, max_bytes=256, max_depth=2)
                    if isinstance(data, dict) and data.get("done") is True:
                        break
                try:
                    received.append(parse_handlog(raw, topic=topics.prefix + "handlog"))
                except HandlogError as err:
                    log.warning("a restored hand log is not valid", error=str(err))
    except (aiomqtt.MqttError, OSError, TimeoutError) as err:
        log.error("the hub did not send the lost hands back", error=str(err) or "timeout")
        return None
    result = await asyncio.to_thread(store_handlogs, store.engine, received)
    log.warning(
        "hands restored from the hub",
        parlour=parlour,
        table=table,
        received=len(received),
        new=len(result.stored),
    )
    return len(result.stored)


def _last_seq(store: EventStore) -> int:
    with store.engine.connect() as c:
        return int(c.scalar(select(func.coalesce(func.max(HANDS.c.table_seq), 0))) or 0)
