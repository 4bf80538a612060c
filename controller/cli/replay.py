"""``mjtable replay LOG``: re-fold a saved event log, step by step, and check the settlement."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer

from controller.cli.json_input import MAX_CHARS, bounded_lines, loads
from controller.cli.options import Lang, Language
from controller.json_bounds import JsonBoundsError
from engine.round import CorruptLog, event_from_dict
from engine.round.events import Event, StaffAct, amount_out
from engine.round.narration import Lang as Words
from engine.round.narration import owner_text, seat_name
from engine.round.replay import check, split_hands, steps
from engine.round.staff import session_totals
from engine.settlement import Amount

cli = typer.Typer(add_completion=False)


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _read(path: Path) -> list[Event]:
    events: list[Event] = []
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(bounded_lines(f), start=1):
            if line is None:
                _fail(f"{path}:{n}: longer than {MAX_CHARS} characters")
            if not line.strip():
                continue
            try:
                data = loads(line)
                if not isinstance(data, dict):
                    _fail(f"{path}:{n}: expected a JSON object")
                events.append(event_from_dict(data))
            except (JsonBoundsError, CorruptLog) as err:
                _fail(f"{path}:{n}: {err}")
    if not events:
        _fail(f"{path}: no events (an empty log)")
    return events


@cli.command()
def replay(
    log: Annotated[Path, typer.Argument(help="An event log (JSON lines), one or more hands.")],
    quiet: Annotated[bool, typer.Option(help="Only each hand's settlement.")] = False,
    lang: Language = Lang.zh,
) -> None:
    """Re-fold a hand log: print each step and the settlement; exit 1 if it does not match."""
    words: Words = "en" if lang is Lang.en else "zh"
    try:
        events = _read(log)
    except OSError as err:
        _fail(f"cannot read {log}: {err.strerror}")
    except UnicodeDecodeError:
        _fail(f"{log}: not UTF-8 text")
    bad = 0
    for hand in split_hands(events):
        state = None
        try:
            for n, (event, after) in enumerate(steps(hand)):
                state = after
                if isinstance(event, StaffAct):  # an act of a person: with its time
                    typer.echo(f"{n:4d}  {event.at}  {owner_text(event, words)}")
                elif not quiet or event.type in ("hand_started", "settled"):
                    typer.echo(f"{n:4d}  {owner_text(event, words)}")
        except CorruptLog as err:
            _fail(str(err))
        assert state is not None
        if state.settlement is not None and not quiet:
            for line in state.settlement.lines:
                payer, payee = seat_name(line.payer, words), seat_name(line.payee, words)
                typer.echo(f"      {payer} -> {payee}  {line.amount}  {line.reason}")
        problem = check(state)
        if problem is not None:
            bad += 1
            typer.echo(f"      MISMATCH: {problem}")
        else:
            typer.echo("      replay: settlement matches")
    _say_totals(events, words)
    if bad:
        raise typer.Exit(1)


def _say_totals(events: list[Event], lang: Words) -> None:
    """The log's totals per seat, penalties, adjustments and voids included (the one
    recount every live total agrees with), and how many of its acts were people's."""
    try:
        totals = session_totals(events)
    except ValueError as err:  # a void that takes off what the hand never stood at
        typer.echo(f"      MISMATCH: {err}")
        raise typer.Exit(1) from None
    acts = sum(isinstance(e, StaffAct) for e in events)
    seats = "  ".join(f"{seat_name(s, lang)} {_signed(n)}" for s, n in enumerate(totals))
    if lang == "zh":
        typer.echo(f"累计（含工作人员操作 {acts} 次）：{seats}")
    else:
        typer.echo(f"totals (with {acts} staff acts): {seats}")


def _signed(n: Amount) -> str:
    text = str(amount_out(n))  # (a fraction as 7/2)
    return text if text.startswith("-") else f"+{text}"
