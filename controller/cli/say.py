"""``mjtable say --test`` / ``mjtable say TEXT``: the table's voice, to check the speaker.

Uses the ``[voice]`` settings (voice, volume, speed, device, player) but not its switches or
quiet hours: asked for, it speaks. ``--wav FILE`` writes the sound instead of playing it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Annotated, Any

import typer

from controller.config import ConfigError, load_config
from controller.voice.espeak import EspeakSink, render
from controller.voice.phrases import MAX_TEXT, announcements

cli = typer.Typer(add_completion=False)

# A one-hand session's call-outs, as the table publishes them (public forms only).
SAMPLE: list[tuple[str, Any]] = [
    ("events", {"event": {"type": "dice_rolled", "purpose": "break", "seat": 0, "a": 3, "b": 5}}),
    ("events", {"event": {"type": "jing_flipped", "purpose": "jing", "position": 20, "tile": 16}}),
    ("events", {"event": {"type": "punged", "seat": 1, "from_seat": 0, "tile": 9, "tiles": []}}),
    ("events", {"event": {"type": "win_declared", "seat": 2, "tile": 9, "source": "self"}}),
    ("settlement", {"net": [-4, -4, 12, -4], "void": False}),
    (
        "cashout",
        {
            "session_id": "sample",
            "players": [
                {"seat": s, "name": None, "net": n} for s, n in enumerate([-4, -4, 12, -4])
            ],
            "transfers": [{"from": s, "to": 2, "points": 4} for s in (0, 1, 3)],
        },
    ),
]


@cli.command()
def say(
    text: Annotated[str | None, typer.Argument(help="What to say (Chinese).")] = None,
    test: Annotated[bool, typer.Option("--test", help="Say a sample hand's call-outs.")] = False,
    wav: Annotated[
        Path | None, typer.Option("--wav", help="Write a WAV file instead of playing.")
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Settings (TOML); MJTABLE_* overrides.")
    ] = None,
) -> None:
    """Say TEXT, or with --test a sample of what the table says, on the table's speaker."""
    if (text is None) == (not test):
        typer.echo("error: give TEXT or --test (one of them)", err=True)
        raise typer.Exit(2)
    try:
        settings = load_config(config).voice
    except ConfigError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    texts = [a.text for a in announcements(SAMPLE)] if test else [(text or "")[:MAX_TEXT]]
    try:
        if wav is not None:
            wav.write_bytes(render(settings, "。".join(texts)))
            typer.echo(str(wav))
            return
        sink = EspeakSink(settings)
        for line in texts:
            typer.echo(line)
            sink.play(line)
    except FileNotFoundError as err:
        typer.echo(f"error: {err.filename} is not installed (docs/voice.md)", err=True)
        raise typer.Exit(1) from None
    except subprocess.CalledProcessError as err:
        why = (err.stderr or b"").decode(errors="replace").strip()
        typer.echo(f"error: {' '.join(map(str, err.cmd))} failed: {why}", err=True)
        raise typer.Exit(1) from None
    except (OSError, subprocess.TimeoutExpired) as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(1) from None
