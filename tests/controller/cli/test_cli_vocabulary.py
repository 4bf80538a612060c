"""One command-line vocabulary: a name means one thing on every command that has the idea
(``controller.cli.options``). ``--port`` is a web app's port, a serial line a ``--device``,
the reader model ``--readers`` with one set of values, ``--lang`` Chinese by default,
``--seed`` the same seed everywhere; the names of earlier releases are gone."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import click
import pytest
import typer.main
from typer.testing import CliRunner

from controller.cli import app
from controller.cli.options import DEVICE_HELP, SEED_HELP, Lang, ReaderModel
from controller.cli.run import parser

LONG_RUNNING = ("hub", "demo", "sim-table")  # and run, whose options argparse reads
READER_MODELS = "|".join(m.value for m in ReaderModel)


@dataclass(frozen=True)
class Option:
    values: str  # as --help shows them: <ref|hf|…>, <int>
    default: object
    help: str


def _commands() -> dict[str, dict[str, Option]]:
    """Every command (a group's as "readers probe"): its options by name."""
    root: Any = typer.main.get_command(app)  # (typer's own click: duck-typed here)
    found: dict[str, dict[str, Option]] = {}

    def visit(name: str, command: Any) -> None:
        ctx = click.Context(command)
        if hasattr(command, "list_commands"):  # a group
            for sub in command.list_commands(ctx):
                visit(f"{name} {sub}", command.get_command(ctx, sub))
            return
        found[name] = {
            opt: Option(param.display_type(ctx), param.default, param.help or "")
            for param in command.params
            for opt in param.opts
            if opt.startswith("--")
        }

    ctx = click.Context(root)
    for name in root.list_commands(ctx):
        if name != "run":  # (argparse's: parser())
            visit(name, root.get_command(ctx, name))
    return found


COMMAND_OPTIONS = _commands()


def test_the_scan_reads_every_command() -> None:
    assert {"readers probe", "owner add", "staff add", "member add", "demo"} <= set(COMMAND_OPTIONS)


@pytest.mark.parametrize("command", LONG_RUNNING)
def test_every_long_running_command_takes_log_level_and_format(command: str) -> None:
    assert {"--log-level", "--log-format"} <= set(COMMAND_OPTIONS[command])


def test_run_takes_log_level_and_format_over_the_file() -> None:
    said = parser().format_help()
    assert "--log-level" in said and "--log-format" in said
    args = parser().parse_args(["--log-level", "debug", "--log-format", "json"])
    assert (args.log_level, args.log_format) == ("debug", "json")


def _having(option: str) -> dict[str, Option]:
    return {name: opts[option] for name, opts in COMMAND_OPTIONS.items() if option in opts}


def test_port_is_always_a_web_apps_port() -> None:
    ports = _having("--port")
    assert {"demo", "hub"} <= set(ports)
    for name, port in ports.items():
        assert port.help.startswith("The web app's port"), name


def test_a_serial_line_is_a_device() -> None:
    devices = _having("--device")
    assert set(devices) == {"enroll", "readers probe"}
    assert {d.help for d in devices.values() if "reader" not in d.help} <= {DEVICE_HELP}


def test_the_reader_model_is_one_option_with_one_set_of_values() -> None:
    readers = _having("--readers")
    assert set(readers) == {"demo", "sim-table", "enroll", "readers probe"}
    for name, option in readers.items():
        assert option.values == f"<{READER_MODELS}>", name
    # a model a command cannot use: refused, naming the option and what it takes
    r = CliRunner().invoke(app, ["readers", "probe", "--device", "loop://", "--readers", "ref"])
    assert r.exit_code == 2 and "--readers ref: readers probe takes a0, iso15693" in r.output
    r = CliRunner().invoke(app, ["sim-table", "--readers", "none"])
    assert r.exit_code == 2 and "--readers none: sim-table takes ref, hf, a0, iso15693" in r.output


def test_lang_is_chinese_by_default_everywhere() -> None:
    langs = _having("--lang")
    assert {"analyze", "replay"} <= set(langs)
    for name, option in langs.items():
        assert (option.values, option.default) == ("<zh|en>", Lang.zh), name


def test_seed_means_the_same_in_every_command() -> None:
    seeds = _having("--seed")
    assert {"demo", "sim-table", "simulate"} <= set(seeds)
    for name, option in seeds.items():
        assert (option.help, option.default) == (SEED_HELP, None), name
    assert re.sub(r"\s+", " ", SEED_HELP) in re.sub(r"\s+", " ", parser().format_help())


@pytest.mark.parametrize(
    "argv",
    [
        ["hub", "--db", "sqlite://"],
        ["hub", "--web-port", "1"],
        ["hub", "--web-host", "127.0.0.1"],
        ["demo", "--data", "x"],
        ["sim-table", "--codec", "ref"],
        ["enroll", "--registry", "r.json", "--reader", "loop://"],
        ["enroll", "--registry", "r.json", "--codec", "hf"],
        ["readers", "probe", "--port", "loop://", "--readers", "a0"],
    ],
    ids=lambda argv: " ".join(argv[:2]) + " " + next(a for a in argv[1:] if a.startswith("--")),
)
def test_the_old_names_are_gone(argv: list[str]) -> None:
    r = CliRunner().invoke(app, argv)
    assert r.exit_code == 2 and "No such option" in r.output


def test_no_option_promises_an_old_name() -> None:
    for name, options in COMMAND_OPTIONS.items():
        for option in options.values():
            assert "old name" not in option.help and "one release" not in option.help, name


def test_a_bad_log_level_is_refused_naming_the_option() -> None:
    r = CliRunner().invoke(app, ["sim-table", "--log-level", "loud"])
    assert r.exit_code == 2 and "--log-level" in r.output
