"""What a stranger can make the web app hold: request bodies, live streams, login attempts
and password hashing, each bounded so that no client can stop the app or the table loop
that shares its process.

- ``BodyLimit``: bytes of a request body, counted as they arrive (a ``Content-Length`` over
  the limit is refused before any is read): 413.
- ``StreamSlots``: open live streams, in total and per client address: 503 / 429.
- ``LoginThrottle``: login attempts per name and per client address in a sliding window,
  counted before the password is checked (so concurrent guesses cannot slip past), in a
  bounded LRU (a flood of names evicts the oldest entries, never the whole table).
- ``HashGate``: at most ``slots`` password hashes at once (scrypt takes 16 MiB and ~0.1 s
  of a core), off the event loop; beyond ``waiting`` queued logins it answers 503 at once.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.words import refusal

T = TypeVar("T")

DEFAULT_BODY = 1024  # no route but login reads a body
BODY_LIMITS = {"/api/v1/auth/login": 8 * 1024}  # a 1024-character password, JSON-escaped
# by path prefix: an act of staff (a reason of 500 characters, JSON-escaped, and a hand)
# the owners' house rules: every option of a preset (the largest, 66), twice for a preview
BODY_PREFIX_LIMITS = {
    "/api/v1/staff/": 16 * 1024,
    "/api/v1/house/": 32 * 1024,
    "/api/v1/play/": 4 * 1024,
}


async def problem(send: Send, status: int, detail: str) -> None:
    """A refusal from outside a route, worded as the routes' are (controller.words)."""
    body = json.dumps(refusal(detail).body(), ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class _TooLarge(HTTPException):
    """Raised from ``receive``: FastAPI passes an HTTPException through its body parsing
    (anything else it turns into a 400); outside a route the middleware answers it."""

    def __init__(self, detail: str) -> None:
        super().__init__(413, detail)


class BodyLimit:
    """Refuses a request body longer than its route's limit with 413 (an ASGI wrapper)."""

    def __init__(
        self, app: ASGIApp, limits: dict[str, int] | None = None, default: int = DEFAULT_BODY
    ) -> None:
        self.app = app
        self.limits = BODY_LIMITS if limits is None else limits
        self.default = default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.get(scope["path"]) or next(
            (n for prefix, n in BODY_PREFIX_LIMITS.items() if scope["path"].startswith(prefix)),
            self.default,
        )
        detail = f"request body: at most {limit} bytes here"
        for key, value in scope.get("headers", []):
            if key == b"content-length" and (not value.isdigit() or int(value) > limit):
                await problem(send, 413, detail)
                return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge(detail)
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except _TooLarge:
            if not started:
                await problem(send, 413, detail)


def client_address(scope_client: tuple[str, int] | None) -> str:
    return scope_client[0] if scope_client else "?"


class TooManyStreams(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass
class StreamSlots:
    """Open live streams, at most ``total`` and ``per_client`` per address."""

    total: int = 200
    per_client: int = 8
    _open: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def in_use(self) -> int:
        with self._lock:
            return sum(self._open.values())

    def take(self, client: str) -> None:
        """Hold a slot for ``client``; raises TooManyStreams (503 or 429) when none is left."""
        with self._lock:
            if sum(self._open.values()) >= self.total:
                raise TooManyStreams(503, f"at most {self.total} live streams; try again later")
            if self._open.get(client, 0) >= self.per_client:
                raise TooManyStreams(429, f"at most {self.per_client} live streams per client")
            self._open[client] = self._open.get(client, 0) + 1

    def give_back(self, client: str) -> None:
        with self._lock:
            left = self._open.get(client, 0) - 1
            if left > 0:
                self._open[client] = left
            else:
                self._open.pop(client, None)


MAX_TRACKED = 10_000  # names and addresses each


@dataclass
class _Window:
    """Attempts per key in a sliding window, in an LRU of at most ``size`` keys."""

    limit: int
    window: float
    size: int = MAX_TRACKED
    _times: OrderedDict[str, deque[float]] = field(default_factory=OrderedDict)

    def wait(self, key: str, now: float) -> float:
        times = self._times.get(key)
        if times is None:
            return 0.0
        while times and times[0] <= now - self.window:
            times.popleft()
        if len(times) < self.limit:
            return 0.0
        return times[0] + self.window - now

    def add(self, key: str, now: float) -> None:
        times = self._times.get(key)
        if times is None:
            while len(self._times) >= self.size:
                self._times.popitem(last=False)  # the least recently tried key
            times = self._times[key] = deque(maxlen=self.limit)
        self._times.move_to_end(key)
        times.append(now)

    def forget(self, key: str) -> None:
        self._times.pop(key, None)


class LoginThrottle:
    """Login attempts per name (``attempts`` in ``window`` s) and per client address
    (``per_client``), counted when the attempt starts; a success clears the name's count."""

    def __init__(
        self,
        attempts: int,
        window: float,
        *,
        per_client: int | None = None,
        size: int = MAX_TRACKED,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._names = _Window(attempts, window, size)
        self._clients = _Window(per_client or 4 * attempts, window, size)
        self._lock = threading.Lock()
        self._clock = clock

    def begin(self, name: str, client: str = "?") -> float:
        """Count an attempt for ``name`` from ``client`` and return 0, or return the seconds
        until one may be made (counting nothing)."""
        now = self._clock()
        with self._lock:
            wait = max(self._names.wait(name, now), self._clients.wait(client, now))
            if wait > 0:
                return wait
            self._names.add(name, now)
            self._clients.add(client, now)
            return 0.0

    def succeeded(self, name: str) -> None:
        with self._lock:
            self._names.forget(name)


class Busy(Exception):
    """Too many logins waiting for a password check: answer 503."""


class HashGate:
    """At most ``slots`` password checks at once, in threads; at most ``waiting`` queued."""

    def __init__(self, slots: int = 2, waiting: int = 32) -> None:
        self._slots = slots
        self._waiting = waiting
        self._queued = 0
        self._semaphore: asyncio.Semaphore | None = None

    async def run(self, work: Callable[[], T]) -> T:
        if self._semaphore is None:  # made on the serving loop
            self._semaphore = asyncio.Semaphore(self._slots)
        if self._queued >= self._waiting:
            raise Busy
        self._queued += 1
        try:
            async with self._semaphore:
                return await asyncio.to_thread(work)
        finally:
            self._queued -= 1


class Rate:
    """At most ``limit`` acts per key in ``window`` seconds (per client address, or one
    key for all), each counted when it is let through: ``take`` answers the seconds to
    wait (0: taken)."""

    def __init__(
        self, limit: int, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._window = _Window(limit, window)
        self._lock = threading.Lock()
        self._clock = clock

    def take(self, key: str) -> float:
        now = self._clock()
        with self._lock:
            wait = self._window.wait(key, now)
            if wait <= 0:
                self._window.add(key, now)
            return wait
