from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.failure_logs import show_log_on_failure


@pytest.fixture(autouse=True)
def _unfreeze_after() -> Iterator[None]:
    """A service run in-process freezes the test process's objects at quiet moments
    (controller.process.gc_pauses): give them back to the collector after each test."""
    yield
    gc.unfreeze()


@pytest.fixture
def mosquitto_factory(
    tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Mosquitto]]:
    """Make (and start) brokers; every one is stopped at teardown, and its log is shown
    if the test fails."""
    made: list[Mosquitto] = []

    def make(*, start: bool = True, **kwargs: Any) -> Mosquitto:
        workdir = tmp_path / f"mosquitto{len(made)}"
        workdir.mkdir()
        broker = Mosquitto(workdir, **kwargs)
        made.append(broker)
        show_log_on_failure(request.node, "mosquitto log", broker.log)
        if start:
            broker.start()
        return broker

    yield make
    for broker in made:
        broker.kill()


@pytest.fixture
def mosquitto(mosquitto_factory: Callable[..., Mosquitto]) -> Mosquitto:
    """A running Mosquitto on a free port: anonymous, no persistence."""
    return mosquitto_factory()


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'data' / 'mjtable.db'}"


@pytest.fixture
def store(store_url: str) -> Iterator[EventStore]:
    s = EventStore.open(store_url)
    yield s
    s.close()
