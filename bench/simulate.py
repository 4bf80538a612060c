"""Complete hands per second per core with four bots, for xingguo and guangdong.

Baselines measured in the same run:
- the 200 hands/s per core target (ratio ≥ 1 meets it);
- fold-only: re-folding the very same logs (the engine's bookkeeping without any
  decisions), which shows how much of a hand is the engine and how much the bots.
Then cProfile of one run: where the time goes, top functions by cumulative time.

    .venv/bin/python bench/simulate.py            # full run
    .venv/bin/python bench/simulate.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import cProfile
import io
import platform
import pstats
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.round import fold
from engine.round.events import Event
from engine.simulation import play_session

TARGET = 200.0
RULESETS = ("xingguo", "guangdong")


def run(ruleset: str, hands: int, seed: int) -> tuple[float, list[list[Event]]]:
    # CPU time of this process: "per core", and steady when other jobs share the machine
    start = time.process_time()
    logs = [r.log for r in play_session(ruleset, hands, random.Random(seed))]
    return time.process_time() - start, logs


def refold(logs: list[list[Event]]) -> float:
    start = time.process_time()
    for log in logs:
        fold(log)
    return time.process_time() - start


def profile(ruleset: str, hands: int, top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for _ in play_session(ruleset, hands, random.Random(1)):
        pass
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out).strip_dirs().sort_stats("cumulative")
    stats.print_stats(top)
    lines = out.getvalue().splitlines()
    body = [ln for ln in lines if ln.strip()]
    start = next(i for i, ln in enumerate(body) if ln.lstrip().startswith("ncalls"))
    return "\n".join(body[start:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run")
    parser.add_argument("--hands", type=int, default=0)
    args = parser.parse_args()
    hands = args.hands or (30 if args.quick else 300)
    print(f"python {platform.python_version()} on {platform.machine()}, one core")
    print(f"{hands} hands per ruleset after a warm-up of {hands // 5 or 1}; CPU time")
    for ruleset in RULESETS:
        run(ruleset, hands // 5 or 1, 12345)  # warm the memoised analysis tables
        elapsed, logs = run(ruleset, hands, 2024)
        rate = hands / elapsed
        folding = refold(logs)
        events = sum(len(log) for log in logs)
        print(
            f"{ruleset:10s} {rate:7.1f} hands/s  ({elapsed / hands * 1e3:.2f} ms/hand, "
            f"{events / hands:.0f} events/hand)"
        )
        print(f"{'':10s} vs {TARGET:.0f} hands/s target: ×{rate / TARGET:.2f}")
        print(
            f"{'':10s} fold-only (the same logs re-folded): {hands / folding:.0f} hands/s; "
            f"the engine's fold is {folding / elapsed:.1%} of a played hand"
        )
    print()
    ruleset = RULESETS[0]
    n = max(10, hands // 5)
    print(f"where the time goes: cProfile, {ruleset}, {n} hands, top by cumulative time")
    print(profile(ruleset, n, 25))


if __name__ == "__main__":
    main()
