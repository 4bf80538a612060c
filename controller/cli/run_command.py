"""``run`` in the ``mjtable`` group: the command line's framework hands its arguments over
unparsed to ``controller.cli.run``, which parses them (``mjtable run`` itself goes there
directly from ``controller.cli.main``, without this module)."""

from __future__ import annotations

import typer

from controller.cli.run import SUMMARY

cli = typer.Typer(add_completion=False)


@cli.command(
    help=f"{SUMMARY} Options: mjtable run --help.",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    add_help_option=False,
)
def run(ctx: typer.Context) -> None:
    from controller.cli.run import main

    raise typer.Exit(main(ctx.args))
