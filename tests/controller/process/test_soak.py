"""A short soak: ``mjtable run`` with the web app plays hand after hand against the virtual
table, and its RSS, open files, SQLite file, outbox and event-loop lag, sampled every few
hands, must not grow without bound (bench/latency.py --soak N is the long form). Only the
growth checks: nothing here is timed."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from bench import latency
from tests.controller import service_probe
from tests.controller.service_probe import STORE_FDS_BOUND, Sample, growth_problems, table

HANDS = 40
EVERY = 8


@pytest.mark.timeout(900)
@pytest.mark.parametrize("pi", [None, "pi4"])
def test_nothing_grows_across_hands(pi: str | None) -> None:
    """On this machine's CPU and with the service at a Pi 4's (tests/controller/pi_cpu)."""
    plan = latency.Plan(
        moves=0, hands=HANDS, every=EVERY, idle_seconds=0.0, cores=None, soak_only=True, pi=pi
    )
    result = asyncio.run(latency.run(plan, seed=3, label="soak"))
    samples = result.samples
    assert samples[-1].hands >= HANDS and len(samples) >= HANDS // EVERY
    # the outbox among them: with the broker up it drains, so it does not grow across
    # hands (a sample's depth is the messages still in flight at that moment, which a
    # loaded machine makes larger: not a bound to assert)
    assert growth_problems(samples) == [], table(samples)


def _samples(**grow: float) -> list[Sample]:
    """Eleven samples 0..500 hands, flat except the figures given (rise per hand); the
    database grows 20 KB a hand, and by ``db_accel`` more bytes per hand every hand."""
    accel = grow.pop("db_accel", 0.0)
    return [
        Sample(
            hands=h,
            rss_mb=90.0 + grow.get("rss_mb", 0.0) * h,
            fds=int(80 + grow.get("fds", 0.0) * h),
            db_bytes=int(20_000 * h + accel * h * h),
            wal_bytes=int(4e6 + grow.get("wal_bytes", 0.0) * h),
            outbox=int(grow.get("outbox", 0.0) * h),
            loop_lag_ms=1.0 + grow.get("loop_lag_ms", 0.0) * h,
        )
        for h in range(0, 501, 50)
    ]


def test_the_growth_check_sees_a_leak_and_passes_a_steady_service() -> None:
    assert growth_problems(_samples()) == []
    assert growth_problems(_samples(rss_mb=0.005)) == []  # 2.3 MB over the soak: allowed
    for name, per_hand in [
        ("rss_mb", 0.05),
        ("fds", 0.1),
        ("wal_bytes", 50_000),
        ("outbox", 1.0),
        ("loop_lag_ms", 1.0),
    ]:
        problems = growth_problems(_samples(**{name: per_hand}))
        assert len(problems) == 1 and problems[0].startswith(name), problems
    # the store's pool opening its second connection late in the soak is no leak; more
    # descriptors than the pool can hold are
    stepped = [replace(s, store_fds=3 if s.hands < 400 else 5) for s in _samples()]
    assert growth_problems(stepped) == []
    beyond = [replace(s, store_fds=STORE_FDS_BOUND + 1) for s in _samples()]
    assert ["the store holds" in p for p in growth_problems(beyond)] == [True]
    accelerating = growth_problems(_samples(db_accel=100.0))
    assert len(accelerating) == 1 and "database" in accelerating[0], accelerating
    assert growth_problems(_samples()[:2]) != []  # too few samples to say


class _Probe:
    """A service whose lag probes read ``lags`` (seconds) in turn."""

    def __init__(self, *lags: float) -> None:
        self.lags = list(lags)

    def loop_lag(self) -> float:
        return self.lags.pop(0)

    def sample(self, hands: int) -> Sample:
        return replace(_samples()[0], hands=hands, loop_lag_ms=self.loop_lag() * 1000)


def test_a_sample_reads_the_loop_lag_past_one_late_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """The full collection as a hand ends delays one probe; a loop behind delays each."""
    monkeypatch.setattr(service_probe, "LAG_PROBE_INTERVAL", 0.001)

    def lag_of(*lags: float) -> float:
        sample = asyncio.run(service_probe.sample_now(_Probe(*lags), 8))  # type: ignore[arg-type]
        return sample.loop_lag_ms

    assert lag_of(0.4, 0.005, 0.006) == 5.0
    assert lag_of(0.3, 0.31, 0.32) == 300.0
