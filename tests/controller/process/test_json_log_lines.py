"""Under systemd (``log.format = "json"``) every line the table service writes, start-up
and the web server's included, is one JSON object: ``journalctl ... | jq`` reads the
whole journal of the unit (docs/parlour.md, "Log retention")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.process.local_ports import free_local_port
from tests.controller.mosquitto import Mosquitto


@pytest.mark.timeout(300)
def test_every_line_of_a_served_hand_is_json(mosquitto: Mosquitto, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "MJTABLE_DATA_DIR": str(tmp_path / "data"),
        "MJTABLE_HARDWARE__VIRTUAL": "true",
        "MJTABLE_MQTT__EMBEDDED": "false",
        "MJTABLE_MQTT__URL": mosquitto.url,
        "MJTABLE_WEB__HOST": "127.0.0.1",
        "MJTABLE_WEB__PORT": str(free_local_port()),
        "MJTABLE_METRICS__ENABLED": "false",
        "MJTABLE_LOG__FORMAT": "json",
        "PYTHONWARNINGS": "always",
    }
    env.pop("NOTIFY_SOCKET", None)
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "run", "--hands", "1", "--seed", "3"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    events = [json.loads(line)["event"] for line in lines]  # a plain line fails here
    assert "serving" in events  # where to look: a log line, not a print
    assert "hand settled" in events
