"""The tests' Mosquitto (tests/controller/mosquitto.py): start() returns only once this
start's broker runs, and says why when it cannot."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

import aiomqtt
import pytest

from tests.controller.mosquitto import Mosquitto


def test_a_port_someone_else_listens_on_is_not_taken_for_the_broker(
    mosquitto_factory: Callable[..., Mosquitto],
) -> None:
    broker = mosquitto_factory(start=False)
    with socket.socket() as squatter:
        # Something else listens on the broker's port: it accepts, but is not the broker.
        squatter.bind(("127.0.0.1", broker.port))
        squatter.listen()
        with pytest.raises(RuntimeError, match="mosquitto exited") as failure:
            broker.start()
    assert "Address already in use" in str(failure.value)


def test_a_restarted_broker_is_waited_for_again(
    mosquitto_factory: Callable[..., Mosquitto],
) -> None:
    broker = mosquitto_factory()
    for _ in range(3):
        broker.stop()
        broker.start()

        async def connect() -> None:
            async with aiomqtt.Client("127.0.0.1", broker.port, timeout=5):
                pass

        asyncio.run(connect())
