"""The command line imports only what the command run needs.

``mjtable settle``, ``analyze`` and ``rules check`` need the engine, not the service: a
settle must not pay for FastAPI, MQTT or SQLAlchemy at start-up. The speed itself is
measured by ``bench/cli.py``; this checks the cause (what is imported).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from controller.cli import app
from controller.cli.commands import COMMANDS

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "docs" / "examples" / "xingguo-deguo-self-draw.json"
PRESET = ROOT / "engine" / "rulesets" / "presets" / "nanchang.toml"
SERVICE_ONLY = (
    "fastapi",
    "starlette",
    "aiomqtt",
    "amqtt",
    "sqlalchemy",
    "uvicorn",
    "alembic",
    "structlog",
)


def imported(*args: str) -> set[str]:
    """Top-level packages a ``mjtable`` command imports (``python -X importtime``)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "controller.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    names = set()
    for line in run.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


@pytest.mark.parametrize(
    "args",
    [
        ["settle", str(EXAMPLE)],
        ["analyze", "123m 456p 789s EEE 5m 6m", "--indicator", "5m", "--json"],
        ["analyze", "123m 456p 789s EEE 5m 6m"],
        ["rules", "check", str(PRESET)],
    ],
    ids=["settle", "analyze-json", "analyze", "rules-check"],
)
def test_engine_commands_import_no_service(args: list[str]) -> None:
    names = imported(*args)
    assert "engine.rulesets" in names  # the check sees the imports at all
    leaked = {n for n in names if n.split(".")[0] in SERVICE_ONLY}
    leaked |= {n for n in names if n.startswith(("controller.web", "controller.store"))}
    assert not leaked, sorted(leaked)


def test_help_lists_every_command() -> None:
    r = CliRunner().invoke(app, ["--help"])
    assert r.exit_code == 0, r.output
    for name in COMMANDS:
        assert name in r.output


def test_unknown_command_is_refused() -> None:
    r = CliRunner().invoke(app, ["setle", "x.json"])
    assert r.exit_code == 2
    assert "settle" in r.output  # the suggestion
