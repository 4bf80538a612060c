"""``mjtable run --config table.toml``: the table service.

It connects to the table board and the readers (serial URLs from the settings), GPIO,
the MQTT broker and the store, serves the web app when it is installed, and keeps hands
until stopped (SIGTERM from systemd, or Ctrl-C). With ``hardware.virtual = true`` the
virtual table and four bots play instead of people (see ``mjtable demo``).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from controller.config import ConfigError, load_config
from controller.logs import bind_table, configure_logging
from controller.runtime import RunOptions, serve

cli = typer.Typer(add_completion=False)


def _ready(as_json: bool) -> Any:
    def say(info: dict[str, Any]) -> None:
        if as_json:
            typer.echo(json.dumps(info, ensure_ascii=False))
        else:
            for key, value in info.items():
                if value is not None:
                    typer.echo(f"{key}: {value}")

    return say


@cli.command()
def run(
    config: Annotated[
        Path | None, typer.Option(help="Settings (TOML); MJTABLE_* overrides.")
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help="Derive the dice from this seed (tests, demos); default: secrets."),
    ] = None,
    hands: Annotated[
        int | None, typer.Option(min=1, help="Stop after this many hands (default: never).")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Say where to look as one JSON line on stdout.")
    ] = False,
) -> None:
    """Run the table service: table board, readers, GPIO, store, MQTT and the web app."""
    try:
        settings = load_config(config)
    except ConfigError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    configure_logging(settings.log.level, settings.log.format)
    bind_table(settings.parlour, settings.table)
    opts = RunOptions(seed=seed, hands=hands, ready=_ready(as_json))
    raise typer.Exit(asyncio.run(serve(settings, opts)))


if __name__ == "__main__":  # `python -m controller.cli.run`: the service without the other commands
    cli()
