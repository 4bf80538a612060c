"""``mjtable replay LOG``: re-fold a saved event log, step by step, and check the settlement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from engine.round import CorruptLog, event_from_dict
from engine.round.events import Event
from engine.round.replay import check, describe, split_hands, steps

cli = typer.Typer(add_completion=False)


def _read(path: Path) -> list[Event]:
    events: list[Event] = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                events.append(event_from_dict(json.loads(line)))
            except (ValueError, TypeError) as err:
                typer.echo(f"error: {path}:{n}: {err}", err=True)
                raise typer.Exit(2) from None
    return events


@cli.command()
def replay(
    log: Annotated[Path, typer.Argument(help="An event log (JSON lines), one or more hands.")],
    quiet: Annotated[bool, typer.Option(help="Only each hand's settlement.")] = False,
) -> None:
    """Re-fold a hand log: print each step and the settlement; exit 1 if it does not match."""
    try:
        events = _read(log)
    except OSError as err:
        typer.echo(f"error: cannot read {log}: {err.strerror}", err=True)
        raise typer.Exit(2) from None
    bad = 0
    for hand in split_hands(events):
        state = None
        try:
            for n, (event, after) in enumerate(steps(hand)):
                state = after
                if not quiet or event.type in ("hand_started", "settled"):
                    typer.echo(f"{n:4d}  {describe(event)}")
        except CorruptLog as err:
            typer.echo(f"error: {err}", err=True)
            raise typer.Exit(2) from None
        assert state is not None
        if state.settlement is not None and not quiet:
            for line in state.settlement.lines:
                typer.echo(f"      {line.payer} -> {line.payee}  {line.amount}  {line.reason}")
        problem = check(state)
        if problem is not None:
            bad += 1
            typer.echo(f"      MISMATCH: {problem}")
        else:
            typer.echo("      replay: settlement matches")
    if bad:
        raise typer.Exit(1)
