"""``mjtable rules``: list, show and check ruleset presets (owners copy and edit them)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any

import typer

from engine.rulesets import PresetError, builtin_ids, builtin_preset_text, load_ruleset
from engine.rulesets.registry import ruleset_from_data

MAX_PRESET_CHARS = 1 << 16  # a built-in preset is about 2 KB


def read_preset(path: Path) -> dict[str, Any]:
    """An owner's preset file as data; any reason it cannot be read is a PresetError."""
    try:
        with path.open(encoding="utf-8") as f:
            text = f.read(MAX_PRESET_CHARS + 1)
        if len(text) > MAX_PRESET_CHARS:
            raise PresetError(f"preset: {path} is longer than {MAX_PRESET_CHARS} characters")
        return tomllib.loads(text)
    except OSError as err:
        raise PresetError(f"preset: cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise PresetError(f"preset: {path} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise PresetError(f"preset: {path}: {err}") from None
    except RecursionError:
        raise PresetError(f"preset: {path} nests too deep") from None


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
        ruleset = ruleset_from_data(read_preset(file))
    except PresetError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"ok: {ruleset.id} ({ruleset.preset.family} family)")
