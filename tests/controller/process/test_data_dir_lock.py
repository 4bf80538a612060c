"""One service per data directory: a second ``mjtable run`` on the same ``data_dir`` exits
at once, naming the process that holds it; the lock goes with its holder (even kill -9)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.process.data_lock import LOCK_NAME, DataDirLocked, data_dir_lock
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import GUARD, data_dir


def _config(tmp_path: Path, data: Path, mqtt_url: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(
        f'data_dir = "{data}"\n[hardware]\nvirtual = true\n'
        f'[mqtt]\nembedded = false\nurl = "{mqtt_url}"\n'
        "[web]\nenabled = false\n[metrics]\nenabled = false\n"
    )
    return path


def _start(config: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(config), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _serving(proc: subprocess.Popen[str]) -> dict[str, object]:
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the ready line: everything listens
    assert line, f"the service ended: {proc.wait(GUARD)} {proc.stderr and proc.stderr.read()}"
    info: dict[str, object] = json.loads(line)
    return info


def test_a_second_service_on_one_data_dir_exits_at_once_naming_the_holder(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    data = data_dir(tmp_path)
    config = _config(tmp_path, data, mosquitto.url)
    first = _start(config)
    try:
        _serving(first)
        began = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
            capture_output=True,
            text=True,
            timeout=GUARD,
        )
        assert second.returncode == 1, second.stderr
        assert f"in use by process {first.pid}" in second.stderr, second.stderr
        assert "Traceback" not in second.stderr
        assert time.monotonic() - began < GUARD
        assert first.poll() is None, "the first service must keep running"
        # The holder killed outright: the kernel frees the lock, a restart takes it.
        os.kill(first.pid, signal.SIGKILL)
        first.wait(GUARD)
        third = _start(config)
        try:
            _serving(third)
            assert (data / LOCK_NAME).read_text().strip() == str(third.pid)
        finally:
            third.terminate()
            third.wait(GUARD)
    finally:
        if first.poll() is None:
            first.kill()
        first.wait(GUARD)


def test_the_lock_is_refused_in_one_process_too(tmp_path: Path) -> None:
    with (
        data_dir_lock(tmp_path),
        pytest.raises(DataDirLocked) as refused,
        data_dir_lock(tmp_path),
    ):
        pass
    assert refused.value.holder == os.getpid()
    with data_dir_lock(tmp_path):  # released on leaving
        pass


@pytest.mark.parametrize("readers", ["ref", "none"])
def test_a_demo_on_a_held_data_dir_says_so_in_one_line(tmp_path: Path, readers: str) -> None:
    data = data_dir(tmp_path)
    demo_args = ["--data-dir", str(data), "--hands", "1", "--port", "0", "--readers", readers]
    with data_dir_lock(data):
        demo = subprocess.run(
            [sys.executable, "-m", "controller.cli", "demo", *demo_args],
            capture_output=True,
            text=True,
            timeout=GUARD,
        )
    assert demo.returncode == 1, demo.stderr
    assert demo.stderr.strip() == f"error: {data} is in use by process {os.getpid()} " + (
        f"(lock {data / LOCK_NAME}): one service per data_dir"
    ), demo.stderr
    assert not (data / "mjtable.db").exists()  # nothing opened
