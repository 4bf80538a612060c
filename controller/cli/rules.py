"""``mjtable rules``: list, show and check ruleset presets (owners copy and edit them)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated

import typer

from engine.rulesets import PresetError, builtin_ids, builtin_preset_text, load_ruleset
from engine.rulesets.registry import ruleset_from_data

cli = typer.Typer(
    help="Ruleset presets: list, show (to copy), check an edited copy.", add_completion=False
)


@cli.command("list")
def list_rules() -> None:
    """The built-in rulesets."""
    for ruleset_id in builtin_ids():
        preset = load_ruleset(ruleset_id).preset
        typer.echo(f"{ruleset_id:10} {preset.name}  {preset.description}")


@cli.command("show")
def show(ruleset_id: Annotated[str, typer.Argument(help="e.g. xingguo")]) -> None:
    """Print a built-in preset (TOML): redirect it to a file, edit, then `rules check`."""
    try:
        typer.echo(builtin_preset_text(ruleset_id), nl=False)
    except PresetError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None


@cli.command("check")
def check(file: Annotated[Path, typer.Argument(help="An edited preset (TOML).")]) -> None:
    """Validate an owner's preset; errors name the field."""
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
        ruleset = ruleset_from_data(data)
    except (OSError, tomllib.TOMLDecodeError, PresetError) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"ok: {ruleset.id} ({ruleset.preset.family} family)")
