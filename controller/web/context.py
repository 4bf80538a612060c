"""What every route needs (store, live hub, settings, owners, token signer), on ``app.state``."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field

from fastapi import Request

from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.web.live import LiveHub
from controller.web.settings import WebAppSettings
from controller.web.tokens import TokenSigner

MAX_TRACKED_NAMES = 10_000


@dataclass
class LoginThrottle:
    """Failed logins per name in a sliding window: slows password guessing down."""

    attempts: int
    window: float
    _failures: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait(self, name: str, now: float | None = None) -> float:
        """Seconds until ``name`` may try again (0: now)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            times = self._failures.get(name)
            if times is None:
                return 0.0
            while times and times[0] <= now - self.window:
                times.popleft()
            if len(times) < self.attempts:
                return 0.0
            return times[0] + self.window - now

    def failed(self, name: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            if len(self._failures) >= MAX_TRACKED_NAMES and name not in self._failures:
                self._failures.clear()  # a flood of made-up names: start over
            self._failures.setdefault(name, deque(maxlen=self.attempts)).append(now)

    def succeeded(self, name: str) -> None:
        with self._lock:
            self._failures.pop(name, None)


@dataclass
class WebContext:
    store: EventStore
    live: LiveHub
    settings: WebAppSettings
    owners: OwnerAccounts
    signer: TokenSigner
    throttle: LoginThrottle
    keepalive: float = 15.0  # seconds between SSE comments that keep proxies from closing


def context(request: Request) -> WebContext:
    ctx: WebContext = request.app.state.ctx
    return ctx
