"""The voice's one fake: a loudspeaker that records what it would say."""

from __future__ import annotations

import threading


class RecordingSink:
    """``AudioSink`` that keeps each text; ``hold`` makes ``play`` wait (a slow speaker)."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.hold = threading.Event()
        self.hold.set()
        self.playing = threading.Event()

    def play(self, text: str) -> None:
        self.playing.set()
        self.hold.wait(30.0)
        self.said.append(text)
