"""A simulated serial line for sans-IO link tests: FIFO, byte-at-a-time, lossy.

Time is simulated: bytes leave at the line rate (10 bits per byte) plus a fixed latency.
Damage is applied per frame (drop, duplicate) and per byte (corrupt), from a seeded RNG.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from firmware_bridge.protocol import (
    ButtonPress,
    DisplayText,
    Inventory,
    Link,
    Message,
    SeatButton,
    Status,
    TableState,
)


@dataclass
class Damage:
    corrupt_byte: float = 0.0
    drop_frame: float = 0.0
    duplicate_frame: float = 0.0


class LossyChannel:
    def __init__(
        self,
        rng: random.Random,
        damage: Damage,
        *,
        baud: int = 115_200,
        latency: float = 0.002,
    ) -> None:
        self._rng = rng
        self._damage = damage
        self._byte_time = 10 / baud
        self._latency = latency
        self._busy_until = 0.0
        self._pending: deque[tuple[float, int]] = deque()
        self._delimiters: deque[float] = deque()  # arrival times of the 0x00 bytes pending
        self.frames_dropped = 0
        self.frames_duplicated = 0
        self.bytes_corrupted = 0
        self.connected = True

    def write(self, data: bytes, now: float) -> None:
        if not self.connected or not data:
            return
        rng, damage = self._rng, self._damage
        for frame in _split_frames(data):
            if rng.random() < damage.drop_frame:
                self.frames_dropped += 1
                continue
            copies = 1
            if rng.random() < damage.duplicate_frame:
                copies = 2
                self.frames_duplicated += 1
            for _ in range(copies):
                for byte in frame:
                    if rng.random() < damage.corrupt_byte:
                        byte ^= rng.randrange(1, 256)
                        self.bytes_corrupted += 1
                    self._busy_until = max(now, self._busy_until) + self._byte_time
                    arrival = self._busy_until + self._latency
                    self._pending.append((arrival, byte))
                    if byte == 0:
                        self._delimiters.append(arrival)

    def next_time(self) -> float | None:
        """When the next frame has fully arrived: a receiver only acts on a delimiter."""
        if self._delimiters:
            return self._delimiters[0]
        return self._pending[-1][0] if self._pending else None

    def due(self, now: float) -> Iterator[bytes]:
        """Bytes whose arrival time has come, one byte per item."""
        while self._pending and self._pending[0][0] <= now:
            byte = self._pending.popleft()[1]
            if byte == 0:
                self._delimiters.popleft()
            yield bytes((byte,))


def _split_frames(data: bytes) -> list[bytes]:
    """Cut at each 0x00 delimiter, keeping it with the frame it ends."""
    parts = data.split(b"\x00")
    frames = [p + b"\x00" for p in parts[:-1]]
    if parts[-1]:
        frames.append(parts[-1])
    return frames


class Simulation:
    """Two links joined by two lossy channels, driven in simulated time."""

    def __init__(self, a: Link, b: Link, rng: random.Random, damage: Damage) -> None:
        self.a, self.b = a, b
        self.ab = LossyChannel(rng, damage)
        self.ba = LossyChannel(rng, damage)
        self.now = 0.0
        self.got_a: list[Message] = []
        self.got_b: list[Message] = []

    def step(self) -> None:
        """Deliver what has arrived, let both links act, then jump to the next event."""
        now = self.now
        for byte in self.ab.due(now):
            self.got_b += self.b.receive_bytes(byte, now)
        for byte in self.ba.due(now):
            self.got_a += self.a.receive_bytes(byte, now)
        # Like the transport: poll only when the link asks for it.
        if self.a.next_deadline() <= now:
            self.ab.write(self.a.poll(now), now)
        if self.b.next_deadline() <= now:
            self.ba.write(self.b.poll(now), now)
        times = [self.a.next_deadline(), self.b.next_deadline()]
        times += [t for t in (self.ab.next_time(), self.ba.next_time()) if t is not None]
        self.now = max(self.now, min(times))

    def run_until(self, done: object, *, limit: float) -> None:
        start = self.now
        while not (done() if callable(done) else done):
            self.step()
            assert self.now - start < limit, "simulation did not converge"


COUNT = 10_000
"""Messages each way in the lossy-line runs (the Python link, the C link, both together)."""


def messages_for(side: str, count: int) -> list[Message]:
    """``count`` messages of every kind the line carries, their texts naming ``side``."""
    out: list[Message] = []
    for i in range(count):
        kind = i % 10
        if kind == 0:
            uids = tuple((i * 16 + k).to_bytes(8, "big") for k in range(12))
            out.append(Inventory(reader=1, zone=i % 7, uids=uids))
        elif kind == 1:
            out.append(ButtonPress(seat=i % 4, button=SeatButton(1 + i % 6)))
        elif kind == 2:
            out.append(Status(TableState(i % 5), faults=(i % 65536,)))
        else:
            out.append(DisplayText(target=i % 5, text=f"{side} {i}"))
    return out
