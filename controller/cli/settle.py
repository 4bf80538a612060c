"""``mjtable settle FILE.json``: settle a finished hand (a contract; keep the names)."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Annotated, Any

import typer

from engine.rulesets import PresetError, load_ruleset, ruleset_from_data
from engine.settlement import SettleInputError, parse_finished_hand

cli = typer.Typer(add_completion=False)


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def settle_data(data: Any, preset: Path | None = None) -> dict[str, Any]:
    """Settle one request object; raises SettleInputError or PresetError."""
    if not isinstance(data, dict):
        raise SettleInputError("input: expected a JSON object")
    hand = parse_finished_hand(data)
    if preset is not None:
        preset_data = tomllib.loads(preset.read_text(encoding="utf-8"))
        ruleset = ruleset_from_data(preset_data, hand.options)
    else:
        ruleset = load_ruleset(hand.ruleset, hand.options)
    return ruleset.settle(hand).as_dict()


@cli.command()
def settle(
    file: Annotated[str, typer.Argument(help="A finished hand as JSON, or - for stdin.")],
    preset: Annotated[
        Path | None,
        typer.Option(help="An owner's preset file (TOML) to use instead of the built-in one."),
    ] = None,
) -> None:
    """Settle a finished hand: itemised lines, nets, who deals next (JSON on stdout)."""
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except OSError as err:
        _fail(f"cannot read {file}: {err.strerror}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        _fail(f"input: not JSON ({err.msg} at line {err.lineno} column {err.colno})")
    try:
        result = settle_data(data, preset)
    except (SettleInputError, PresetError) as err:
        _fail(str(err))
    except (OSError, tomllib.TOMLDecodeError) as err:
        _fail(f"preset: {err}")
    typer.echo(json.dumps(result, ensure_ascii=False))
