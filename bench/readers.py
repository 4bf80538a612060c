"""The tracker under realistic reads: whole hands through each reader model (UHF A0, HF ISC,
the reference reader), every antenna missing 5 % of tags per round (more at edges, in
stacks and on metal) and reading 2 % of tags across a zone border, weaker.

Counts false moves, lost tiles and missed moves (must all be 0) and the p99 delay from a
move to its TagIn in inventory rounds (must be <= 2). Not a timing: the figures are counts
of a seeded simulation, identical on every machine (see firmware_bridge/sim/reader_trial.py).

    .venv/bin/python bench/readers.py              # 200 hands per model
    .venv/bin/python bench/readers.py --hands 5    # smoke run

The last line is ``readers: tracker errors = N over H hands`` (all models together).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware_bridge.sim.reader_trial import MODELS, run_trial


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per reader model")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--miss", type=float, default=0.05, help="per-round miss rate")
    parser.add_argument("--border", type=float, default=0.02, help="border read rate")
    args = parser.parse_args()
    errors = hands = 0
    print(f"miss rate {args.miss:.0%} per round, border reads {args.border:.0%}, seed {args.seed}")
    print(
        f"{'model':<10} {'hands':>5} {'moves':>6} {'rounds':>7} {'false':>5} {'lost':>5} "
        f"{'missed':>6} {'p99 delay':>9} {'max':>4}"
    )
    began = time.perf_counter()
    # One process per model: each model's hands are seeded on their own, so the figures
    # are the same however the processes run.
    with ProcessPoolExecutor(len(MODELS)) as pool:
        runs = [
            pool.submit(
                run_trial,
                m,
                args.hands,
                seed=args.seed,
                miss_rate=args.miss,
                border_rate=args.border,
            )
            for m in MODELS
        ]
        results = [run.result() for run in runs]
    for model, r in zip(MODELS, results, strict=True):
        print(
            f"{model:<10} {r.hands:>5} {r.moves:>6} {r.rounds:>7} {r.false_moves:>5} "
            f"{r.lost_tiles:>5} {r.missed_moves:>6} {r.p99_delay():>9} {max(r.delays):>4}"
        )
        for example in r.examples:
            print(f"    {example}")
        errors += r.errors
        hands += r.hands
    print(f"({time.perf_counter() - began:.0f} s; p99 and max delays in inventory rounds)")
    print(f"readers: tracker errors = {errors} over {hands} hands")


if __name__ == "__main__":
    main()
