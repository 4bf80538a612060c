"""A wall clock the test moves (``clock_shim.c``, LD_PRELOAD): a Pi before NTP, the jump
when NTP answers, a clock moved back."""

from __future__ import annotations

from pathlib import Path

from tests.controller.fsync_shim import build

SOURCE = Path(__file__).with_name("clock_shim.c")


class ShiftedClock:
    """The offset file a child process's wall clock follows; ``set(seconds)`` moves it."""

    def __init__(self, path: Path, seconds: int = 0) -> None:
        self.path = path
        self.set(seconds)

    def set(self, seconds: int) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(f"{int(seconds)}\n")
        tmp.replace(self.path)  # the shim never reads half a number

    def environment(self) -> dict[str, str]:
        return {"LD_PRELOAD": str(build(SOURCE)), "MJTABLE_CLOCK_OFFSET_FILE": str(self.path)}
