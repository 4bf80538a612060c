"""``mjtable settle FILE.json``: settle a finished hand (a contract; keep the names)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from controller.cli.json_input import dumps_line, loads, read_bounded
from controller.cli.rules import read_preset
from controller.json_bounds import JsonBoundsError
from engine.rulesets import PresetError, settle_request
from engine.settlement import SettleInputError

cli = typer.Typer(add_completion=False)


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def settle_data(data: Any, preset: Path | None = None) -> dict[str, Any]:
    """Settle one request object; raises SettleInputError or PresetError."""
    if not isinstance(data, dict):
        raise SettleInputError("input: expected a JSON object")
    return settle_request(data, None if preset is None else read_preset(preset)).as_dict()


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
        if file == "-":
            text = read_bounded(sys.stdin)
        else:
            with Path(file).open(encoding="utf-8") as f:
                text = read_bounded(f)
        result = settle_data(loads(text), preset)
    except OSError as err:
        _fail(f"cannot read {err.filename or file}: {err.strerror}")
    except UnicodeDecodeError:
        _fail("input: not UTF-8 text")
    except (JsonBoundsError, SettleInputError, PresetError) as err:
        _fail(str(err))
    typer.echo(dumps_line(result))
