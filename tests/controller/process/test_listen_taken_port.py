"""A web port another process holds (a hub on a table's box, a second service) ends the
table service and the hub at once with a non-zero status and one JSON line saying why:
systemd then sees a failed start instead of a process that never says READY."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.controller.mosquitto import Mosquitto


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.create_server(("127.0.0.1", 0)) as held:
        yield held.getsockname()[1]


def _json_lines(text: str) -> list[dict[str, object]]:
    lines = [line for line in text.splitlines() if line.strip()]
    return [json.loads(line) for line in lines]  # every line: JSON, no traceback


def _exits_1_saying_why(args: list[str], env: dict[str, str], cwd: Path, port: int) -> None:
    env = {k: v for k, v in env.items() if k != "NOTIFY_SOCKET"}
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    lines = _json_lines(done.stdout + done.stderr)
    (error,) = [line for line in lines if line["event"] == "cannot serve"]
    assert f"127.0.0.1:{port}" in str(error["why"])


def test_the_table_service_exits_1_when_its_web_port_is_taken(
    taken_port: int, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "MJTABLE_DATA_DIR": str(tmp_path / "data"),
        "MJTABLE_MQTT__EMBEDDED": "false",
        "MJTABLE_MQTT__URL": mosquitto.url,
        "MJTABLE_WEB__HOST": "127.0.0.1",
        "MJTABLE_WEB__PORT": str(taken_port),
        "MJTABLE_METRICS__ENABLED": "false",
        "MJTABLE_LOG__FORMAT": "json",
    }
    _exits_1_saying_why(["run"], env, tmp_path, taken_port)


def test_the_hub_takes_its_web_port_from_the_environment_and_exits_1_when_taken(
    taken_port: int, mosquitto: Mosquitto, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "MJTABLE_HUB__STORE": f"sqlite:///{tmp_path / 'hub.db'}",
        "MJTABLE_PARLOUR": "p1",
        "MJTABLE_HUB__MQTT": mosquitto.url,
        "MJTABLE_DATA_DIR": str(tmp_path),
        "MJTABLE_HUB__HOST": "127.0.0.1",
        "MJTABLE_HUB__PORT": str(taken_port),
    }
    _exits_1_saying_why(["hub", "--log-format", "json"], env, tmp_path, taken_port)
