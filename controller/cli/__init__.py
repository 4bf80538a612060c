"""The ``mjtable`` command line. Each command lives in its own module."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="mjtable",
    help="Automatic mahjong table controller: rules engine, table bridge and service.",
    no_args_is_help=True,
    add_completion=False,
)


def main() -> None:
    from controller.cli import commands  # noqa: F401  (registers the commands)

    app()
