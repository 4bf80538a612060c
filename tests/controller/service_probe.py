"""A running service process seen from outside, for the soak test and bench/latency.py:
its resident memory and open files (/proc), its SQLite files (the data dir), its outbox
(the store, read-only), and its event loop's lag (the metrics endpoint); and the check
that none of them grows without bound across hands."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import sqlite3
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from controller.runtime import LAG_PROBE_INTERVAL
from controller.store.database import POOL_OVERFLOW, POOL_SIZE

LAG_METRIC = "mjtable_event_loop_lag_seconds"
LAG_READS = 3


@dataclass(frozen=True, slots=True)
class Sample:
    hands: int
    rss_mb: float
    fds: int
    """Open descriptors besides the store's (judged for growth)."""
    db_bytes: int
    wal_bytes: int
    outbox: int
    loop_lag_ms: float
    store_fds: int = 0
    """The store's: its pool's SQLite connections, each its file and WAL, and the shared
    memory index. The pool opens them as traffic asks, up to its bound, at whichever hand
    (a step of 2-4 descriptors a 40-hand slope took for growth): judged against that bound."""


# What the store's pool may hold open at once (controller/store/database.py): each
# connection the database file and its WAL, and one shared-memory index for them all.
STORE_FDS_BOUND = 2 * (POOL_SIZE + POOL_OVERFLOW) + 1


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


class ServiceProbe:
    def __init__(self, pid: int, db: Path, metrics_url: str) -> None:
        self.pid, self.db, self.metrics_url = pid, db, metrics_url

    def outbox(self) -> int:
        """Messages stored and not yet acknowledged by the broker (a read-only look)."""
        with contextlib.closing(sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)) as db:
            db.execute("PRAGMA busy_timeout = 5000")
            (count,) = db.execute("SELECT count(*) FROM outbox").fetchone()
        return int(count)

    def _metric(self, name: str) -> list[float]:
        """Every value of a metric (one a label set)."""
        with urllib.request.urlopen(self.metrics_url, timeout=10) as reply:
            text = reply.read().decode()
        return [
            float(line.split()[-1])
            for line in text.splitlines()
            if line.startswith((name + " ", name + "{"))
        ]

    def loop_lag(self) -> float:
        values = self._metric(LAG_METRIC)
        if not values:
            raise RuntimeError(f"{self.metrics_url} has no {LAG_METRIC}")
        return values[0]

    def stale_sets(self) -> int:
        """Reader sets the service dropped, a newer one of the reader read with them: how
        far behind its readers it fell (firmware_bridge/rfid/transport.py)."""
        return int(sum(self._metric("mjtable_reader_stale_sets_total")))

    def _descriptors(self) -> tuple[int, int]:
        """Open descriptors: (the store's, the others)."""
        db = self.db.resolve()
        store = {str(db), f"{db}-wal", f"{db}-shm", f"{db}-journal"}
        ours = others = 0
        folder = f"/proc/{self.pid}/fd"
        for fd in os.listdir(folder):
            try:
                target = os.readlink(f"{folder}/{fd}")
            except FileNotFoundError:  # closed while we looked
                continue
            if target in store:
                ours += 1
            else:
                others += 1
        return ours, others

    def sample(self, hands: int) -> Sample:
        store_fds, fds = self._descriptors()
        return Sample(
            hands=hands,
            rss_mb=rss_bytes(self.pid) / 2**20,
            fds=fds,
            store_fds=store_fds,
            db_bytes=_size(self.db),
            wal_bytes=_size(self.db.with_name(self.db.name + "-wal")),
            outbox=self.outbox(),
            loop_lag_ms=self.loop_lag() * 1000,
        )


async def sample_every(
    probe: ServiceProbe,
    hands_done: Callable[[], int],
    *,
    hands: int,
    every: int,
    alive: Callable[[], bool],
    guard: float,
) -> list[Sample]:
    """A sample at each multiple of ``every`` finished hands (the first right away), up to
    ``hands``. Raises TimeoutError when no hand finishes for ``guard`` seconds, and
    RuntimeError when the service dies."""
    samples = [await sample_now(probe, hands_done())]
    loop = asyncio.get_running_loop()
    last_progress, last_done = loop.time(), hands_done()
    while samples[-1].hands < hands:
        await asyncio.sleep(0.05)
        if not alive():
            raise RuntimeError("the service exited during the soak")
        done = hands_done()
        if done != last_done:
            last_progress, last_done = loop.time(), done
        elif loop.time() - last_progress > guard:
            raise TimeoutError(f"no hand finished for {guard:.0f} s (at {done} hands)")
        if done >= samples[-1].hands + every or done >= hands:
            await asyncio.sleep(0.2)  # the hand's messages leave the outbox
            samples.append(await sample_now(probe, done))
    return samples


async def sample_now(probe: ServiceProbe, hands: int) -> Sample:
    """``probe.sample``, its loop lag the least of ``LAG_READS`` probes in a row: the
    service's full collection at the end of a hand (gc_pauses: 100-200 ms here, four
    times that at a Pi's speed) delays the one probe it lands on, by design; a loop that
    is falling behind delays them all."""
    sample = probe.sample(hands)
    lag = sample.loop_lag_ms
    for _ in range(LAG_READS - 1):
        await asyncio.sleep(LAG_PROBE_INTERVAL * 1.1)
        lag = min(lag, probe.loop_lag() * 1000)
    return replace(sample, loop_lag_ms=lag)


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ys over xs (0 for fewer than two distinct xs)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return 0.0
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


# How much each figure may rise over a soak (fitted slope × the hands it spans) before it
# counts as growing without bound. Generous: a busy machine's lag and the allocator's
# settling move them a little; a leak grows with every hand and soon passes them.
ALLOWED_RISE = {
    "rss_mb": 4.0,
    "fds": 2.0,
    "wal_bytes": 8 * 2**20,
    "outbox": 50.0,
    "loop_lag_ms": 100.0,
}


def growth(samples: Sequence[Sample]) -> dict[str, float]:
    """Each figure's fitted rise per 100 hands, over the samples after the first (the
    first is taken before the caches and the allocator have warmed up)."""
    body = list(samples[1:]) if len(samples) > 2 else list(samples)
    xs = [float(s.hands) for s in body]
    rises = {n: slope(xs, [float(getattr(s, n)) for s in body]) * 100 for n in ALLOWED_RISE}
    # The file holds every hand, so it grows with them; what must not grow is what each
    # hand costs: the fitted change in bytes per hand, per 100 hands.
    steps = [(a, b) for a, b in itertools.pairwise(body) if b.hands > a.hands]
    per_hand = [(b.db_bytes - a.db_bytes) / (b.hands - a.hands) for a, b in steps]
    mids = [(a.hands + b.hands) / 2 for a, b in steps]
    rises["db_bytes_per_hand"] = slope(mids, per_hand) * 100 if len(per_hand) > 1 else 0.0
    return rises


def growth_problems(samples: Sequence[Sample]) -> list[str]:
    """What grows beyond its allowance over the soak, in words (empty: nothing)."""
    if len(samples) < 3:
        return [f"only {len(samples)} samples: too few to judge growth"]
    rises = growth(samples)
    span = (samples[-1].hands - samples[1].hands) / 100
    problems = [
        f"{name} rises {rise:+.3g} per 100 hands ({rise * span:+.3g} over the soak, "
        f"allowed {ALLOWED_RISE[name]:.3g})"
        for name, rise in rises.items()
        if name in ALLOWED_RISE and rise * span > ALLOWED_RISE[name]
    ]
    most = max(s.store_fds for s in samples)
    if most > STORE_FDS_BOUND:
        problems.append(
            f"the store holds {most} descriptors open, more than its pool can ({STORE_FDS_BOUND})"
        )
    per_hand = (samples[-1].db_bytes - samples[1].db_bytes) / max(1, 100 * span)
    db_rise = rises["db_bytes_per_hand"] * span
    if db_rise > 0.5 * per_hand + 16 * 1024:
        problems.append(
            f"each hand costs the database more and more: {per_hand / 1024:.1f} KB a hand, "
            f"{rises['db_bytes_per_hand'] / 1024:+.1f} KB a hand per 100 hands"
        )
    return problems


def table(samples: Sequence[Sample]) -> str:
    lines = ["hands   RSS MB  fds (store)  db KB  wal KB  outbox  lag ms"]
    for s in samples:
        lines.append(
            f"{s.hands:5d}  {s.rss_mb:7.1f}  {s.fds:3d} ({s.store_fds:3d})  "
            f"{s.db_bytes // 1024:5d}  "
            f"{s.wal_bytes // 1024:6d}  {s.outbox:6d}  {s.loop_lag_ms:6.1f}"
        )
    return "\n".join(lines)
