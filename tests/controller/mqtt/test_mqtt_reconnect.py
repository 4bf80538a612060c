"""The shared reconnect loop (controller.mqtt.reconnect) against a real Mosquitto: a broker
restart is survived with a growing, jittered backoff that starts over once connected, and
the first session task to fail ends that connection."""

from __future__ import annotations

import asyncio
import time

import aiomqtt
import pytest
from structlog.testing import capture_logs

from controller.mqtt.client import make_client
from controller.mqtt.reconnect import Backoff, keep_connected
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded, settings, until

BACKOFF = Backoff(0.05, 0.4)
ROUNDING = 0.005  # the log rounds retry_in to 2 decimals


def test_backoff_doubles_to_its_most_within_the_jitter() -> None:
    for _ in range(50):
        next_wait = BACKOFF.waits()
        for delay in (0.05, 0.1, 0.2, 0.4, 0.4, 0.4):
            assert 0.8 * delay <= next_wait() <= delay


async def _watch(client: aiomqtt.Client) -> None:
    async for _ in client.messages:  # ends, with MqttError, only when the link does
        pass


def test_a_broker_restart_is_survived_with_backoff(mosquitto: Mosquitto) -> None:
    attempts: list[float] = []
    failures: list[tuple[float, BaseException]] = []
    connects = 0

    def open_client() -> aiomqtt.Client:
        attempts.append(time.monotonic())
        return make_client(settings(mosquitto.url), "reconnect-test")

    async def on_connect(client: aiomqtt.Client) -> None:
        nonlocal connects
        connects += 1

    def retry_waits(logs: list[dict[str, object]]) -> list[float]:
        found = [e["retry_in"] for e in logs if e["event"] == "mqtt connection failed"]
        return [float(w) for w in found if isinstance(w, float | int)]

    async def main() -> None:
        stop, connected = asyncio.Event(), asyncio.Event()
        with capture_logs() as logs:
            runner = asyncio.create_task(
                keep_connected(
                    open_client,
                    lambda client: (_watch(client),),
                    stop,
                    BACKOFF,
                    name="test",
                    connected=connected,
                    on_connect=on_connect,
                    on_failure=lambda err: failures.append((time.monotonic(), err)),
                )
            )
            await guarded(connected.wait(), "the first connection")
            await asyncio.to_thread(mosquitto.stop)
            await until(lambda: len(failures) >= 6, "six failed attempts")
            assert not connected.is_set()
            await asyncio.to_thread(mosquitto.start)
            await until(lambda: connects == 2, "the connection after the restart")
            assert connected.is_set()

            # the lost connection, then refused attempts: the waits double up to the most
            waits = retry_waits(logs)
            for wait, delay in zip(waits, (0.05, 0.1, 0.2, 0.4, 0.4, 0.4), strict=False):
                assert 0.8 * delay - ROUNDING <= wait <= delay + ROUNDING
            assert all(isinstance(err, aiomqtt.MqttError | OSError) for _, err in failures)
            # and each next attempt really waited that long (a lower bound: load only adds)
            later = iter(attempts[1:])
            for (failed_at, _), wait in zip(failures, waits, strict=False):
                assert next(later) - failed_at >= wait - ROUNDING

            # once connected, the backoff starts over
            seen = len(failures)
            await asyncio.to_thread(mosquitto.stop)
            await until(lambda: len(failures) > seen, "the second outage")
            assert retry_waits(logs)[seen] <= 0.05 + ROUNDING
            await asyncio.to_thread(mosquitto.start)
            await until(lambda: connects == 3, "the connection after the second restart")

            stop.set()
            await guarded(runner, "the loop to return after stop")
        assert not connected.is_set()

    asyncio.run(main())


def test_the_first_failing_task_ends_the_connection(mosquitto: Mosquitto) -> None:
    clients: list[aiomqtt.Client] = []
    failures: list[BaseException] = []
    cancelled: list[int] = []  # the session (1-based) whose quiet task was cancelled
    said_goodbye: list[aiomqtt.Client] = []

    async def on_connect(client: aiomqtt.Client) -> None:
        await client.subscribe("test/poison", qos=1)
        clients.append(client)

    async def poisoned(client: aiomqtt.Client) -> None:
        async for message in client.messages:
            if message.payload == b"boom":
                raise RuntimeError("boom")

    async def quiet(client: aiomqtt.Client) -> None:
        session = len(clients)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(session)
            raise

    async def on_stop(client: aiomqtt.Client) -> None:
        said_goodbye.append(client)

    async def main() -> None:
        stop = asyncio.Event()
        runner = asyncio.create_task(
            keep_connected(
                lambda: make_client(settings(mosquitto.url), "first-failing-test"),
                lambda client: (poisoned(client), quiet(client)),
                stop,
                BACKOFF,
                name="test",
                on_connect=on_connect,
                on_stop=on_stop,
                on_failure=failures.append,
            )
        )
        await until(lambda: len(clients) == 1, "the first connection")
        async with aiomqtt.Client("127.0.0.1", mosquitto.port) as sender:
            await sender.publish("test/poison", b"boom", qos=1)
        await until(lambda: len(clients) == 2, "a new connection after the failure")
        assert [str(err) for err in failures] == ["boom"]
        assert cancelled == [1]  # the other task of that session did not outlive it
        with pytest.raises(aiomqtt.MqttError):  # and its client is closed
            await clients[0].publish("test/after", b"x", qos=1)

        stop.set()
        await guarded(runner, "the loop to return after stop")
        assert said_goodbye == [clients[1]]  # on the connection still open
        assert cancelled == [1, 2]

    asyncio.run(main())
