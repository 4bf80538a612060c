"""Which commits may skip the fsync (docs/service.md, "Durability"), over whole hands:
only batches of moves the readers can see again; every batch that carries a roll, the 精,
a win, a settlement or the scores is synced before anything of it is published."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from controller.runtime import running
from controller.store import EventStore, OutboxMessage
from controller.table.hand_keeper import WITNESSED
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import GUARD, config_for, data_dir, options

WITNESSED_TYPES = {cls.type for cls in WITNESSED}
# what the readers cannot show again, published as the hand goes on
NEVER_LAZY_TOPICS = ("/settlement", "/scores", "/dice", "/jing")


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("ruleset", "seed"), [("xingguo", 21), ("lianhua", 22)])
def test_only_moves_the_readers_see_are_published_before_their_fsync(
    mosquitto: Mosquitto, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ruleset: str, seed: int
) -> None:
    appended: list[tuple[bool, list[str], list[str]]] = []
    real_append = EventStore.append

    def spy(
        self: EventStore,
        hand_id: str,
        events: Sequence[Mapping[str, Any]],
        *,
        outbox: Sequence[OutboxMessage] = (),
        durable: bool = True,
        **kw: Any,
    ) -> list[int]:
        appended.append((durable, [e["type"] for e in events], [m.topic for m in outbox]))
        return real_append(self, hand_id, events, outbox=outbox, durable=durable, **kw)

    real_settle = EventStore.append_and_settle

    def settle_spy(
        self: EventStore,
        hand_id: str,
        events: Sequence[Mapping[str, Any]],
        closing: Any,
        **kw: Any,
    ) -> Any:  # the batch that ends a hand: always synced (one transaction with its row)
        appended.append(
            (True, [e["type"] for e in events], [m.topic for m in kw.get("outbox", ())])
        )
        return real_settle(self, hand_id, events, closing, **kw)

    monkeypatch.setattr(EventStore, "append", spy)
    monkeypatch.setattr(EventStore, "append_and_settle", settle_spy)
    config = config_for(data_dir(tmp_path), ruleset, mosquitto.url)

    async def main() -> None:
        async with running(config, options(seed, 2)) as run:
            await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * 2)

    asyncio.run(main())
    lazy = [(types, topics) for durable, types, topics in appended if not durable]
    synced = [types for durable, types, _ in appended if durable]
    assert lazy and synced  # both kinds happened
    for types, topics in lazy:
        assert set(types) <= WITNESSED_TYPES, types
        assert not [t for t in topics if t.endswith(NEVER_LAZY_TOPICS)], topics
    every_type = {t for _, types, _ in appended for t in types}
    for must_sync in ("dice_rolled", "jing_flipped", "settled"):
        assert must_sync in every_type
        assert all(must_sync not in types for types, _ in lazy)
