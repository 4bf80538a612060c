"""Complete hands per second per core with four bots, for xingguo and guangdong.

Steady state: the memoised tables (suit tables, the bots' section memos, analyze's
section enumerations) fill lazily, so each ruleset first plays a warm-up as long as the
measured run (other seeds); the keys the tables still gain during the measured run are
printed, to show how far from settled they are. The measured hands are played in
``ROUNDS`` rounds, the rulesets taking turns and every round on new seeds, and the whole
measured run is played ``PLAYS`` times over, each in a fork of the warmed-up process: the
same hands from the same tables every time. The rate printed takes each round at its
fastest play (timeit's reasoning: the work is identical, so a slower play measures
whatever else had the core). On a shared machine that is needed: the same hands from the
same state run up to twice as slow in a busy spell of the host, for seconds at a time, and
the whole plays' slowest-to-fastest spread and median are printed beside the rate to show
it. Cold start is measured and printed on its own: the first hands after every table is
cleared, and what they cost over the same hands played warm.

Baselines measured in the same run:
- the 200 hands/s per core target (ratio ≥ 1 meets it);
- fold-only: re-folding the very same logs (the engine's bookkeeping without any
  decisions; the fastest of as many folds as plays), which shows how much of a hand is
  the engine and how much the bots.
Deeper in a long run: the tables keep filling for thousands of hands (a bot's hands meet
new section keys and splits), so the same measurement is repeated on new seeds after
``--deep`` more hands (default 2000), to show what the lazily filled tables still cost
at the standard warm-up. Even the fastest play moves from run to run when the host stays
busy through all of them: compare several runs.
Where the time goes, per ruleset: first the share of each part of a hand (a clock around
each call ``play_hand`` makes: the bots' turns, their answers to others' discards, the
engine's apply, the fold, the table's shuffle and dice; within them, the bots' full check
of a win and the engine's settlement), then cProfile's top functions by cumulative time.

    .venv/bin/python bench/simulate.py            # full run
    .venv/bin/python bench/simulate.py --quick    # smoke run
    .venv/bin/python bench/simulate.py --deep 0   # without the deeper measurement
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import multiprocessing
import platform
import pstats
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import bot_eval, bots, simulation
from engine.analysis import clear_tables, table_sizes
from engine.analysis.standard import clear_section_runs
from engine.round import fold, rules
from engine.round.events import Event
from engine.round.finish import clear_finished_hands
from engine.rulesets import base
from engine.simulation import play_session

TARGET = 200.0
RULESETS = ("xingguo", "guangdong")
ROUNDS = 5
PLAYS = 5
T = TypeVar("T")


def run(
    ruleset: str, hands: int, seed: int, clock: Callable[[], float] = time.process_time
) -> float:
    """CPU seconds (of this process: "per core", and steady when other jobs share the
    machine) to play ``hands`` hands, keeping nothing, as ``mjtable simulate`` does; or
    seconds by ``clock``."""
    start = clock()
    for _ in play_session(ruleset, hands, random.Random(seed)):
        pass
    return clock() - start


class Rounds:
    """One ruleset's measured rounds over every play: CPU seconds of each round in each
    play, its hands, and the keys the tables gained during a play."""

    def __init__(self, hands: list[int]) -> None:
        self.hands = hands
        self.plays: list[list[float]] = []
        self.grown = 0

    def fastest(self) -> float:
        """Hands/s with each round at its fastest play: the same hands from the same
        state, so a slower play only says that something else had the core."""
        best: list[float] = [min(times) for times in zip(*self.plays, strict=True)]
        return sum(self.hands) / sum(best)

    def whole_plays(self) -> list[float]:
        """Hands/s of each play as a whole, slowest first."""
        return sorted(sum(self.hands) / sum(play) for play in self.plays)

    def spread(self) -> str:
        rates = self.whole_plays()
        return (
            f"the {len(rates)} plays, whole: {rates[0]:.0f}–{rates[-1]:.0f} hands/s, "
            f"median {statistics.median(rates):.0f}"
        )


def _rounds(hands: int) -> list[int]:
    return [hands // ROUNDS + (1 if r < hands % ROUNDS else 0) for r in range(ROUNDS)]


def _one_play(hands: int, seed: int) -> dict[str, tuple[list[float], int]]:
    """(in a fork) Per ruleset: the CPU seconds of each round, the keys gained. Untimed
    first, and the same in every play: a full collection, which writes to every tracked
    object and so copies the shared heap once (copy-on-write), and a few hands, which
    copy the rest of what a hand touches."""
    gc.collect()
    for ruleset in RULESETS:
        run(ruleset, 5, 31337)
    out: dict[str, tuple[list[float], int]] = {ruleset: ([], 0) for ruleset in RULESETS}
    for r, n in enumerate(_rounds(hands)):
        for ruleset in RULESETS:
            before = keys()
            seconds, grown = out[ruleset]
            seconds.append(run(ruleset, n, seed + r))
            out[ruleset] = (seconds, grown + keys() - before)
    return out


def forked(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a fork of this process: it starts from this state, tables and all,
    and what it fills dies with it."""
    with multiprocessing.get_context("fork").Pool(1) as pool:
        return pool.apply(fn, args)


def measured(warm: int, warm_seed: int, hands: int, seed: int, plays: int) -> dict[str, Rounds]:
    """Every ruleset warmed up by ``warm`` hands, then ``hands`` hands each in ``ROUNDS``
    rounds, the rulesets taking turns (round r plays seed ``seed + r``), played ``plays``
    times over, each in a fork from the same warmed-up state."""
    for ruleset in RULESETS:
        run(ruleset, warm, warm_seed)
    out = {ruleset: Rounds(_rounds(hands)) for ruleset in RULESETS}
    for _ in range(plays):
        for ruleset, (seconds, grown) in forked(_one_play, hands, seed).items():
            out[ruleset].plays.append(seconds)
            out[ruleset].grown = grown
    return out


def logs_of(ruleset: str, rounds: Rounds, seed: int) -> list[list[Event]]:
    """The logs of the hands ``measured`` played (the bots are deterministic: the same
    seed plays the same hands), for the fold-only baseline."""
    return [
        r.log
        for i, n in enumerate(rounds.hands)
        for r in play_session(ruleset, n, random.Random(seed + i))
    ]


def clear_caches() -> None:
    """Every memo the hands fill: the state a fresh process starts from."""
    clear_tables()
    clear_section_runs()
    bot_eval.clear_memos()
    base._analyze.cache_clear()
    clear_finished_hands()


def keys() -> int:
    return sum(table_sizes().values()) + sum(bot_eval.memo_sizes().values())


def cold_start(ruleset: str, hands: int) -> tuple[float, float, int]:
    """(seconds for the first ``hands`` from empty tables, seconds for the same hands
    warm, keys filled)."""
    clear_caches()
    cold = run(ruleset, hands, 777)
    filled = keys()
    # the warm replay must not find these very wins
    base._analyze.cache_clear()
    clear_finished_hands()
    warm = run(ruleset, hands, 777)
    return cold, warm, filled


def refold(logs: list[list[Event]], times: int) -> float:
    """CPU seconds to fold every log, the fastest of ``times`` (fold keeps nothing)."""
    best = float("inf")
    for _ in range(times):
        start = time.process_time()
        for log in logs:
            fold(log)
        best = min(best, time.process_time() - start)
    return best


# the parts of a hand: where play_hand (or the code it calls) looks each one up, its name
# there, and what the report calls it; the last two are inside the others
PARTS: tuple[tuple[Any, str, str], ...] = (
    (bots.Bot, "act", "the bots' own turns (draw, discard, kong, win)"),
    (bots.Bot, "answer", "the bots' answers to others' discards"),
    (simulation, "apply", "the engine's apply (checks an action, makes events)"),
    (simulation, "evolve_all", "the fold (events into the state)"),
    (simulation, "table_action", "the table: shuffle, dice, deal, flips"),
    (bots, "win_stands", "  within the bots: the full check of a win"),
    (rules, "settle", "  within apply: the settlement"),
)


Spent = defaultdict[str, float]  # seconds by part, and "calls"


def _timed(label: str, fn: Callable[..., Any], spent: Spent) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        # (the wall clock: the process clock costs a system call, several times as much,
        # and this process has its core to itself)
        start = time.perf_counter()
        try:
            return fn(*args)
        finally:
            spent[label] += time.perf_counter() - start
            spent["calls"] += 1.0

    return call


@contextmanager
def clocked(spent: Spent) -> Iterator[None]:
    """Every part of ``PARTS`` timed into ``spent`` while the block runs (and counted,
    under "calls")."""
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in PARTS]
    for owner, name, label in PARTS:
        setattr(owner, name, _timed(label, getattr(owner, name), spent))
    try:
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def clock_cost(n: int = 200_000) -> float:
    """Seconds one clocked call adds (a clocked no-op against a bare one)."""

    def noop(*args: Any) -> None:
        return None

    clocked_noop = _timed("noop", noop, defaultdict(float))
    best = [float("inf"), float("inf")]
    for _ in range(3):
        for i, fn in enumerate((noop, clocked_noop)):
            start = time.perf_counter()
            for _ in range(n):
                fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return (best[1] - best[0]) / n


def collector_share(ruleset: str, hands: int) -> float:
    """The share of ``hands`` hands (seed 99) the garbage collector takes (its callbacks)."""
    paused = [0.0]

    def watch(phase: str, info: dict[str, Any]) -> None:
        paused[0] += time.perf_counter() if phase == "stop" else -time.perf_counter()

    gc.callbacks.append(watch)
    try:
        total = _play(ruleset, hands)
    finally:
        gc.callbacks.remove(watch)
    return paused[0] / total


def _play(ruleset: str, hands: int) -> float:
    """Wall seconds for ``hands`` hands (seed 99), none of their wins known yet (the
    clocks around the parts read the wall clock too)."""
    base._analyze.cache_clear()
    clear_finished_hands()
    return run(ruleset, hands, 99, time.perf_counter)


def parts(ruleset: str, hands: int) -> str:
    """The share of a hand's time each part takes, what the clocks themselves cost, and
    the collector's share (off while the parts are clocked: a full pass, tens of ms, would
    land in whichever part it interrupts)."""
    collector = collector_share(ruleset, hands)
    spent: Spent = defaultdict(float)
    gc.collect()
    gc.disable()
    try:
        with clocked(spent):
            total = _play(ruleset, hands)
    finally:
        gc.enable()
    top = sum(spent[label] for _, _, label in PARTS if not label.startswith(" "))
    lines = [f"  {label:52s} {spent[label] / total:6.1%}" for _, _, label in PARTS]
    lines.append(f"  {'the loop of play_hand itself':52s} {(total - top) / total:6.1%}")
    calls = spent["calls"]
    lines.append(
        f"  (clocked: {calls / hands:.0f} calls a hand; the clocks cost about "
        f"{calls * clock_cost() / total:.0%} of the run)"
    )
    lines.append(f"  {'the garbage collector (off while clocking)':52s} {collector:6.1%}")
    return "\n".join(lines)


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
    parser.add_argument(
        "--deep", type=int, default=-1, help="hands played before the deeper measurement"
    )
    args = parser.parse_args()
    hands = args.hands or (30 if args.quick else 300)
    cold_n = max(5, hands // 10)
    # (the build matters: Debian's, the table's, plays 10-15 % more hands than pyenv's)
    interpreter = Path(sys.executable).resolve()
    print(f"python {platform.python_version()} ({interpreter}) on {platform.machine()}, one core")
    print(f"{hands} hands per ruleset after a warm-up of {hands} (other seeds); CPU time")
    print()
    print(f"cold start: the first {cold_n} hands after every table is cleared")
    for ruleset in RULESETS:
        cold, warm, filled = cold_start(ruleset, cold_n)
        print(
            f"{ruleset:10s} {cold_n / cold:7.1f} hands/s cold vs {cold_n / warm:.1f} warm: "
            f"filling {filled} keys costs {(cold - warm) * 1e3:.0f} ms once"
        )
    print()
    plays = 2 if args.quick else PLAYS
    print(
        f"steady state: {ROUNDS} rounds a ruleset (the rulesets take turns), played {plays} "
        "times over from the same warmed-up state; each round counts at its fastest play"
    )
    clear_caches()
    steady = measured(hands, 12345, hands, 2024, plays)
    for ruleset in RULESETS:
        rounds = steady[ruleset]
        rate = rounds.fastest()
        logs = logs_of(ruleset, rounds, 2024)
        folding = refold(logs, plays)
        events = sum(len(log) for log in logs)
        print(
            f"{ruleset:10s} {rate:7.1f} hands/s  "
            f"({1e3 / rate:.2f} ms/hand, {events / hands:.0f} events/hand)"
        )
        print(f"{'':10s} vs {TARGET:.0f} hands/s target: ×{rate / TARGET:.2f}")
        print(f"{'':10s} {rounds.spread()}: the same work, so the spread is the machine's")
        print(
            f"{'':10s} tables gained {rounds.grown} keys during a play "
            f"({rounds.grown / hands:.1f} a hand)"
        )
        print(
            f"{'':10s} fold-only (the same logs re-folded, fastest of {plays}): "
            f"{hands / folding:.0f} hands/s; the engine's fold is {folding * rate / hands:.1%} "
            "of a played hand"
        )
    deep = args.deep if args.deep >= 0 else (150 if args.quick else 2000)
    if deep:
        print()
        print(f"deeper in: after {deep} more hands of warm-up (other seeds)")
        for ruleset, rounds in measured(deep, 4242, hands, 5150, plays).items():  # new hands
            rate = rounds.fastest()
            print(
                f"{ruleset:10s} {rate:7.1f} hands/s  ({1e3 / rate:.2f} ms/hand); "
                f"×{rate / TARGET:.2f} of the target; {rounds.spread()}; "
                f"tables gained {rounds.grown / hands:.1f} keys a hand"
            )
    n = max(10, hands // 5)
    for ruleset in RULESETS:
        print()
        print(f"where the time goes: {ruleset}, {hands} hands, a clock around each part")
        print(parts(ruleset, hands))
        print(f"cProfile, {ruleset}, {n} hands, top by cumulative time")
        print(profile(ruleset, n, 22))


if __name__ == "__main__":
    main()
