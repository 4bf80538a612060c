"""``mjtable settle FILE.json``: settle a finished hand (a contract; keep the names)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from controller.cli.json_input import dumps_line, loads, read_bounded
from controller.cli.rules import read_preset
from controller.json_bounds import JsonBoundsError
from engine.rulesets import PresetError, settle_request, settlement_needs
from engine.settlement import SettleInputError
from engine.settlement.needs import RESULT_KINDS, ResultKind

cli = typer.Typer(add_completion=False)


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def settle_data(data: Any, preset: Path | None = None) -> dict[str, Any]:
    """Settle one request object; raises SettleInputError or PresetError."""
    if not isinstance(data, dict):
        raise SettleInputError("input: expected a JSON object")
    return settle_request(data, None if preset is None else read_preset(preset)).as_dict()


def needs_data(ruleset: str, kind: str | None, preset: Path | None = None) -> dict[str, Any]:
    """What each result kind (or ``kind``) needs entered under ``ruleset``."""
    kinds: tuple[ResultKind, ...] = RESULT_KINDS
    if kind is not None:
        if kind not in RESULT_KINDS:
            raise SettleInputError(f"kind: one of {', '.join(RESULT_KINDS)}")
        kinds = tuple(k for k in RESULT_KINDS if k == kind)
    data = None if preset is None else read_preset(preset)
    return {k: settlement_needs(ruleset, k, preset=data).as_dict() for k in kinds}


HELP = (
    "Settle a finished hand: itemised lines, nets, who deals next (JSON on stdout).\n\n"
    'A seat that did not win may be partial, {"partial": true, "hand": "5s5s6s", '
    '"melds": [...], "kongs": ["kong_concealed"]}: only what the settlement reads of it '
    "(see --needs): its counted 精 as tiles (in hand, melds or discards alike), its kongs of "
    "a counted kind as melds, its other kongs by type, and the melds that claimed a 精 from "
    "a discard where that is priced. It settles as the whole seat it stands for; anything "
    "else it gives is refused."
)


@cli.command(help=HELP)
def settle(
    file: Annotated[
        str | None, typer.Argument(help="A finished hand as JSON, or - for stdin.")
    ] = None,
    preset: Annotated[
        Path | None,
        typer.Option(help="An owner's preset file (TOML) to use instead of the built-in one."),
    ] = None,
    needs: Annotated[
        str | None,
        typer.Option(
            metavar="RULESET",
            help="Print what a result needs entered under RULESET instead of settling: "
            "the winner's hand, and per other seat the 精 it holds, its kongs, the melds "
            "that claimed a 精 (JSON; confirm_only: a 流局 that settles nothing).",
        ),
    ] = None,
    kind: Annotated[
        str | None,
        typer.Option(help="With --needs: self_draw, discard or exhausted (default: all)."),
    ] = None,
) -> None:
    if needs is not None:
        try:
            typer.echo(dumps_line(needs_data(needs, kind, preset)))
        except (SettleInputError, PresetError) as err:
            _fail(str(err))
        return
    if file is None:
        _fail("give a FILE (or - for stdin), or --needs RULESET")
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
