from __future__ import annotations

import typer

from controller.process.software import software_version

cli = typer.Typer(add_completion=False)


@cli.command()
def version() -> None:
    """Print the installed version."""
    typer.echo(software_version())
