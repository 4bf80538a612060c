"""``mjtable run`` parses its own options (``controller.cli.run``, argparse: the service
never loads typer): the same command whether typed or reached through the group."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from controller.cli import app


def mjtable(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_help_lists_the_options() -> None:
    done = mjtable("run", "--help")
    assert done.returncode == 0, done.stderr
    for option in ("--config", "--seed", "--hands", "--json"):
        assert option in done.stdout


def test_bad_options_exit_2_and_name_the_option() -> None:
    done = mjtable("run", "--hands", "0")
    assert done.returncode == 2
    assert "--hands" in done.stderr and "0 is not >= 1" in done.stderr
    done = mjtable("run", "--seed", "x")
    assert done.returncode == 2 and "--seed" in done.stderr
    done = mjtable("run", "--bogus")
    assert done.returncode == 2 and "--bogus" in done.stderr


def test_bad_settings_exit_2_with_the_reason(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text("[mqtt\n")
    done = mjtable("run", "--config", str(config))
    assert done.returncode == 2
    assert done.stderr.startswith("error:") and "Traceback" not in done.stderr


def test_the_group_lists_run_and_hands_it_its_arguments() -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["--help"])
    assert listed.exit_code == 0 and "run" in listed.output
    assert "Run the table service" in listed.output
    done = runner.invoke(app, ["run", "--hands", "0"])
    assert done.exit_code == 2
