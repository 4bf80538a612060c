"""A writer SIGKILLed mid-hand loses no acknowledged event and leaves no partial append."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from controller.store import EventStore

BATCH = 3  # events per append: a partial batch would show as a count not a multiple of 3

WRITER = textwrap.dedent(
    """
    import sys
    from controller.store import EventStore

    store = EventStore.open(sys.argv[1])
    hand = store.start_hand(ruleset="xingguo", hand_id="crash", events=[{"type": "start"}])
    print("ready", flush=True)
    n = 0
    while True:  # until killed
        batch = [{"type": "move", "n": n + i, "pad": "牌" * 200} for i in range(BATCH)]
        seqs = store.append(hand, batch)
        n += BATCH
        print(seqs[-1], flush=True)  # acknowledged: append() returned
    """
).replace("BATCH", str(BATCH))


def test_sigkill_mid_hand_keeps_every_acknowledged_event(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'crash.db'}"
    EventStore.open(url).close()  # migrate first, so the child only appends
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, url],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
        env=os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[3])},
    )
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    acknowledged = -1
    for line in child.stdout:
        acknowledged = int(line)
        if acknowledged >= 60 * BATCH:
            break
    child.send_signal(signal.SIGKILL)  # mid-stream: it is appending the next batches
    child.wait()
    child.stdout.close()

    store = EventStore.open(url)
    found = store.open_hand()
    assert found is not None and found.hand.id == "crash"
    seqs = [e.seq for e in found.events]
    assert seqs == list(range(len(seqs)))  # no gap
    assert seqs[-1] >= acknowledged  # every acknowledged event is there
    assert (len(seqs) - 1) % BATCH == 0  # whole appends only
    moves = found.event_dicts()[1:]
    assert [m["n"] for m in moves] == list(range(len(moves)))
    assert all(m["pad"] == "牌" * 200 for m in moves)  # no torn payload
    # The store is usable after the crash: the hand resumes where it stopped.
    assert store.append("crash", [{"type": "resumed"}]) == [len(seqs)]
    store.close()
