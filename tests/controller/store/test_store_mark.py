"""A store that lost its last commits on a table with the embedded broker (which keeps
nothing retained across a restart): its mark, kept outside SQLite, says so at the next
start, and no hand takes a lost hand's ``table_seq``."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.process.local_ports import free_local_port
from controller.store import EventStore
from controller.store.high_water import SUFFIX, HighWater
from controller.table.store_check import behind_mark
from tests.controller.hub.hands import played_hands, record_hand
from tests.controller.service_helpers import GUARD, data_dir

DB = "mjtable.db"


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    """Read the store of a running service (read-only: it never holds up the writer)."""
    with (
        contextlib.suppress(sqlite3.OperationalError),  # (not yet made)
        contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as c,
    ):
        return list(c.execute(sql).fetchall())
    return []


def _wait(condition: Callable[[], bool], what: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + GUARD * 2
    while not condition():
        assert proc.poll() is None, f"the service ended: {proc.stderr and proc.stderr.read()}"
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def _service(config: Path, log: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        text=True,
    )


def _settled(db: Path) -> list[tuple[object, ...]]:
    return _rows(db, "SELECT table_seq, id FROM hands WHERE status = 'finished' ORDER BY table_seq")


def _made(db: Path) -> bool:
    """The service has made its schema (the hands table, empty or not)."""
    return bool(_rows(db, "SELECT 1 FROM sqlite_master WHERE name = 'hands'"))


# Holds a read transaction on the database at argv[1]: prints the settled hands it sees,
# then waits (killed: no connection closes, so no checkpoint).
_HOLD = (
    "import sqlite3, sys\n"
    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "c.execute('BEGIN')\n"
    "n = c.execute(\"SELECT count(*) FROM hands WHERE status = 'finished'\").fetchone()[0]\n"
    "print(n, flush=True)\n"
    "sys.stdin.read()\n"
)


@pytest.mark.timeout(300)
def test_a_lost_wal_on_the_embedded_broker_is_said_and_no_number_is_given_twice(
    tmp_path: Path,
) -> None:
    data = data_dir(tmp_path)
    config = tmp_path / "table.toml"
    config.write_text(
        f'data_dir = "{data}"\n[hardware]\nvirtual = true\n'
        f'[mqtt]\nembedded = true\nurl = "mqtt://127.0.0.1:{free_local_port()}"\nws_port = 0\n'
        "[web]\nenabled = false\n[metrics]\nenabled = false\n"
    )
    db = data / DB
    first = _service(config, tmp_path / "first.log")
    holder = None
    try:
        _wait(lambda: _made(db), "the store", first)
        # A reader's snapshot held from before the hands settle: no checkpoint copies them
        # into the database file (however the machine's load times SQLite's checkpoints),
        # so they are in the WAL alone, and killed, the holder checkpoints nothing either.
        holder = subprocess.Popen(
            [sys.executable, "-c", _HOLD, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None
        before = int(holder.stdout.readline())
        _wait(lambda: len(_settled(db)) >= before + 2, "two settled hands", first)
        os.kill(first.pid, signal.SIGKILL)
        first.wait(GUARD)
    finally:
        for proc in (first, holder):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(GUARD)
    numbered = max(int(str(seq)) for (seq,) in _rows(db, "SELECT table_seq FROM hands"))
    settled = [hid for _, hid in _settled(db)]
    lost = set(settled[before:])
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink()
    assert len(lost) >= 2 and not lost & {hid for _, hid in _settled(db)}, "the WAL held them"

    log = tmp_path / "second.log"
    second = _service(config, log)
    try:
        _wait(lambda: len(_settled(db)) >= 1, "a hand settled after the restart", second)
        alerts = _rows(db, "SELECT detail FROM alerts WHERE kind = 'store_damaged'")
        seqs = sorted(int(str(seq)) for seq, _ in _settled(db))
    finally:
        second.terminate()
        second.wait(GUARD)
    said = log.read_text()
    assert "the store is damaged" in said, said[-2000:]
    assert alerts and "is not in it, settled" in str(alerts[0][0]), alerts
    assert seqs[0] > numbered, (seqs, numbered)  # the lost hands' numbers stay theirs


def test_the_mark_moves_with_each_commit_and_survives_the_store(tmp_path: Path) -> None:
    db = tmp_path / DB
    store = EventStore.open(f"sqlite:///{db}")
    try:
        hands = played_hands(2)
        first = record_hand(store, hands[0])
        assert behind_mark(store).problems == []
        second = store.start_hand(ruleset="xingguo", hand_no=2, events=hands[1][:1])
        mark = HighWater.beside(db).mark  # as a new process reads it
        assert (mark.table_seq, mark.hand_id) == (2, first)
    finally:
        store.close()
    for name in (DB, f"{DB}-wal", f"{DB}-shm"):
        Path(tmp_path / name).unlink(missing_ok=True)
    assert (tmp_path / (DB + SUFFIX)).exists()
    store = EventStore.open(f"sqlite:///{db}")  # wiped: a new, empty store
    try:
        problems = behind_mark(store).problems
        assert len(problems) == 2 and first in problems[0] and "up to table_seq 2" in problems[1]
        again = store.start_hand(ruleset="xingguo", hand_no=1)
        assert store.load_hand(again).hand.table_seq == 3 and again != second
    finally:
        store.close()


def test_a_hand_killed_before_its_mark_was_written_keeps_its_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kill -9 after a hand's commit and before the mark's write after it: the number the
    mark reserved before the commit is still never given again."""
    db = tmp_path / DB
    store = EventStore.open(f"sqlite:///{db}")
    try:
        record_hand(store, played_hands(1)[0])
        monkeypatch.setattr(HighWater, "numbered", lambda self, seq: None)  # (killed first)
        lost = store.start_hand(ruleset="xingguo", hand_no=2)
        assert store.load_hand(lost).hand.table_seq == 2
    finally:
        store.close()
    monkeypatch.undo()
    for name in (DB, f"{DB}-wal", f"{DB}-shm"):
        Path(tmp_path / name).unlink(missing_ok=True)
    store = EventStore.open(f"sqlite:///{db}")
    try:
        again = store.start_hand(ruleset="xingguo", hand_no=1)
        assert store.load_hand(again).hand.table_seq == 3
    finally:
        store.close()
