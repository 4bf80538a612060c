"""Benchmark of engine.analysis against the mahjong package.

Run: ``.venv/bin/python bench/analysis.py`` (``--quick`` for a smoke run).

Times are medians over batches of calls (a per-call timer would dominate a 3 µs call).
The last line is ``analysis: speedup over mahjong = X.XX`` (their median time per check
divided by ours) for scripts to read.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mahjong.agari import Agari

from engine.analysis import analyze, clear_tables, is_win, shanten, table_sizes, waits
from engine.tiles import successor

BATCH = 50


def winning_hand(rng: random.Random) -> list[int]:
    """4 random sets + a pair, at most four of a kind."""
    while True:
        c = [0] * 34
        for _ in range(4):
            if rng.random() < 0.6:
                s = rng.randrange(3) * 9 + rng.randrange(7)
                for d in range(3):
                    c[s + d] += 1
            else:
                c[rng.randrange(34)] += 3
        c[rng.randrange(34)] += 2
        if max(c) <= 4:
            return c


def to_mahjong34(c: Sequence[int]) -> list[int]:
    # ours ends 中 发 白, theirs 白 发 中
    out = list(c)
    out[31], out[33] = c[33], c[31]
    return out


def with_wildcards(rng: random.Random, c: list[int], n: int) -> tuple[list[int], frozenset[int]]:
    """Replace n tiles by jing (正精 and its 副精, kinds the hand does not hold)."""
    while True:
        zheng = rng.randrange(34)
        fu = successor(zheng)
        if not c[zheng] and not c[fu]:
            break
    kinds = [k for k in range(34) for _ in range(c[k])]
    for j in rng.sample(range(len(kinds)), n):
        kinds[j] = rng.choice((zheng, fu))
    out = [0] * 34
    for k in kinds:
        out[k] += 1
    return out, frozenset({zheng, fu})


def median_us(items: Sequence[object], call: Callable[[object], object]) -> float:
    """Median over batches of the mean time per call, in µs."""
    per: list[float] = []
    clock = time.perf_counter
    for i in range(0, len(items) - BATCH + 1, BATCH):
        chunk = items[i : i + BATCH]
        t0 = clock()
        for x in chunk:
            call(x)
        per.append((clock() - t0) / len(chunk) * 1e6)
    return statistics.median(per)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="2,000 hands instead of 20,000")
    ap.add_argument("--seed", type=int, default=20240501)
    args = ap.parse_args()
    n_hands = 2_000 if args.quick else 20_000
    rng = random.Random(args.seed)
    hands = [winning_hand(rng) for _ in range(n_hands)]
    theirs_hands = [to_mahjong34(h) for h in hands]
    print(f"hands: {n_hands} winning standard hands, seed {args.seed}")

    # tables fill lazily; the cold pass over every hand is the start-up cost
    clear_tables()
    t0 = time.perf_counter()
    assert all(is_win(h) for h in hands)
    cold = time.perf_counter() - t0
    sizes = {k: v for k, v in table_sizes().items() if v}
    print(f"table build (cold pass, lazy fill): {cold * 1e3:.0f} ms, keys {sizes}")

    agari = Agari()
    assert all(agari.is_agari(h) for h in theirs_hands)
    theirs = median_us(theirs_hands, lambda h: agari.is_agari(h))  # type: ignore[arg-type]
    ours = median_us(hands, lambda h: is_win(h))  # type: ignore[arg-type]
    print(f"is_win, no wildcards:       ours {ours:6.2f} µs   mahjong {theirs:6.2f} µs")

    wild_times: dict[int, float] = {}
    for n in (0, 1, 2, 4, 7):
        cases = [with_wildcards(rng, h, n) for h in hands]
        assert all(is_win(c, w) for c, w in cases)
        wild_times[n] = median_us(cases, lambda cw: is_win(*cw))  # type: ignore[misc]
        print(f"is_win, {n} wildcards:        ours {wild_times[n]:6.2f} µs")
    print(f"7 wildcards / none: {wild_times[7] / wild_times[0]:.2f}x")

    wait_times: list[float] = []
    n_wait = max(BATCH * 4, n_hands // 4)
    for n in range(8):
        cases13: list[tuple[list[int], frozenset[int]]] = []
        for h in hands[:n_wait]:
            c, w = with_wildcards(rng, h, n)
            kinds = [k for k in range(34) for _ in range(c[k])]
            kinds.pop(rng.randrange(14))
            cases13.append((kinds, w))
        t_cold = median_us(cases13, lambda cw: waits(cw[0], (), cw[1]))  # type: ignore[index]
        t = median_us(cases13, lambda cw: waits(cw[0], (), cw[1]))  # type: ignore[index]
        wait_times.append(t)
        print(
            f"waits, 13 tiles, {n} wildcards: {t:7.1f} µs"
            f"   (first pass, tables filling: {t_cold:.1f} µs)"
        )
    print(f"waits median over 0–7 wildcards: {statistics.median(wait_times):.1f} µs")

    sample = hands[: max(BATCH * 4, n_hands // 10)]
    sh = median_us(
        sample,
        lambda h: shanten([k for k in range(34) for _ in range(h[k])][:13]),  # type: ignore[index]
    )
    print(f"shanten, 13 tiles:          {sh:7.1f} µs")
    for n in (0, 2, 4):
        cases = [with_wildcards(rng, h, n) for h in sample]
        t = median_us(
            cases,
            lambda cw: analyze(
                [k for k in range(34) for _ in range(cw[0][k])],  # type: ignore[index]
                wild=cw[1],  # type: ignore[index]
            ),
        )
        print(f"analyze, {n} wildcards:       {t:7.1f} µs")

    print("targets: >= 2x mahjong; 7 wildcards within 2x of none; waits <= 100 µs")
    print(f"analysis: speedup over mahjong = {theirs / ours:.2f}")


if __name__ == "__main__":
    main()
