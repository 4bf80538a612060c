"""The live hub: what the table service publishes, fanned out in-process to the web pages.

The service calls ``hub.publish(name, payload)`` with the same (topic name, payload) pairs it
publishes on MQTT (``controller.mqtt.topics``), from any thread. The hub keeps the last value
of each retained topic, so a page that connects late gets the current state at once, and
streams every message to the pages over SSE (``/api/v1/public/live``). Only public data may
flow through it: it is served without a login. As a second line of defence the hub strips
fields that are secret by design (see ``public_only``) and logs that as a bug.

Topics and payloads: docs/displays.md (the display contract; its "live stream" section
for how the stream differs from MQTT: ``events`` flattened, ``alerts`` with ``title`` and
``advice``, and the ``dealer`` topic with the fields ``dealer_text`` reads).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import structlog

from controller.table.alerts import advice
from controller.table.publication import LIVE_TOPICS
from engine.round.events import EVENT_TYPES
from engine.round.narration import seat_name

log = structlog.get_logger(__name__)

STREAMS: Final = ("events", "alerts")
RETAINED: Final = tuple(t for t in LIVE_TOPICS if t not in STREAMS)
TOPICS: Final = LIVE_TOPICS
RECENT_ALERTS = 20

# Keys that name concealed information wherever they appear in a state payload.
SECRET_KEYS: Final = frozenset(
    {
        *("order", "wall_order", "under_tile", "an_jing", "concealed", "hands", "hand_tiles"),
        *("wall", "detail"),  # detail: an alert's private part (controller.table.alerts)
    }
)

_REL_ZH = ("自己", "下家", "对家", "上家")
_REL_EN = ("your own", "the next player's", "the opposite player's", "the previous player's")


def _count_words(p: Mapping[str, Any]) -> tuple[str, str]:
    n = p.get("stack")
    dealer, wall = p.get("dealer"), p.get("wall_seat")
    rel = (wall - dealer) % 4 if isinstance(dealer, int) and isinstance(wall, int) else None
    seat = wall if isinstance(wall, int) else None
    zh_wall = _REL_ZH[rel] if rel is not None else seat_name(seat, "zh") if seat is not None else ""
    en_wall = (
        _REL_EN[rel]
        if rel is not None
        else f"{seat_name(seat, 'en')}'s"
        if seat is not None
        else ""
    )
    match p.get("count_from"):
        case "tail":
            return f"从牌尾数第{n}墩", f"count {n} stacks from the tail"
        case "left":
            return (
                f"从{zh_wall}门前左数第{n}墩",
                f"count {n} stacks from the left of {en_wall} wall",
            )
        case _:
            return (
                f"从{zh_wall}门前右数第{n}墩",
                f"count {n} stacks from the right of {en_wall} wall",
            )


def dealer_text(p: Mapping[str, Any]) -> dict[str, str]:
    """The instruction in words, Chinese and English, from a ``dealer`` payload's fields."""
    step = p.get("step")
    if step == "wait" and p.get("over"):
        return {"zh": "本局已结束，等待下一局", "en": "Hand over: waiting for the next hand"}
    if step == "wait" and p.get("roller") is None:  # no roll due: the hand is being played
        return {"zh": "对局中：牌墙无需操作", "en": "Hand in play: nothing to do at the wall"}
    if step == "wait" or p.get("stack") is None:
        return {"zh": "等待掷骰", "en": "Waiting for the dice"}
    zh, en = _count_words(p)
    match step:
        case "break" if p.get("start") == "after":
            n = p["stack"]
            zh = zh.replace(f"数第{n}墩", f"数留{n}墩") + "，从下一墩开始抓牌"
            return {"zh": zh, "en": f"Leave {n} stacks ({en}), start drawing after them"}
        case "break":
            return {"zh": zh + "开始抓牌", "en": f"Start drawing at stack {p['stack']}: {en}"}
        case "caishen":
            return {"zh": zh + "翻财神", "en": f"Turn up the 财神: {en}"}
        case "xia_jing":
            return {"zh": zh + "翻下精", "en": f"Turn up the 下精: {en}"}
        case _:
            return {"zh": zh + "翻精", "en": f"Turn up the 精: {en}"}


def _scrub(value: Any, path: str, dropped: list[str]) -> Any:
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if k in SECRET_KEYS:
                dropped.append(f"{path}.{k}")
            else:
                out[k] = _scrub(v, f"{path}.{k}", dropped)
        return out
    if isinstance(value, list | tuple):
        return [_scrub(v, f"{path}[]", dropped) for v in value]
    return value


def public_only(topic: str, payload: Any) -> tuple[Any, list[str]]:
    """The payload without secret fields, and the names of those it had to drop."""
    dropped: list[str] = []
    if topic == "events" and isinstance(payload, Mapping):
        cls = EVENT_TYPES.get(str(payload.get("type")))
        secret = set(cls.secret) if cls is not None else set()
        out = {k: v for k, v in payload.items() if k not in secret and k not in SECRET_KEYS}
        dropped = sorted(set(payload) - set(out))
        if out.get("type") == "konged" and out.get("kong") == "concealed" and out.get("tiles"):
            out["tiles"] = []  # 暗杠 lies face down
            dropped.append("tiles")
        return out, dropped
    return _scrub(payload, topic, dropped), dropped


def _enrich(topic: str, payload: Any) -> Any:
    if topic == "dealer" and isinstance(payload, Mapping) and not payload.get("text"):
        return {**payload, "text": dealer_text(payload)}
    if topic == "alerts" and isinstance(payload, Mapping):
        return advice(str(payload.get("kind", ""))) | dict(payload)
    return payload


@dataclass(frozen=True, slots=True)
class LiveMessage:
    id: int
    topic: str
    payload: Any
    at: float  # wall-clock seconds when the hub received it
    replayed: bool = False  # sent from memory to a page that connected later

    def sse(self) -> str:
        """One Server-Sent Event: ``event`` is the topic, ``data`` the JSON envelope."""
        data = json.dumps(
            {"payload": self.payload, "at": self.at, "replayed": self.replayed},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return f"id: {self.id}\nevent: {self.topic}\ndata: {data}\n\n"


class _Resync:
    """Marker: the page fell behind and gets the current state again instead of the backlog."""


RESYNC: Final = _Resync()
Item = LiveMessage | _Resync | None  # None: the hub is closing


@dataclass(eq=False)
class Subscription:
    """One page's feed. Read ``snapshot`` first, then ``await get()`` in a loop."""

    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[Item]
    snapshot: list[LiveMessage] = field(default_factory=list)

    def _offer(self, item: Item) -> None:  # runs on the page's event loop
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(RESYNC)

    async def get(self, timeout: float | None = None) -> Item | _Timeout:
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return TIMEOUT


class _Timeout:
    pass


TIMEOUT: Final = _Timeout()


class LiveHub:
    """Thread-safe fan-out of public messages with the last value of each retained topic."""

    def __init__(self, *, queue_size: int = 256, clock: Callable[[], float] = time.time) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._last: dict[str, LiveMessage] = {}
        self._alerts: deque[LiveMessage] = deque(maxlen=RECENT_ALERTS)
        self._subscribers: set[Subscription] = set()
        self._queue_size = queue_size
        self._clock = clock
        self.closed = False

    def publish(self, topic: str, payload: Any) -> LiveMessage:
        """Record and fan out one message; ``payload`` None clears a retained topic.

        Raises ValueError for an unknown topic or a payload that is not JSON.
        """
        if topic not in TOPICS:
            raise ValueError(f"unknown live topic {topic!r}; known: {', '.join(TOPICS)}")
        payload, dropped = public_only(topic, payload)
        if dropped:
            log.error("secret fields kept off the live hub", topic=topic, fields=dropped)
        payload = _enrich(topic, payload)
        try:
            payload = json.loads(json.dumps(payload, ensure_ascii=False, allow_nan=False))
        except (TypeError, ValueError) as err:
            raise ValueError(f"{topic}: payload is not JSON-serialisable: {err}") from None
        with self._lock:
            message = LiveMessage(next(self._ids), topic, payload, self._clock())
            if topic in RETAINED:
                if payload is None:
                    self._last.pop(topic, None)
                else:
                    self._last[topic] = message
            elif topic == "alerts":
                self._alerts.append(message)
            subscribers = list(self._subscribers)
        for sub in subscribers:
            self._deliver(sub, message)
        return message

    def _deliver(self, sub: Subscription, item: Item) -> None:
        try:
            sub.loop.call_soon_threadsafe(sub._offer, item)
        except RuntimeError:  # its event loop is closed: the page is gone
            with self._lock:
                self._subscribers.discard(sub)

    def last(self, topic: str) -> Any:
        """The retained payload of ``topic``, or None."""
        with self._lock:
            message = self._last.get(topic)
        return None if message is None else message.payload

    def snapshot(self) -> dict[str, Any]:
        """Retained payloads by topic, and ``alerts``: the recent alerts, oldest first."""
        with self._lock:
            out: dict[str, Any] = {t: m.payload for t, m in self._last.items()}
            out["alerts"] = [m.payload | {"at": m.at} for m in self._alerts]
        return out

    def _replay(self) -> list[LiveMessage]:
        messages = [self._last[t] for t in RETAINED if t in self._last] + list(self._alerts)
        return [
            LiveMessage(m.id, m.topic, m.payload, m.at, replayed=True)
            for m in sorted(messages, key=lambda m: m.id)
        ]

    def resync(self) -> list[LiveMessage]:
        """What a page that fell behind gets instead of its backlog."""
        with self._lock:
            return self._replay()

    @contextlib.asynccontextmanager
    async def subscription(self) -> AsyncIterator[Subscription]:
        """A feed for the calling event loop; its snapshot and the stream have no gap."""
        sub = Subscription(asyncio.get_running_loop(), asyncio.Queue(self._queue_size))
        with self._lock:
            sub.snapshot = self._replay()
            if self.closed:
                sub.queue.put_nowait(None)
            else:
                self._subscribers.add(sub)
        try:
            yield sub
        finally:
            with self._lock:
                self._subscribers.discard(sub)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def disconnect_all(self) -> None:
        """End the open streams; pages reconnect by themselves (and get the state again)."""
        with self._lock:
            subscribers = list(self._subscribers)
        for sub in subscribers:
            self._deliver(sub, None)

    def close(self) -> None:
        """End every stream for good (at shutdown: the server need not wait for the pages)."""
        with self._lock:
            self.closed = True
        self.disconnect_all()
