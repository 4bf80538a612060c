"""Shared by the table-service tests: fast settings, an MQTT recorder, log checks."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import random
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt

from controller.config import TableSettings, TrackerSettings
from controller.runtime import RunOptions
from controller.store import EventStore, StoredHand
from controller.table.hand_keeper import HandKeeper
from engine.bots import Bot
from engine.round.actions import Rejection
from engine.round.commands import Command, StaffInputError
from engine.round.events import Event, event_from_dict
from engine.round.fold import fold
from engine.round.replay import check
from engine.round.state import RoundState
from engine.simulation import table_action, waiting_seats
from tests.controller.mqtt_helpers import payload

# A fast virtual table: readers scan every 5 ms, tiles move at once, walls rise at once.
FAST_SIM: dict[str, Any] = {
    "scan_interval": 0.005,
    "move_interval": 0.0,
    "shuffle_time": 0.01,
    "rise_time": 0.01,
}
PREFIX = "mahjong/demo/t1/"
GUARD = 60.0  # a hang guard, never a measured expectation


def data_dir(tmp_path: Path) -> Path:
    """Where the test's SQLite lives: RAM when the machine has it (fsync is the slow part)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        path = Path(tempfile.mkdtemp(prefix="mjtable-test-", dir=shm))
        atexit.register(shutil.rmtree, path, True)
        return path
    return tmp_path / "data"


def config_for(data: Path, ruleset: str, mqtt_url: str, **extra: Any) -> TableSettings:
    return TableSettings(
        data_dir=data,
        ruleset={"id": ruleset},
        hardware={"virtual": True},
        mqtt={
            "embedded": False,
            "url": mqtt_url,
            "reconnect_min": 0.05,
            "reconnect_max": 0.5,
            "keepalive": 5,
        },
        web={"enabled": False},
        metrics={"enabled": False},
        **extra,
    )


def with_web(config: TableSettings, port: int, **tracker: Any) -> TableSettings:
    """The settings with the web app on 127.0.0.1:``port`` (staff log in there) and these
    ``[tracker]`` settings."""
    web = {"enabled": True, "host": "127.0.0.1", "port": port}
    update = {"web": config.web.model_copy(update=web)}
    return config.model_copy(update=update | {"tracker": config.tracker.model_copy(update=tracker)})


def options(seed: int, hands: int | None, **extra: Any) -> RunOptions:
    return RunOptions(
        seed=seed,
        hands=hands,
        fresh_session=True,
        sim=dict(FAST_SIM),
        tracker=TrackerSettings(claim_timeout=10.0),
        **extra,
    )


@dataclass
class Recorder:
    """Every message on the table's topics, in arrival order."""

    port: int
    messages: list[tuple[str, Any, bool]] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        async with aiomqtt.Client("127.0.0.1", self.port) as client:
            await client.subscribe(PREFIX + "#", qos=1)
            self.ready.set()
            async for m in client.messages:
                assert isinstance(m.payload, bytes)
                name = m.topic.value.removeprefix(PREFIX)
                if name.startswith("zz-test/"):
                    continue  # mqtt_helpers.retained_state's sentinel
                self.messages.append((name, payload(m), m.retain))

    def of(self, name: str) -> list[Any]:
        return [p for n, p, _ in self.messages if n == name]


@contextlib.asynccontextmanager
async def recording(port: int) -> AsyncIterator[Recorder]:
    rec = Recorder(port)
    task = asyncio.create_task(rec.run())
    try:
        await asyncio.wait_for(rec.ready.wait(), GUARD)
        yield rec
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
            await task


async def until(condition: Any, what: str, guard: float = GUARD) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.02)

    try:
        await asyncio.wait_for(poll(), guard)
    except TimeoutError:
        raise AssertionError(f"gave up waiting for {what}") from None


def wait_for(value: Callable[[], Any], what: str, guard: float = GUARD) -> Any:
    """``value()`` once it is truthy, for a test that waits outside an event loop (a
    browser's, an HTTP client's): polled, as ``until`` polls, up to ``guard`` seconds."""
    end = time.monotonic() + guard
    while not (got := value()):
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)
    return got


def finished_hands(store: EventStore) -> list[StoredHand]:
    records = store.list_hands(status="finished", limit=10_000)
    ordered = sorted(records, key=lambda h: (h.table_seq or 0, h.started_at, h.hand_no))
    return [store.load_hand(h.id) for h in ordered]


def log_of(stored: StoredHand) -> list[Event]:
    return [event_from_dict(d) for d in stored.event_dicts()]


def refold(stored: StoredHand) -> RoundState:
    """The hand again from its log with the pure engine; its settlement must check out."""
    state = fold(log_of(stored))
    problem = check(state)
    assert problem is None, f"hand {stored.hand.id}: {problem}"
    return state


def play_at_keeper(keeper: HandKeeper, rng: random.Random, moves: int | None = None) -> str:
    """A hand at the keeper, four bots playing (the order known from the lift): ``moves``
    steps of it, or the whole hand; returns its id."""
    order = list(range(136))
    rng.shuffle(order)
    hand_id = keeper.start_hand(tuple(order))
    bots = [Bot(s) for s in range(4)]
    step = 0
    while keeper.in_progress and (moves is None or step < moves):
        state = keeper.state
        assert state is not None
        action = table_action(state, rng) or bots[waiting_seats(state)[0]].act(state)
        assert isinstance(keeper.execute(action), list)
        step += 1
    return hand_id


def act_at(keeper: HandKeeper, command: Command) -> list[Event]:
    """A person's act at the keeper's one entry; its refusal raised as StaffInputError."""
    result = keeper.execute(command)
    if isinstance(result, Rejection):
        raise StaffInputError(result.reason)
    return result


class ServiceThread(threading.Thread):
    """``main()`` on an event loop of its own, in a daemon thread (Playwright's sync API
    drives a page from the test's thread meanwhile). ``failed``: what it raised, for the
    test's thread to report; when it ends, ``finished`` and ``also`` are set (a test that
    waits on any of them does not wait for a service that died)."""

    def __init__(
        self, main: Callable[[], Coroutine[Any, Any, None]], *also: threading.Event
    ) -> None:
        super().__init__(name="table", daemon=True)
        self.main = main
        self.failed: BaseException | None = None
        self.finished = threading.Event()
        self.also = also

    def run(self) -> None:
        try:
            asyncio.run(self.main())
        except BaseException as err:  # the test's thread reports it
            self.failed = err
        finally:
            for event in (*self.also, self.finished):
                event.set()
