"""A consistent copy of a table's SQLite store while the service writes to it.

Copying ``mjtable.db`` alone misses every commit still in ``mjtable.db-wal`` (a table
checkpoints only every ~1000 pages: the last hands); copying both files while they change
can tear. SQLite's online backup API copies the database as one read transaction sees it,
WAL included, while the service goes on writing (WAL readers never block the writer).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path


class BackupError(RuntimeError):
    pass


def backup_sqlite(source: Path, dest: Path) -> Path:
    """Copy ``source`` to ``dest`` (a file, or a folder for ``mjtable-<UTC time>.db``);
    written under a temporary name, synced, checked, then renamed. Returns the copy."""
    if not source.is_file():
        raise BackupError(f"no store at {source}")
    if dest.is_dir():
        stamp = f"{source.stem}-{datetime.now(UTC):%Y%m%dT%H%M%SZ}"
        dest, n = dest / f"{stamp}.db", 1
        while dest.exists():  # two copies within a second
            n += 1
            dest = dest.with_name(f"{stamp}-{n}.db")
    if dest.exists():
        raise BackupError(f"{dest} exists: not overwritten")
    tmp = dest.with_name(f".{dest.name}.partial")
    tmp.unlink(missing_ok=True)
    try:
        with (
            contextlib.closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as src,
            contextlib.closing(sqlite3.connect(tmp)) as out,
        ):
            src.execute("PRAGMA busy_timeout=10000")
            src.backup(out)
            out.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            rows = out.execute("PRAGMA quick_check").fetchall()
            if [r[0] for r in rows] != ["ok"]:
                raise BackupError(f"the copy does not check out: {rows[:5]}")
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        tmp.rename(dest)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return dest
