"""``mjtable backup DEST [--config F]``: a consistent copy of the table's store, taken while
the service runs (SQLite's online backup API: the WAL's commits included)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy.engine import make_url

from controller.config import ConfigError, load_config
from controller.store.backup import BackupError, backup_sqlite

cli = typer.Typer(add_completion=False)


@cli.command()
def backup(
    dest: Annotated[Path, typer.Argument(help="A new file, or a folder for a dated copy.")],
    config: Annotated[
        Path | None, typer.Option("--config", help="Settings (TOML); MJTABLE_* overrides.")
    ] = None,
) -> None:
    """Copy the table's store (a running service goes on writing); prints the copy's path."""
    try:
        settings = load_config(config)
    except ConfigError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    url = make_url(settings.store_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        typer.echo("error: not a SQLite file store (back PostgreSQL up with pg_dump)", err=True)
        raise typer.Exit(2)
    try:
        copy = backup_sqlite(Path(url.database or ""), dest)
    except (BackupError, sqlite3.Error, OSError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
    typer.echo(str(copy))
