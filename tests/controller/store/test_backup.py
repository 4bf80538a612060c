"""``mjtable backup`` copies the store while the service writes to it: the copy is one
consistent database, WAL commits included, every finished hand in it folds again."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from controller.runtime import running
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    options,
    refold,
    until,
)


def _backup(config: Path, dest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "backup", str(dest), "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=GUARD,
    )


@pytest.mark.timeout(300)
def test_a_backup_taken_while_the_service_plays_is_whole(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    data = data_dir(tmp_path)
    config = config_for(data, "xingguo", mosquitto.url)
    toml = tmp_path / "table.toml"
    toml.write_text(f'data_dir = "{data}"\n')
    copies = tmp_path / "copies"
    copies.mkdir()

    async def main() -> list[tuple[int, Path]]:
        taken: list[tuple[int, Path]] = []
        # The table plays until stopped, so that every copy is taken while it plays however
        # fast it plays (on a quiet machine three hands were over before a second copy).
        async with running(config, options(51, None)) as run:
            stop = asyncio.Event()
            task = asyncio.create_task(run.service.run(stop))
            await until(lambda: len(finished_hands(run.store)) >= 1, "a first hand")
            while len(taken) < 3 or len(finished_hands(run.store)) < 3:  # mid-hand included
                assert not task.done(), "the table stopped playing"
                before = len(finished_hands(run.store))
                done = await asyncio.to_thread(_backup, toml, copies)
                assert done.returncode == 0, done.stderr
                taken.append((before, Path(done.stdout.strip())))
            stop.set()
            await asyncio.wait_for(task, GUARD)
        return taken

    taken = asyncio.run(main())
    for before, path in taken:
        assert path.parent == copies and path.is_file()
        assert not Path(f"{path}-wal").exists()  # one self-contained file
        store = EventStore.open(f"sqlite:///{path}", migrate=False)
        try:
            hands = finished_hands(store)
            assert len(hands) >= before
            for stored in hands:
                refold(stored)
        finally:
            store.close()
    # An existing file is never overwritten.
    again = _backup(toml, taken[0][1])
    assert again.returncode == 1 and "exists" in again.stderr
