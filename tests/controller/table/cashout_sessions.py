"""Random sessions for the cash-out's views: guests and members who join, leave and move
seats between hands, members whose names collide (two 王五, one named "3号位", one with
nothing sayable), and the people each session's cash-out must name with their nets."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

from controller.store import HandRecord
from controller.store.owners import CashoutTerms
from controller.table.cashout import cashout, public_cashout

T0 = datetime(2026, 12, 6, 19, 0, tzinfo=UTC)
NAMES = ["王五", "李四", "张三丰", "王五", "🀄🀄🀄", "3号位", "Tom Lee", "🀄"]


def random_session(rng: random.Random) -> tuple[list[HandRecord], dict[str, Fraction]]:
    """A session's finished hands and each person's net: ``member:<id>`` or ``seat:<n>``."""
    members = [(f"{i:032x}", name) for i, name in enumerate(rng.sample(NAMES, rng.randint(0, 6)))]
    hands, nets = [], {}
    for n in range(rng.randint(1, 10)):
        chosen = rng.sample(members, min(len(members), rng.randint(0, 4)))
        seats: list[tuple[str, str] | None] = [*chosen, *[None] * (4 - len(chosen))]
        rng.shuffle(seats)
        moved = [Fraction(rng.randint(-40, 40), rng.choice([1, 1, 2])) for _ in range(3)]
        moved.append(-sum(moved))
        for seat, (who, amount) in enumerate(zip(seats, moved, strict=True)):
            key = f"seat:{seat}" if who is None else f"member:{who[0]}"
            nets[key] = nets.get(key, Fraction(0)) + amount
        hands.append(
            HandRecord(
                id=f"h{n}", session_id="s1", hand_no=n + 1, ruleset="xingguo", dealer=0,
                status="finished", result="win", winner=0, discarder=None,
                started_at=T0 + timedelta(minutes=5 * n), ended_at=None, note=None,
                handlog_acked_at=None, net=tuple(float(a) for a in moved),  # type: ignore[arg-type]
                table_seq=n + 1,
                players=[None if w is None else {"member_id": w[0], "name": w[1]} for w in seats],
            )
        )  # fmt: skip
    return hands, nets


def session_cashout(hands: list[HandRecord]) -> dict[str, Any]:
    """The closed cash-out of ``hands``, as the table computes it."""
    closed = {"by": "ann", "role": "staff", "at": T0.isoformat(), "reason": "打烊"}
    return cashout("s1", hands, terms=CashoutTerms(), started_at=T0, ended_at=T0, closed=closed)


def random_public_cashout(rng: random.Random) -> dict[str, Any]:
    """A random session's public cash-out (what the display and the voice hear)."""
    return public_cashout(session_cashout(random_session(rng)[0]))
