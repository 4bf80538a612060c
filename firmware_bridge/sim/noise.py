"""A bad line, on purpose: frames lost or corrupted at a given rate, from a seeded RNG."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(slots=True)
class NoiseStats:
    frames: int = 0
    lost: int = 0
    corrupted: int = 0


class FrameNoise:
    """Each frame, with probability `rate`, is lost (half the time) or has one byte changed."""

    def __init__(self, rate: float, rng: random.Random) -> None:
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"drop rate {rate} is outside 0..1")
        self.rate = rate
        self.rng = rng
        self.stats = NoiseStats()

    def apply(self, frame: bytes) -> bytes:
        self.stats.frames += 1
        if not frame or self.rate == 0.0 or self.rng.random() >= self.rate:
            return frame
        if self.rng.random() < 0.5:
            self.stats.lost += 1
            return b""
        self.stats.corrupted += 1
        i = self.rng.randrange(len(frame))
        damaged = bytearray(frame)
        damaged[i] ^= self.rng.randrange(1, 256)
        return bytes(damaged)


class DelimitedNoise:
    """FrameNoise on a 0x00-delimited byte stream (the board link), cut at the delimiters.
    Input may come in any chunks; a partial frame waits for the rest."""

    def __init__(self, noise: FrameNoise) -> None:
        self.noise = noise
        self._partial = bytearray()

    def apply(self, data: bytes) -> bytes:
        if self.noise.rate == 0.0:
            return data
        self._partial += data
        *frames, rest = bytes(self._partial).split(b"\x00")
        self._partial = bytearray(rest)
        return b"".join(self.noise.apply(f) + b"\x00" if f else b"\x00" for f in frames)
