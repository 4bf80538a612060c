"""A table whose store lost hands gets back those the hub holds, over the broker.

The table (its own account: it may read and write only its own subtree) publishes
``{"after_seq": N}`` on ``<root>/<parlour>/<table>/handlog_request``; the hub (which may
read every table's request and write every table's ``handlog_restore``) answers on
``…/handlog_restore`` with each of that table's hands whose ``table_seq`` is above N,
oldest first, at most 1000, each as the handlog the table once sent, then
``{"done": true, "count": n}`` (``controller.hub.restore``). The table stores them as the
hub ingests them (``controller.hub.ingest.store_handlogs``: idempotent, acknowledged).
"""

from __future__ import annotations

import asyncio
import contextlib

import aiomqtt
import structlog
from sqlalchemy import func, select

from controller.config import MqttSettings
from controller.json_bounds import JsonBoundsError, loads_bounded
from controller.mqtt.client import make_client
from controller.mqtt.topics import REQUEST_NAME, RESTORE_NAME, Topics, encode
from controller.store import EventStore
from controller.store.models import HANDS
from controller.table.handlog import (
    HandlogError,
    parse_handlog,
    topics_identity,
)

log = structlog.get_logger(__name__)

RESTORE_WAIT = 10.0  # s the table waits for the hub's answer at start (systemd waits 90)


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
    from controller.hub.ingest import store_handlogs  # only on this rare path: not on a Pi

    parlour, table = topics_identity(topics)
    after = await asyncio.to_thread(_last_seq, store)
    received = []
    try:
        async with asyncio.timeout(wait), make_client(settings, client_id) as client:
            await client.subscribe(topics.prefix + RESTORE_NAME, qos=1)
            request = encode({"after_seq": after})
            await client.publish(topics.prefix + REQUEST_NAME, request, qos=1)
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
        log.error("the hub did not send the lost hands back", error=str(err) or "no answer")
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
