"""The parlour's broker goes away for 30 s in the middle of a session; the table plays on.

Nothing is lost: every event of every hand reaches a display that keeps a persistent
session (QoS 1), those of the outage once the broker is back; and a display that
connects afterwards gets the right retained state (scores, last settlement, hand, jing).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from controller.runtime import running
from engine.round.projection import public_view
from engine.settlement.ledger import plain
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import payload, retained_state
from tests.controller.service_helpers import (
    GUARD,
    PREFIX,
    config_for,
    data_dir,
    finished_hands,
    log_of,
    options,
    refold,
    until,
)

OUTAGE = 30.0  # seconds the broker is down (a scenario, not a measured expectation)


async def display(port: int, got: list[tuple[str, Any]], ready: asyncio.Event) -> None:
    """A display with a persistent session: reconnects until cancelled."""
    while True:
        try:
            async with aiomqtt.Client(
                "127.0.0.1", port, identifier="display-7", clean_session=False
            ) as client:
                await client.subscribe(PREFIX + "#", qos=1)
                ready.set()
                async for m in client.messages:
                    name = m.topic.value.removeprefix(PREFIX)
                    if isinstance(m.payload, bytes) and not name.startswith("zz-test/"):
                        got.append((name, payload(m)))
        except aiomqtt.MqttError:
            await asyncio.sleep(0.1)


@pytest.mark.timeout(600)
def test_broker_down_30_s_loses_nothing(
    mosquitto_factory: Callable[..., Mosquitto], tmp_path: Path
) -> None:
    broker = mosquitto_factory(persistence=True)
    config = config_for(data_dir(tmp_path), "xingguo", broker.url)

    async def main() -> None:
        got: list[tuple[str, Any]] = []
        ready = asyncio.Event()
        watcher = asyncio.create_task(display(broker.port, got, ready))
        await asyncio.wait_for(ready.wait(), GUARD)
        async with running(config, options(31, None, think=0.02)) as run:
            play = asyncio.create_task(run.service.run(asyncio.Event()))
            await until(lambda: run.keeper.session.hand_no >= 1, "the first hand", GUARD)
            broker.stop()
            down_at = run.keeper.session.hand_no
            await asyncio.sleep(OUTAGE)
            played_while_down = run.keeper.session.hand_no - down_at
            broker.start()
            # two more hands with the broker back, then stop between hands
            more = run.keeper.session.hand_no + 2
            run.service.options = dataclasses.replace(run.service.options, hands=more)
            await asyncio.wait_for(play, GUARD * 3)
            await asyncio.wait_for(run.publisher.wait_drained(), GUARD)
            hands = finished_hands(run.store)
            last_state = refold(hands[-1])
        assert played_while_down >= 1  # the table did not wait for the broker
        await until(
            lambda: (
                {p["hand_id"] for n, p in got if n == "settlement"} >= {h.hand.id for h in hands}
            ),
            "every settlement at the display",
        )
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher

        # every event of every hand, at least once (QoS 1: duplicates are allowed)
        for stored in hands:
            seqs = {p["seq"] for n, p in got if n == "events" and p["hand_id"] == stored.hand.id}
            assert seqs == set(range(len(stored.events))), f"hand {stored.hand.hand_no}"
            refold(stored)

        totals = [0, 0, 0, 0]
        for stored in hands:
            assert stored.hand.net is not None
            totals = [a + b for a, b in zip(totals, stored.hand.net, strict=True)]
        shown = await retained_state(broker.port)
        last = hands[-1].hand.id
        assert shown["scores"]["totals"] == [plain(t) for t in totals]
        assert shown["settlement"]["hand_id"] == last
        assert shown["hand"] == public_view(last_state) | {"hand_id": last}
        assert shown["jing"]["hand_id"] == last
        assert shown["dice"]["hand_id"] == last
        assert [h.hand.hand_no for h in hands] == list(range(1, len(hands) + 1))
        assert [e.type for e in log_of(hands[-1])[-2:]] == ["settled", "dice_seed_revealed"]

    asyncio.run(main())
