"""A table's storage and MQTT tasks as the table service runs them, and the hub beside
them: shared by the hub's MQTT tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from sqlalchemy import func, select

from controller.hub.handlog_sync import HandlogSync
from controller.hub.service import HubIngest
from controller.mqtt import Publisher, Topics
from controller.store import EventStore
from controller.store.models import EVENTS, HANDS
from tests.controller.hub.hands import finish_and_publish, played_hands, record_hand
from tests.controller.mqtt_helpers import guarded, settings

PARLOUR = "p1"


@dataclass
class Table:
    """A table's storage and its two MQTT tasks, as the table service runs them."""

    name: str
    store: EventStore
    url: str
    resend_after: float = 60.0
    session_id: str = ""
    hands: list[str] = field(default_factory=list)
    publisher: Publisher | None = None
    sync: HandlogSync | None = None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def topics(self) -> Topics:
        return Topics(PARLOUR, self.name)

    def start(self) -> None:
        mqtt = settings(self.url)
        self.publisher = Publisher(
            self.store, mqtt, self.topics, client_id=f"mjtable-{PARLOUR}-{self.name}"
        )
        self.sync = HandlogSync(self.store, mqtt, self.topics, resend_after=self.resend_after)
        self.tasks = [
            asyncio.create_task(self.publisher.run()),
            asyncio.create_task(self.sync.run()),
        ]

    async def stop(self) -> None:
        assert self.publisher is not None and self.sync is not None
        self.publisher.stop(drain_timeout=0.1)
        self.sync.stop()
        await guarded(asyncio.gather(*self.tasks), f"{self.name} to stop")

    def play(self, n: int, *, seed: int, publish: bool = True) -> list[str]:
        """Finish ``n`` hands; ``publish=False``: a crash before the handlog reached the outbox."""
        if not self.session_id:
            self.session_id = self.store.start_session(
                ruleset="xingguo", parlour=PARLOUR, table_id=self.name
            )
        new = []
        for events in played_hands(n, seed=seed):
            hand_no = len(self.hands) + 1
            if publish:
                assert self.publisher is not None
                hid = finish_and_publish(
                    self.store,
                    self.publisher,
                    events,
                    parlour=PARLOUR,
                    table=self.name,
                    session_id=self.session_id,
                    hand_no=hand_no,
                )
            else:
                hid = record_hand(self.store, events, session_id=self.session_id, hand_no=hand_no)
            self.hands.append(hid)
            new.append(hid)
        return new

    def all_acked(self) -> bool:
        return not self.store.unacked_handlogs()


def hub_counts(store: EventStore) -> tuple[int, int]:
    with store.engine.connect() as c:
        hands = c.scalar(select(func.count()).select_from(HANDS)) or 0
        events = c.scalar(select(func.count()).select_from(EVENTS)) or 0
    return hands, events


def stored_ids(store: EventStore) -> list[str]:
    with store.engine.connect() as c:
        return sorted(c.scalars(select(HANDS.c.id)))


def start_hub(store: EventStore, url: str) -> tuple[HubIngest, asyncio.Task[None]]:
    hub = HubIngest(store, settings(url), parlour=PARLOUR)
    return hub, asyncio.create_task(hub.run())


async def stop_hub(hub: HubIngest, task: asyncio.Task[None]) -> None:
    hub.stop()
    await guarded(task, "the hub to stop")
