"""One MQTT connection kept up until asked to stop: the loop the publisher, the handlog
sync and the hub share.

``keep_connected`` opens a client, runs ``on_connect`` (subscribe, say online), then the
session's tasks side by side. The first task to finish or fail ends the connection: the
others are cancelled and its error is raised, so a dead link seen by any one of them
(the message iterator, a publish waiting for its PUBACK) closes the client and a fresh one
is opened after a backoff. The backoff starts at ``reconnect_min``, doubles up to
``reconnect_max`` and comes back to the start once a connection is up; each wait is
jittered (80–100 %) so that a parlour's tables do not reconnect in lockstep after the
broker restarts. Any other error (the database briefly locked) is logged and retried the
same way: the caller's data stays where it was.

After ``stop`` is set the session's tasks are cancelled, ``on_stop`` says goodbye on the
still-open connection (drain, offline) and the call returns. Cancelling the call instead
runs ``on_cancel`` first, briefly (a clean DISCONNECT fires no will, so the publisher says
offline itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

import aiomqtt
import structlog

log = structlog.get_logger(__name__)

ClientStep = Callable[[aiomqtt.Client], Awaitable[None]]
SessionTasks = Callable[[aiomqtt.Client], Sequence[Coroutine[Any, Any, None]]]

ON_CANCEL_TIMEOUT = 1.0  # seconds the cancel hook may take: cancellation must not hang


@dataclass(frozen=True, slots=True)
class Backoff:
    """Seconds between attempts: ``first``, doubling up to ``most``, each jittered."""

    first: float
    most: float
    jitter: float = 0.2  # a wait is (1 - jitter … 1) × the delay

    def waits(self) -> Callable[[], float]:
        """A fresh sequence; pass it around as ``next_wait()``."""
        delay = self.first

        def next_wait() -> float:
            nonlocal delay
            wait = delay * random.uniform(1 - self.jitter, 1.0)
            delay = min(delay * 2, self.most)
            return wait

        return next_wait


async def run_until_first_done(
    tasks: Sequence[Coroutine[Any, Any, None]], stop: asyncio.Event
) -> bool:
    """Run ``tasks`` until one finishes (its error is raised) or ``stop`` is set (True)."""
    running = [asyncio.create_task(t) for t in tasks]
    stopping = asyncio.create_task(stop.wait())
    try:
        done, _ = await asyncio.wait([*running, stopping], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (*running, stopping):
            task.cancel()
        await asyncio.gather(*running, stopping, return_exceptions=True)
    for task in running:
        if task in done:
            task.result()  # the error that ended the session
    return stopping in done


async def keep_connected(
    open_client: Callable[[], aiomqtt.Client],
    session: SessionTasks,
    stop: asyncio.Event,
    backoff: Backoff,
    *,
    name: str,
    connected: asyncio.Event | None = None,
    on_connect: ClientStep | None = None,
    on_stop: ClientStep | None = None,
    on_cancel: ClientStep | None = None,
    on_down: Callable[[], None] | None = None,
    on_failure: Callable[[BaseException], None] | None = None,
) -> None:
    """Connect, run ``session(client)``'s tasks, reconnect with backoff; returns after
    ``stop`` (also when it was set before the first attempt).

    ``connected`` is set while a connection is up; ``on_down`` runs whenever one ends (or
    an attempt fails); ``on_failure`` gets each error that ended an attempt.
    """
    next_wait = backoff.waits()
    while not stop.is_set():
        try:
            async with open_client() as client:
                try:
                    if on_connect is not None:
                        await on_connect(client)
                    if connected is not None:
                        connected.set()
                    next_wait = backoff.waits()
                    log.info("mqtt connected", client=name)
                    if await run_until_first_done(session(client), stop):
                        if on_stop is not None:
                            await on_stop(client)
                        return
                    # a task returned by itself: the session is over, connect again
                except asyncio.CancelledError:
                    if on_cancel is not None:
                        with contextlib.suppress(Exception):
                            await asyncio.wait_for(on_cancel(client), ON_CANCEL_TIMEOUT)
                    raise
        except (aiomqtt.MqttError, OSError) as err:  # ssl.SSLError is an OSError
            wait = next_wait()
            _failed(on_failure, err)
            log.warning(
                "mqtt connection failed",
                client=name,
                error=str(err) or type(err).__name__,
                retry_in=round(wait, 2),
            )
        except Exception as err:
            wait = next_wait()
            _failed(on_failure, err)
            log.exception("mqtt session error, reconnecting", client=name, retry_in=round(wait, 2))
        else:
            wait = next_wait()
        finally:
            if connected is not None:
                connected.clear()
            if on_down is not None:
                on_down()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)


def _failed(on_failure: Callable[[BaseException], None] | None, err: BaseException) -> None:
    if on_failure is not None:
        on_failure(err)
