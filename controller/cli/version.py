from __future__ import annotations

from importlib.metadata import version as _dist_version

import typer

from controller.cli import app


@app.command()
def version() -> None:
    """Print the installed version."""
    typer.echo(_dist_version("mjtable"))
