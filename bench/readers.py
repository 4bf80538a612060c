"""The tracker under realistic reads: whole legal hands through each reader model (UHF A0,
HF ISC, the reference reader) into the controller's tracker, every antenna missing 5 % of
tags per round (more at edges, in stacks and on metal) and reading 2 % of tags across a
zone border, weaker.

Counts false moves (a TagIn where the tile is not, or an action the tracker applied that
the players did not take), lost tiles (a TagOut where the tile still lies) and missed moves
(an action carried out on the table that the tracker never applied), which must all be 0,
and the p99 delay from a move to the tracker applying it, in inventory rounds (must be
<= 2). Also shown: moves no reader saw before the tile moved on, which the tracker had to
infer (controller/tracking/moves.py). Not a timing: the figures are counts of a seeded
simulation, identical on every machine (see controller/sim/reader_trial.py).

By default 50 hands of each of seeds 0-3 per model (200 hands per model, a few minutes on
two cores); the seeds change the tiles' ids, the walls, the play and every read.

    .venv/bin/python bench/readers.py                          # seeds 0-3, 50 hands each
    .venv/bin/python bench/readers.py --seeds 1 --model a0     # one seed, one model
    .venv/bin/python bench/readers.py --hands 5                # smoke run
    .venv/bin/python bench/readers.py --pace 1                 # players acting every round

The last line is ``readers: tracker errors = N over H hands`` (all models and seeds).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.sim.reader_trial import run_trial
from firmware_bridge.sim.reader_trial import MODELS, ROUNDS_PER_BATCH, ReaderModel, TrialResult

CHUNK = 10
"""Hands per job (jobs of one model and seed, so any number of processes gives the same
figures)."""


def _seeds(text: str) -> list[int]:
    """``0-3`` or ``0,2,5``."""
    out: list[int] = []
    for part in text.split(","):
        first, _, last = part.partition("-")
        out += range(int(first), int(last or first) + 1)
    return out


def _quiet() -> None:
    # the tracker and the dice log at info: thousands of lines a hand
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def _run(
    model: ReaderModel, hands: int, seed: int, first: int, args: argparse.Namespace
) -> TrialResult:
    _quiet()
    return run_trial(
        model,
        hands,
        seed=seed,
        first=first,
        miss_rate=args.miss,
        border_rate=args.border,
        pace=args.pace,
    )


def _row(label: str, r: TrialResult) -> str:
    return (
        f"{label:<16} {r.hands:>5} {r.moves:>6} {r.rounds:>7} {r.unseen:>6} {r.false_moves:>5} "
        f"{r.lost_tiles:>5} {r.missed_moves:>6} {r.p99_delay():>9} {max(r.delays, default=0):>4}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=50, help="hands per model and seed")
    parser.add_argument("--seeds", type=_seeds, default=_seeds("0-3"), help="e.g. 0-3 or 1,4")
    parser.add_argument("--model", choices=MODELS, action="append", help="(repeatable)")
    parser.add_argument("--miss", type=float, default=0.05, help="per-round miss rate")
    parser.add_argument("--border", type=float, default=0.02, help="border read rate")
    parser.add_argument(
        "--pace", type=int, default=ROUNDS_PER_BATCH, help="rounds between the players' moves"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    models: list[ReaderModel] = args.model or list(MODELS)
    seeds: list[int] = args.seeds
    print(
        f"miss rate {args.miss:.0%} per round, border reads {args.border:.0%}, "
        f"seeds {','.join(map(str, seeds))}, {args.hands} hands per model and seed"
        + (
            f", {args.pace} round(s) between the players' moves"
            if args.pace != ROUNDS_PER_BATCH
            else ""
        )
    )
    print(
        f"{'model/seed':<16} {'hands':>5} {'moves':>6} {'rounds':>7} {'unseen':>6} "
        f"{'false':>5} {'lost':>5} {'missed':>6} {'p99 delay':>9} {'max':>4}"
    )
    began = time.perf_counter()
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        jobs = {
            (model, seed, first): pool.submit(
                _run, model, min(CHUNK, args.hands - first), seed, first, args
            )
            for model in models
            for seed in seeds
            for first in range(0, args.hands, CHUNK)
        }
        results = {key: job.result() for key, job in jobs.items()}
    errors = hands = 0
    for model in models:
        total = TrialResult(model)
        for seed in seeds:
            by_seed = TrialResult(model)
            for (m, s, _), r in results.items():
                if (m, s) == (model, seed):
                    by_seed.add(r)
            print(_row(f"{model} seed {seed}", by_seed))
            for example in by_seed.examples:
                print(f"    {example}")
            total.add(by_seed)
        print(_row(f"{model} (all)", total))
        errors += total.errors
        hands += total.hands
    print(
        f"({time.perf_counter() - began:.0f} s; p99 and max delays in inventory rounds; "
        "unseen: moves the tracker inferred)"
    )
    print(f"readers: tracker errors = {errors} over {hands} hands")


if __name__ == "__main__":
    main()
