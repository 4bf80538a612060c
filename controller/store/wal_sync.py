"""Live moves made durable right after they are published, never more than one behind.

A live move is committed with ``synchronous=NORMAL``: SQLite writes it to the WAL and
returns without an fsync, so the move is published at once (an SD card can take tens of
milliseconds to sync). This thread syncs the WAL as soon as the commit is made, while the
move travels to the displays. The next lazy commit first waits for that sync (at a real
table the next move comes seconds later, long after it), so a power cut can take at most
the one move that was being synced, and the readers still see where that tile lies: the
tracker takes it as a move made while the service was down (docs/service.md,
"Durability").

Commits that must never be lost once published (dice, the 精, a win and its settlement)
stay ``synchronous=FULL``: their fsync also covers every lazy frame before them, the WAL
being one file written in order.

fdatasync on our own descriptor of the WAL flushes the same inode's pages that SQLite
wrote through its descriptor; SQLite's checksummed WAL frames make any synced prefix a
consistent database, so a sync between two of its writes is safe.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import structlog

log = structlog.get_logger(__name__)


class WalSyncer:
    """Syncs ``<database>-wal`` after each ``nudge()``, in a thread of its own."""

    def __init__(self, database: Path) -> None:
        self.wal = Path(f"{database}-wal")
        self._lock = threading.Condition()
        self._asked = 0  # nudges so far
        self._done = 0  # nudges covered by a finished sync
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="wal-sync", daemon=True)
        self._thread.start()

    def nudge(self) -> None:
        """A lazy commit happened: sync it now."""
        with self._lock:
            self._asked += 1
            self._lock.notify_all()

    def wait(self, timeout: float = 10.0) -> bool:
        """Until every commit nudged so far is synced (False if ``timeout`` passed)."""
        with self._lock:
            target = self._asked
            return self._lock.wait_for(lambda: self._done >= target, timeout)

    def close(self) -> None:
        """Sync what is pending and stop the thread."""
        with self._lock:
            self._stop = True
            self._lock.notify_all()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            with self._lock:
                self._lock.wait_for(lambda: self._asked > self._done or self._stop)
                target, stop = self._asked, self._stop
            if target > self._done:
                self._sync()
            with self._lock:
                self._done = target
                self._lock.notify_all()
            if stop:
                return

    def _sync(self) -> None:
        try:
            fd = os.open(self.wal, os.O_RDONLY)
        except FileNotFoundError:
            return  # checkpointed and removed: everything is in the database file
        except OSError as exc:
            log.warning("cannot open the WAL to sync it", path=str(self.wal), error=str(exc))
            return
        try:
            os.fdatasync(fd)
        except OSError as exc:
            log.warning("WAL sync failed", path=str(self.wal), error=str(exc))
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)
