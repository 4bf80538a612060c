"""Start-up of ``mjtable settle`` against the engine's own import, in the same run.

Run: ``.venv/bin/python bench/cli.py`` (``--runs N``; ``--quick`` for a smoke run).

Each round starts, alternately, a bare interpreter importing the engine's rules
(``engine.rulesets``, ``engine.settlement``: what a settle needs) and the installed
``mjtable settle`` on the example hand. The fastest of each is kept: on a shared machine
the minimum is the figure least disturbed by other processes. Target: <= 1.5.
The last line is ``cli: settle start = X.XX x engine import``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "examples" / "xingguo-deguo-self-draw.json"


def wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds (each starts both once)")
    parser.add_argument("--quick", action="store_true", help="three rounds")
    args = parser.parse_args()
    runs = 3 if args.quick else args.runs
    mjtable = Path(sys.executable).with_name("mjtable")
    engine_cmd = [sys.executable, "-c", "import engine.rulesets, engine.settlement"]
    settle_cmd = [str(mjtable), "settle", str(EXAMPLE)]
    wall(engine_cmd), wall(settle_cmd)  # warm the file cache and the bytecode
    engine: list[float] = []
    settle: list[float] = []
    for _ in range(runs):
        engine.append(wall(engine_cmd))
        settle.append(wall(settle_cmd))
    print(f"engine import   min {min(engine) * 1000:.0f} ms over {runs} starts")
    print(f"mjtable settle  min {min(settle) * 1000:.0f} ms over {runs} starts")
    print(f"cli: settle start = {min(settle) / min(engine):.2f} x engine import")


if __name__ == "__main__":
    main()
