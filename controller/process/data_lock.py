"""One service per data directory: an exclusive ``flock`` on ``<data_dir>/mjtable.lock``.

Two services on one directory would share the MQTT client id (the broker drops each for
the other, over and over) and write into one session. The lock is taken before the store,
the broker or a device is opened; the holder writes its pid into the file so that the one
refused can say who holds it. The kernel releases the lock when the holder's process ends,
however it ends (kill -9, a power cut), so a stale file never blocks a restart.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

LOCK_NAME = "mjtable.lock"


class DataDirLocked(RuntimeError):
    """Another process holds the data directory; ``holder`` is its pid when it wrote one."""

    def __init__(self, path: Path, holder: int | None) -> None:
        who = f"process {holder}" if holder is not None else "another process"
        super().__init__(
            f"{path.parent} is in use by {who} (lock {path}): one service per data_dir"
        )
        self.path = path
        self.holder = holder


def _holder(fd: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(os.pread(fd, 32, 0).decode().strip())
    return None


@contextlib.contextmanager
def data_dir_lock(data_dir: Path) -> Iterator[Path]:
    """Hold the data directory's lock; raises :class:`DataDirLocked` at once if taken."""
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DataDirLocked(path, _holder(fd)) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield path
    finally:
        os.close(fd)  # releases the lock
