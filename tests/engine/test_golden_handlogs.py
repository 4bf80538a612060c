"""Fixed-seed hand logs are byte-identical to the recorded ones (see golden_handlogs)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.engine.golden_handlogs import FIXTURE, cases, hand_digests

GOLDEN: dict[str, list[str]] = json.loads(FIXTURE.read_text("utf-8"))
CASES = cases()


def test_fixture_covers_every_case() -> None:
    assert sorted(GOLDEN) == sorted(name for name, *_ in CASES)


@pytest.mark.parametrize(("name", "ruleset", "seed", "options"), CASES, ids=[c[0] for c in CASES])
def test_hand_logs_unchanged(
    name: str, ruleset: str, seed: int, options: dict[str, Any] | None
) -> None:
    digests = hand_digests(ruleset, seed, options)
    moved = [i + 1 for i, (a, b) in enumerate(zip(digests, GOLDEN[name], strict=True)) if a != b]
    assert not moved, (
        f"{name}: hands {moved} play differently; if that is meant, rewrite the fixture with "
        "`.venv/bin/python -m tests.engine.golden_handlogs --write`"
    )
