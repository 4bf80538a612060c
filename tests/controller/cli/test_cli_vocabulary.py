"""One command-line vocabulary: the same option names on every command that has the idea,
and the old names of the previous release still taken, as each ``--help`` says."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from controller.cli import app
from controller.cli.run import parser

LONG_RUNNING = ("hub", "demo", "sim-table")  # and run, whose options argparse reads


def _help(command: str) -> str:
    out = CliRunner().invoke(app, [command, "--help"], terminal_width=200).output
    return re.sub(r"[\s│╭╮╰╯─]+", " ", out)  # (rich's boxes and line breaks)


@pytest.mark.parametrize("command", LONG_RUNNING)
def test_every_long_running_command_takes_log_level_and_format(command: str) -> None:
    said = _help(command)
    assert "--log-level" in said and "--log-format" in said


def test_run_takes_log_level_and_format_over_the_file() -> None:
    said = parser().format_help()
    assert "--log-level" in said and "--log-format" in said
    args = parser().parse_args(["--log-level", "debug", "--log-format", "json"])
    assert (args.log_level, args.log_format) == ("debug", "json")


def test_the_same_names_for_the_same_ideas() -> None:
    hub, demo = _help("hub"), _help("demo")
    for said in (hub, demo):
        assert "--port" in said and "--data-dir" in said
    assert "--store" in hub
    for old in ("--db", "--web-port", "--web-host"):
        assert f"({old}: its old name, kept for one release)" in hub
    assert "(--data: its old name, kept for one release)" in demo


def test_a_bad_log_level_is_refused_naming_the_option() -> None:
    r = CliRunner().invoke(app, ["sim-table", "--log-level", "loud"])
    assert r.exit_code == 2 and "--log-level" in r.output
