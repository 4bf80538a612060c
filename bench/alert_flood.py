"""A storm of stray tags against the table loop.

The service (tracker, alert gate, SQLite store with fsync, outbox) on a hand in play is fed
``--reports`` reader reports three ways, timed in the same run:

    baseline   tiles re-read where they lie (nothing to do: the cost of a report)
    flood      every report a new unknown tag (each one an alert before the gate)
    ungated    the same flood with the gate's window at 0 (every alert stored and sent)

It prints microseconds per report, the outbox rows each wrote, and the flood's cost as a
ratio to the baseline; the last line is ``flood/baseline: <ratio>``.

    .venv/bin/python bench/alert_flood.py [--reports 5000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import structlog

from controller.store import EventStore
from engine.tiles import KIND_LABELS
from firmware_bridge.rfid.inventory import TagIn
from firmware_bridge.sim import TileSet
from tests.controller.alert_helpers import alert_table
from tests.controller.tracking.test_tracker import UIDS, hand


def run(kind: str, reports: int, work: Path) -> tuple[float, int]:
    store = EventStore.open(f"sqlite:///{work / f'{kind}.db'}")
    t, service = alert_table(
        store, TileSet(0, KIND_LABELS).registry(), window=0.0 if kind == "ungated" else 10.0
    )
    t.to_play()
    held = t.state.hands[1]
    zone = hand(1)
    start = time.perf_counter()
    for i in range(reports):
        t.now += 60.0 / reports  # a storm: all of them within a minute
        if kind == "baseline":
            event = TagIn(zone, UIDS[held[i % len(held)]], t.now)
        else:
            event = TagIn(zone, b"\xe0\x99" + i.to_bytes(6, "big"), t.now)
        service.handle(event, t.now)
        if i % 50 == 0:
            service.tick(t.now)
    took = time.perf_counter() - start
    rows = len(store.outbox_peek(10 * reports))
    store.close()
    return took / reports, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reports", type=int, default=5000)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    with tempfile.TemporaryDirectory(prefix="mjtable-bench-") as tmp:
        results = {k: run(k, args.reports, Path(tmp)) for k in ("baseline", "flood", "ungated")}
    for kind, (per, rows) in results.items():
        print(f"{kind:9} {1e6 * per:9.1f} µs per report, {rows} outbox rows")
    print(f"ungated/baseline: {results['ungated'][0] / results['baseline'][0]:.2f}")
    print(f"flood/baseline: {results['flood'][0] / results['baseline'][0]:.2f}")


if __name__ == "__main__":
    main()
