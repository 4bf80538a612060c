"""The Pi rolls the dice: the dealer presses the dice button, the service rolls.

Rolls come from ``secrets`` (a parlour must not be able to predict them). For tests and
the demo's ``--seed`` the roller is deterministic instead: each roll is derived from
(seed, hand number, roll index within the hand), so a service restarted mid-hand rolls
the same dice again. Every roll is logged.
"""

from __future__ import annotations

import hashlib
import secrets

import structlog

log = structlog.get_logger(__name__)


class DiceRoller:
    """``roll(hand_no, index) -> (a, b)``, each 1-6."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    @property
    def deterministic(self) -> bool:
        return self.seed is not None

    def roll(
        self, hand_no: int, index: int, *, purpose: str = "", seat: int = -1
    ) -> tuple[int, int]:
        if self.seed is None:
            a, b = secrets.randbelow(6) + 1, secrets.randbelow(6) + 1
        else:
            digest = hashlib.sha256(f"mjtable-dice:{self.seed}:{hand_no}:{index}".encode()).digest()
            # 252 = 42 * 6: rejecting bytes above it keeps each face equally likely
            faces = [b % 6 + 1 for b in digest if b < 252]
            a, b = faces[0], faces[1]
        log.info(
            "dice rolled",
            hand_no=hand_no,
            index=index,
            purpose=purpose,
            seat=seat,
            a=a,
            b=b,
            seeded=self.seed is not None,
        )
        return a, b
