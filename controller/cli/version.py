from __future__ import annotations

from importlib.metadata import version as _dist_version

import typer

cli = typer.Typer(add_completion=False)


@cli.command()
def version() -> None:
    """Print the installed version."""
    typer.echo(_dist_version("mjtable"))
