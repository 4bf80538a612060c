"""The fairness report: a table's dice, wins and dealer streaks against what fair play gives.

For one table over a period (the owners' hand filters), from its finished hands:

- the dice: each face (1-6) against uniform, χ² with 5 degrees of freedom; each roll's
  sum (2-12) against the two-dice triangle, χ² with 10;
- the seats' wins (won hands only) against equal shares, χ² with 3;
- the dealer: its win rate, and the streaks (hands dealt in a row by one seat): the
  longest against a geometric run length, with the keep rate estimated from the same
  hands (P[longest ≥ L] = 1 - (1 - q^(L-1))^streaks);
- where the 精 was turned up (wall positions): counted, not tested (they follow from the
  dice, which are).

A test runs only on enough data (every expected count at least 5, else it says so). An
outlier is flagged only at a stated false-alarm rate: ``ALPHA`` for the whole report,
Bonferroni-divided among its ``TESTS`` tests (each at ``ALPHA / len(TESTS)``), so a fair
table is flagged in at most 1 report in 100 whatever the data. A flag says "look at this
table", not "this table cheats" (docs/fairness.md).

The χ² survival function is written out here (``chi2_sf``, exact for whole degrees of
freedom, ``math`` only) rather than taken from SciPy: the report needs it for 3, 5 and 10
degrees of freedom, and SciPy would add some 40 MB and a second of import to the Pi for
that one function.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.store import EventStore, HandRecord
from controller.store.tables import events_for

ALPHA = 0.01
"""The report's false-alarm rate: the chance a fair table is flagged by any of its tests."""
TESTS = ("faces", "sums", "seat_wins", "dealer_streak")
ALPHA_EACH = ALPHA / len(TESTS)
MIN_EXPECTED = 5.0
SUM_WAYS = {s: 6 - abs(s - 7) for s in range(2, 13)}  # ways two dice make each sum, of 36
FACT_EVENTS = ("dice_rolled", "jing_flipped")


def chi2_sf(x: float, dof: int) -> float:
    """P[χ²(dof) ≥ x], exact for whole ``dof`` ≥ 1 (closed forms through the Poisson sum
    for even dof, erfc plus a finite sum for odd)."""
    if dof < 1:
        raise ValueError("dof must be at least 1")
    if x <= 0:
        return 1.0
    half = x / 2
    if dof % 2 == 0:
        terms = (math.exp(-half + i * math.log(half) - math.lgamma(i + 1)) for i in range(dof // 2))
        return min(1.0, sum(terms))
    tail = math.erfc(math.sqrt(half))
    terms = (
        math.exp(-half + (i - 0.5) * math.log(half) - math.lgamma(i + 0.5))
        for i in range(1, (dof - 1) // 2 + 1)
    )
    return min(1.0, tail + sum(terms))


def chi2_test(observed: Sequence[int], probs: Sequence[float]) -> tuple[float, int, float]:
    """(statistic, dof, p) of Pearson's χ² of ``observed`` counts against ``probs``."""
    n = sum(observed)
    stat = sum((o - n * p) ** 2 / (n * p) for o, p in zip(observed, probs, strict=True))
    dof = len(observed) - 1
    return stat, dof, chi2_sf(stat, dof)


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What the report reads of one finished hand."""

    dealer: int
    winner: int | None  # None: no winner (流局, void)
    rolls: tuple[tuple[str, int, int], ...]  # (purpose, a, b) in order
    flips: tuple[tuple[str, int], ...] = ()  # (purpose, wall position)
    session: str | None = None  # streaks end with their session

    @classmethod
    def of(
        cls,
        dealer: int | None,
        winner: int | None,
        events: Iterable[Mapping[str, Any]],
        session: str | None = None,
    ) -> HandFacts:
        rolls, flips = [], []
        for e in events:
            if e.get("type") == "dice_rolled":
                rolls.append((str(e["purpose"]), int(e["a"]), int(e["b"])))
            elif e.get("type") == "jing_flipped":
                flips.append((str(e["purpose"]), int(e["position"])))
        return cls(dealer or 0, winner, tuple(rolls), tuple(flips), session)


@dataclass(slots=True)
class TestResult:
    name: str
    n: int  # the sample it ran on
    statistic: float | None = None
    dof: int | None = None
    p: float | None = None
    flagged: bool = False
    note: str = ""  # why it did not run, or what it compared with

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "n": self.n,
            "statistic": self.statistic,
            "dof": self.dof,
            "p": self.p,
            "alpha": ALPHA_EACH,
            "flagged": self.flagged,
            "note": self.note,
        }


@dataclass(slots=True)
class FairnessReport:
    hands: int
    faces: list[int]  # count of each face 1-6, every die of every roll
    sums: dict[int, int]  # rolls by sum, 2-12
    seat_wins: list[int]
    won_hands: int
    dealer_wins: int
    streaks: dict[int, int]  # streak length: how many
    flips: dict[int, int]  # 精 wall position: how many
    tests: list[TestResult] = field(default_factory=list)

    @property
    def rolls(self) -> int:
        return sum(self.sums.values())

    @property
    def flagged(self) -> bool:
        return any(t.flagged for t in self.tests)

    @property
    def dealer_win_rate(self) -> float | None:
        return None if self.hands == 0 else self.dealer_wins / self.hands

    def as_dict(self) -> dict[str, Any]:
        won = self.won_hands
        return {
            "hands": self.hands,
            "rolls": self.rolls,
            "dice": sum(self.faces),
            "alpha": ALPHA,
            "alpha_each": ALPHA_EACH,
            "flagged": self.flagged,
            "faces": {str(f + 1): c for f, c in enumerate(self.faces)},
            "sums": {str(s): self.sums.get(s, 0) for s in SUM_WAYS},
            "seat_wins": self.seat_wins,
            "won_hands": won,
            "seat_win_rates": [None if won == 0 else w / won for w in self.seat_wins],
            "dealer_wins": self.dealer_wins,
            "dealer_win_rate": self.dealer_win_rate,
            "streaks": {str(k): v for k, v in sorted(self.streaks.items())},
            "flip_positions": {str(k): v for k, v in sorted(self.flips.items())},
            "flips": sum(self.flips.values()),
            "tests": [t.as_dict() for t in self.tests],
        }


def _streaks(hands: Sequence[HandFacts]) -> list[int]:
    out: list[int] = []
    prev: tuple[str | None, int] | None = None
    for h in hands:
        key = (h.session, h.dealer)
        if key == prev:
            out[-1] += 1
        else:
            out.append(1)
        prev = key
    return out


def _chi2(name: str, observed: Sequence[int], probs: Sequence[float]) -> TestResult:
    n = sum(observed)
    need = math.ceil(MIN_EXPECTED / min(probs))
    if n < need:
        return TestResult(
            name, n, note=f"样本太少，无法检验（至少需要 {need}） (too few to test: needs {need})"
        )
    stat, dof, p = chi2_test(observed, probs)
    return TestResult(name, n, stat, dof, p, p < ALPHA_EACH)


def _longest(streaks: Sequence[int]) -> TestResult:
    hands, count = sum(streaks), len(streaks)
    if count < 20:
        return TestResult(
            "dealer_streak",
            hands,
            note="连庄段数太少，无法检验（至少需要 20 段） (too few streaks to test: needs 20)",
        )
    keep = 1 - count / hands  # the geometric run length's estimate from the same hands
    longest = max(streaks)
    p = 1 - (1 - keep ** (longest - 1)) ** count
    note = (
        f"{count} 段连庄中最长 {longest} 局；连庄率 {keep:.3f}"
        f" (longest {longest} of {count} streaks; keep rate {keep:.3f})"
    )
    return TestResult("dealer_streak", hands, float(longest), None, p, p < ALPHA_EACH, note)


def report(hands: Sequence[HandFacts]) -> FairnessReport:
    """The report over ``hands`` (finished hands, in the table's order)."""
    faces = [0] * 6
    sums: Counter[int] = Counter()
    flips: Counter[int] = Counter()
    seat_wins = [0] * 4
    dealer_wins = 0
    for h in hands:
        for _, a, b in h.rolls:
            faces[a - 1] += 1
            faces[b - 1] += 1
            sums[a + b] += 1
        for _, position in h.flips:
            flips[position] += 1
        if h.winner is not None:
            seat_wins[h.winner] += 1
            dealer_wins += h.winner == h.dealer
    streaks = _streaks(hands)
    out = FairnessReport(
        hands=len(hands),
        faces=faces,
        sums=dict(sums),
        seat_wins=seat_wins,
        won_hands=sum(seat_wins),
        dealer_wins=dealer_wins,
        streaks=dict(Counter(streaks)),
        flips=dict(flips),
    )
    out.tests = [
        _chi2("faces", faces, [1 / 6] * 6),
        _chi2("sums", [sums.get(s, 0) for s in SUM_WAYS], [w / 36 for w in SUM_WAYS.values()]),
        _chi2("seat_wins", seat_wins, [0.25] * 4),
        _longest(streaks),
    ]
    return out


def report_csv(table: str, rep: FairnessReport) -> str:
    """The report as CSV rows: section, key, value (and the tests with their p-values)."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["table", "section", "key", "count", "expected", "p", "flagged"])
    dice = sum(rep.faces)
    for f, c in enumerate(rep.faces, start=1):
        w.writerow([table, "face", f, c, f"{dice / 6:.2f}", "", ""])
    for s, ways in SUM_WAYS.items():
        w.writerow([table, "sum", s, rep.sums.get(s, 0), f"{rep.rolls * ways / 36:.2f}", "", ""])
    for seat, c in enumerate(rep.seat_wins):
        w.writerow([table, "seat_wins", seat, c, f"{rep.won_hands / 4:.2f}", "", ""])
    w.writerow([table, "dealer", "hands", rep.hands, "", "", ""])
    w.writerow([table, "dealer", "wins", rep.dealer_wins, "", "", ""])
    for length, c in sorted(rep.streaks.items()):
        w.writerow([table, "dealer_streak", length, c, "", "", ""])
    for position, c in sorted(rep.flips.items()):
        w.writerow([table, "flip_position", position, c, "", "", ""])
    for t in rep.tests:
        p = "" if t.p is None else f"{t.p:.6g}"
        w.writerow([table, "test", t.name, t.n, t.note, p, str(t.flagged).lower()])
    return buf.getvalue()


def facts_of(store: EventStore, hands: Sequence[HandRecord]) -> list[HandFacts]:
    """The finished ``hands`` (in the table's order) as the report reads them."""
    found = events_for(store, [h.id for h in hands], FACT_EVENTS)
    return [
        HandFacts.of(h.dealer, h.winner, found.get(h.id, ()), h.session_id)
        for h in hands
        if h.status == "finished"
    ]


def chart_data(rep: FairnessReport, chart: str) -> tuple[list[float], list[float], list[str]]:
    """(observed, expected, labels) of one of the report's charts."""
    if chart == "faces":
        dice = sum(rep.faces)
        return [float(c) for c in rep.faces], [dice / 6] * 6, [str(f) for f in range(1, 7)]
    if chart == "sums":
        observed = [float(rep.sums.get(s, 0)) for s in SUM_WAYS]
        return observed, [rep.rolls * w / 36 for w in SUM_WAYS.values()], [str(s) for s in SUM_WAYS]
    if chart == "seats":
        return [float(c) for c in rep.seat_wins], [rep.won_hands / 4] * 4, ["1", "2", "3", "4"]
    if chart == "streaks":
        longest = max(rep.streaks, default=1)
        count = sum(rep.streaks.values())
        keep = 0.0 if rep.hands == 0 else 1 - count / rep.hands
        lengths = range(1, longest + 1)
        observed = [float(rep.streaks.get(k, 0)) for k in lengths]
        expected = [count * (1 - keep) * keep ** (k - 1) for k in lengths]
        return observed, expected, [str(k) for k in lengths]
    raise ValueError(f"unknown chart {chart!r}")
