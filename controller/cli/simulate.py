"""``mjtable simulate``: four bots play hands under a ruleset; a summary at the end."""

from __future__ import annotations

import random
import secrets
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from controller.cli.json_input import dumps_line
from controller.cli.options import AsJson, Seed
from engine.rulesets import PresetError, builtin_ids
from engine.sim_summary import Summary
from engine.simulation import HandResult, play_session

cli = typer.Typer(add_completion=False)


def _progress(hands: int, show: bool) -> Any:
    if not show:
        return None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
    )


def _human(d: dict[str, Any]) -> str:
    n = d["hands"]
    lines = [
        f"{d['ruleset']}: {n} hands, seed {d['seed']}",
        f"  wins        {d['wins']} ({d['self_drawn']} self-drawn), 诈胡 {d['false_wins']}",
        f"  流局         {d['exhausted']} ({d['exhausted_rate']:.1%}), void {d['void']}",
        f"  德国         {d['deguo']} ({d['deguo_rate']:.1%})",
        f"  冲关         {d['chongguan']} ({d['chongguan_rate']:.1%})",
        "  shapes      " + ", ".join(f"{k} {v}" for k, v in d["shapes"].items()),
        "  nets        " + " ".join(str(x) for x in d["nets"]),
        f"  settlement  mean {d['settlement_mean']:.2f}, stdev {d['settlement_stdev']:.2f}"
        " (the largest net gain of each hand)",
        f"  speed       {d['hands_per_second']:.1f} hands/s",
    ]
    return "\n".join(lines)


@cli.command()
def simulate(
    ruleset: Annotated[str, typer.Option(help=f"One of: {', '.join(builtin_ids())}.")],
    hands: Annotated[int, typer.Option(min=1, help="How many hands to play.")] = 100,
    seed: Seed = None,
    as_json: AsJson = False,
    log: Annotated[Path | None, typer.Option(help="Write the event log (JSON lines).")] = None,
) -> None:
    """Play hands with four bots and summarise: wins by shape, 流局, 德国, 冲关, scores
    (the seed played said with them: the same --seed plays them again)."""
    if seed is None:
        seed = secrets.randbelow(1 << 30)
    if ruleset not in builtin_ids():
        typer.echo(
            f"error: ruleset: unknown {ruleset!r}; known: {', '.join(builtin_ids())}", err=True
        )
        raise typer.Exit(2)
    summary = Summary(ruleset)
    out = log.open("w", encoding="utf-8") if log is not None else None
    progress = _progress(hands, not as_json and sys.stdout.isatty())
    task = progress.add_task(ruleset, total=hands) if progress is not None else None
    start = time.perf_counter()
    try:
        if progress is not None:
            progress.start()
        result: HandResult
        for result in play_session(ruleset, hands, random.Random(seed)):
            summary.add(result.state, result.settlement)
            if out is not None:
                for event in result.log:
                    out.write(dumps_line(event.to_dict()) + "\n")
            if progress is not None and task is not None:
                progress.advance(task)
    except PresetError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    finally:
        if progress is not None:
            progress.stop()
        if out is not None:
            out.close()
    elapsed = time.perf_counter() - start
    data = summary.as_dict() | {
        "seed": seed,
        "seconds": round(elapsed, 3),
        "hands_per_second": hands / elapsed if elapsed > 0 else 0.0,
    }
    typer.echo(dumps_line(data) if as_json else _human(data))
