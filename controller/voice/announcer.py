"""The voice's queue, off the table loop: the loop only hands announcements in.

    Outlet.committed ──hear()──> [bounded queue] ──(its own thread)──> AudioSink.play
       (table loop)   filters:                 drops: older than max_age,
                      kind off, quiet hours          (or its own longer wait),
                                                     superseded (same key), oldest when full

``hear`` takes a lock held only to append or pop (never while speaking), so play never
waits on the loudspeaker; speaking is slow (a second or two) and runs in a thread whose
work is a child process (espeak-ng, the player), so it needs no GIL while it lasts.
"""

from __future__ import annotations

import collections
import datetime as dt
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import structlog

from controller.config import VoiceSettings
from controller.process.metrics import Metrics
from controller.voice.phrases import Announcement, announcements

log = structlog.get_logger(__name__)


class AudioSink(Protocol):
    """Says one text; blocks until it is said (it runs in the announcer's thread)."""

    def play(self, text: str) -> None: ...


def in_quiet_hours(settings: VoiceSettings, now: dt.time) -> bool:
    start, end = settings.quiet_from, settings.quiet_until
    if start is None or end is None or start == end:
        return False
    if start < end:
        return start <= now < end
    return now >= start or now < end  # across midnight


@dataclass(frozen=True, slots=True)
class _Queued:
    announcement: Announcement
    at: float


class Announcer:
    """``hear`` (the outlet calls it with what it published) and a thread that speaks."""

    def __init__(
        self,
        settings: VoiceSettings,
        sink: AudioSink,
        *,
        clock: Callable[[], float] = time.monotonic,
        local_time: Callable[[], dt.time] = lambda: dt.datetime.now().time(),
        metrics: Metrics | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.sink = sink
        self.clock = clock
        self.local_time = local_time
        self.dropped: collections.Counter[str] = collections.Counter()
        """Announcements not said, by why: quiet, stale, superseded, full."""
        self._queue: collections.deque[_Queued] = collections.deque()
        self._cond = threading.Condition()
        self._speaking = False
        self._closing = False
        self._last_error = ""
        self._thread = threading.Thread(target=self._run, name="voice", daemon=True)
        self._thread.start()

    # --- on the table loop ----------------------------------------------------------------

    def hear(self, messages: Sequence[tuple[str, Any]]) -> None:
        """The published messages: their announcements of a kind switched on, queued."""
        wanted = [a for a in announcements(messages) if getattr(self.settings.speak, a.kind)]
        if not wanted:
            return
        if in_quiet_hours(self.settings, self.local_time()):
            self._drop("quiet", len(wanted))
            return
        for a in wanted:
            self.say(a)

    def say(self, a: Announcement) -> None:
        """Queue one announcement (never waits for the loudspeaker)."""
        now = self.clock()
        with self._cond:
            if a.key is not None:
                kept = [q for q in self._queue if q.announcement.key != a.key]
                self._drop("superseded", len(self._queue) - len(kept))
                self._queue = collections.deque(kept)
            while len(self._queue) >= self.settings.queue:
                self._queue.popleft()
                self._drop("full")
            self._queue.append(_Queued(a, now))
            self._cond.notify()

    # --- the voice's own thread -----------------------------------------------------------

    def _next(self) -> Announcement | None:
        """The next announcement still fresh; None once closed."""
        with self._cond:
            self._speaking = False
            self._cond.notify_all()  # (``wait_idle``)
            while True:
                while not self._queue and not self._closing:
                    self._cond.wait()
                if self._closing:
                    return None
                queued = self._queue.popleft()
                max_age = max(self.settings.max_age, queued.announcement.wait)
                if self.clock() - queued.at > max_age:
                    self._drop("stale")
                    continue
                self._speaking = True
                return queued.announcement

    def _run(self) -> None:
        while (a := self._next()) is not None:
            try:
                self.sink.play(a.text)
            except Exception as err:  # a missing speaker must not end the voice
                # said once while it lasts: an unplugged speaker must not flood the log
                if str(err) != self._last_error:
                    log.warning("could not speak", text=a.text, error=str(err))
                self._last_error = str(err)
                self._count("failed")
            else:
                self._last_error = ""
                self._count("said")

    def _drop(self, why: str, n: int = 1) -> None:
        if n:
            self.dropped[why] += n
            self._count(why, n)

    def _count(self, fate: str, n: int = 1) -> None:
        if self.metrics is not None:
            self.metrics.voice.labels(fate).inc(n)

    def wait_idle(self, timeout: float) -> bool:
        """Until nothing waits and nothing is being said (tests, ``mjtable say``)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._speaking, timeout)

    def close(self, timeout: float = 5.0) -> None:
        """Stop speaking; what waits is dropped (the service is stopping)."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout)
