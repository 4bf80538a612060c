"""``mjtable broker-acl``: the parlour's Mosquitto acl_file for its tables (docs/parlour.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from controller.mqtt.broker_acl import render_acl

cli = typer.Typer(add_completion=False)


@cli.command("broker-acl")
def broker_acl(
    tables: Annotated[list[str], typer.Argument(help="Every table id of the parlour.")],
    parlour: Annotated[str, typer.Option(help="Parlour id (as in each table.toml).")],
    root: Annotated[str, typer.Option(help="MQTT topic root.")] = "mahjong",
    hub_user: Annotated[str, typer.Option(help="The hub's broker account.")] = "hub",
    out: Annotated[Path | None, typer.Option(help="Write here instead of stdout.")] = None,
) -> None:
    """Print the acl_file: table-<id> owns its subtree, display-<id> reads its public
    topics, the hub reads every handlog and acknowledges."""
    try:
        text = render_acl(parlour, tables, root=root, hub_user=hub_user)
    except ValueError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
