"""Fixed-seed hand logs, kept as digests so refactors can prove they changed no behaviour.

Each case plays a short bot session (``engine.simulation.play_session``) and records the
SHA-256 of every hand's log, one event per line as ``mjtable simulate --log`` writes it.
``tests/engine/test_golden_handlogs.py`` compares against ``golden/handlogs.json``.

A change meant to alter play (a rule fix, a new bot) rewrites the fixture on purpose::

    .venv/bin/python -m tests.engine.golden_handlogs --write

and says so in its commit; ``--diff`` prints which cases moved.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from engine.rulesets import builtin_ids
from engine.simulation import play_session

FIXTURE = Path(__file__).resolve().parent / "golden" / "handlogs.json"
SEEDS = (0, 1, 2)
HANDS = 6
# owner options that move the wall (reserve, where drawing starts, 跳庄) and the flip
OPTION_CASES: tuple[tuple[str, dict[str, Any]], ...] = (
    ("xingguo", {"table.reserve_stacks": 17}),
    ("nanchang", {"table.start": "after", "table.jump": "tops_of_stacks_1_3"}),
    ("lianhua", {"table.flipped_in_play": False}),
    ("chongji", {"table.start": "at", "table.reserve_stacks": 5}),
    ("yichun", {"table.jump": "tops_of_stacks_1_3"}),
)


def hand_digests(ruleset: str, seed: int, options: dict[str, Any] | None = None) -> list[str]:
    digests = []
    for result in play_session(ruleset, HANDS, random.Random(seed), options):
        text = "".join(
            json.dumps(event.to_dict(), ensure_ascii=False) + "\n" for event in result.log
        )
        digests.append(hashlib.sha256(text.encode("utf-8")).hexdigest())
    return digests


def case_name(ruleset: str, seed: int, options: dict[str, Any] | None = None) -> str:
    extra = ",".join(f"{k}={v}" for k, v in sorted((options or {}).items()))
    return f"{ruleset} seed {seed}" + (f" [{extra}]" if extra else "")


def cases() -> list[tuple[str, str, int, dict[str, Any] | None]]:
    found: list[tuple[str, str, int, dict[str, Any] | None]] = [
        (case_name(r, s), r, s, None) for r in builtin_ids() for s in SEEDS
    ]
    found += [(case_name(r, 0, o), r, 0, o) for r, o in OPTION_CASES]
    return found


def compute() -> dict[str, list[str]]:
    return {name: hand_digests(r, s, o) for name, r, s, o in cases()}


def main(argv: list[str]) -> int:
    current = compute()
    if "--write" in argv:
        FIXTURE.parent.mkdir(exist_ok=True)
        FIXTURE.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n", "utf-8")
        print(f"wrote {len(current)} cases to {FIXTURE}")
        return 0
    golden = json.loads(FIXTURE.read_text("utf-8"))
    moved = [
        name for name in sorted(set(golden) | set(current)) if golden.get(name) != current.get(name)
    ]
    for name in moved:
        print(f"moved: {name}")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
