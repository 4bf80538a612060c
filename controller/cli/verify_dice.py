"""``mjtable verify-dice``: check every roll of a hand against its dice commitment.

Reads an event log (JSON lines, one or more hands, as ``mjtable replay`` does), a hub
handlog (one JSON object with ``events``: the table, session and hand number it names are
checked against the commitment too), or a hand from the store (``--hand ID``). Exit 0:
every hand's rolls derive from its committed seed; 1: a hand failed (each problem said);
2: the input could not be read. What this proves: docs/fairness.md.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from controller.cli.json_input import MAX_CHARS, bounded_lines, loads
from controller.cli.owner import ConfigOpt, StoreOpt
from controller.cli.owner import _store as open_store
from controller.json_bounds import JsonBoundsError
from controller.store import UnknownHand
from controller.table.dice import DiceCheck, check_dice
from controller.words import say
from controller.words.refusals import phrase
from engine.round import CorruptLog, event_from_dict
from engine.round.events import Event
from engine.round.replay import split_hands

cli = typer.Typer(add_completion=False)


def _fail(key: str, **params: Any) -> NoReturn:
    said = say(key, **params)
    typer.echo(say("dice.error", zh=said.zh, en=said.en).line(), err=True)
    raise typer.Exit(2)


def _events(dicts: list[Any], where: str) -> list[Event]:
    out = []
    for n, data in enumerate(dicts):
        if not isinstance(data, dict):
            _fail("dice.unreadable", n=n)
        try:
            out.append(event_from_dict(data))
        except CorruptLog as err:
            _fail("dice.bad_event", n=n, why=f"{where}: {err}")
    return out


def _read(path: Path) -> list[tuple[list[Event], dict[str, Any] | None]]:
    """(events, what the log says of itself) per hand in the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        _fail("dice.cannot_read", path=path, why=err.strerror)
    except UnicodeDecodeError:
        _fail("dice.not_utf8", path=path)
    stripped = text.strip()
    if stripped.startswith("{") and '"events"' in stripped[:MAX_CHARS]:
        try:
            doc = loads(stripped)
        except JsonBoundsError as err:
            _fail("dice.bad_json", path=path, why=err)
        if isinstance(doc, dict) and isinstance(doc.get("events"), list):
            context = {k: doc.get(k) for k in ("table", "session_id", "hand_no")}
            return [(_events(doc["events"], str(path)), context)]
    dicts: list[Any] = []
    for n, line in enumerate(bounded_lines(io.StringIO(text)), start=1):
        if line is None:
            _fail("dice.too_long", path=path, n=n, max=MAX_CHARS)
        if not line.strip():
            continue
        try:
            dicts.append(loads(line))
        except JsonBoundsError as err:
            _fail("dice.bad_json", path=f"{path}:{n}", why=err)
    events = _events(dicts, str(path))
    if not events:
        _fail("dice.empty", path=path)
    return [(hand, None) for hand in split_hands(events)]


def _report(label: str, verdict: DiceCheck) -> None:
    """The verdict, Chinese first with the English beside each line."""
    typer.echo(label)
    head = {True: "dice.ok", False: "dice.failed", None: "dice.unchecked"}[verdict.ok]
    typer.echo(f"  {say(head, n=verdict.rolls).line()}")
    for key, found in [("dice.problem", p) for p in verdict.problems] + [
        ("dice.note", n) for n in verdict.notes
    ]:
        words = phrase(found)
        typer.echo(f"    {say(key, zh=words.zh, en=words.en).line()}")


@cli.command("verify-dice")
def verify_dice(
    log: Annotated[
        Path | None,
        typer.Argument(help="An event log (JSON lines) or a hub handlog (JSON)."),
    ] = None,
    hand: Annotated[
        str | None, typer.Option("--hand", help="A hand id in the store, instead of a file.")
    ] = None,
    config: ConfigOpt = None,
    store: StoreOpt = None,
    strict: Annotated[bool, typer.Option(help="A hand without a commitment fails too.")] = False,
) -> None:
    """Check every roll of each hand against its SHA-256 dice commitment."""
    hands: list[tuple[str, list[Event], dict[str, Any] | None]] = []
    if hand is not None:
        opened = open_store(config, store)
        try:
            stored = opened.load_hand(hand)
        except UnknownHand:
            _fail("dice.no_hand", hand=hand)
        finally:
            opened.close()
        own = {"hand_no": stored.hand.hand_no, "session_id": stored.hand.session_id}
        hands.append((f"hand {hand}", _events(list(stored.event_dicts()), hand), own))
    elif log is not None:
        for n, (events, said) in enumerate(_read(log), start=1):
            hands.append((f"{log} hand {n}", events, said))
    else:
        _fail("dice.no_input")
    bad = 0
    for label, events, context in hands:
        verdict = check_dice(events, context)
        _report(label, verdict)
        if verdict.ok is False or (strict and verdict.ok is None):
            bad += 1
    if bad:
        raise typer.Exit(1)
