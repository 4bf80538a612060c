"""Members' records at the hub, across every table: counted from the stored hands (each
hand's ``players``, what it moved, its settlement's lines), never kept as running totals
that could drift from them (docs/players.md, "Records").

Per member: hands played (finished, not void), wins, self-draws, 德国, 精吊, 冲关 and big
hands (a hand that moved ``BIG_HAND_NET`` points or more to the member), the net by ISO
week and by month (UTC), with the running net hand by hand for the chart, the latest
``RECENT_HANDS`` hands (when, which table, how it went for them, their net) and their
streaks (hands in a row won, or lost, on the net).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, Text, cast, select, update

from controller.store.members import link_hash
from controller.store.models import HANDS, MEMBERS, SETTLEMENTS

BIG_HAND_NET = 20  # points moved to the member in one hand: a big hand
WIN_CODES = frozenset({"win.self_draw", "win.discard", "win.discard_share", "win.rob_kong"})
SERIES_MAX = 2000  # hands in a chart's running net (the latest)
COUNTS = ("hands", "wins", "self_draws", "deguo", "jingdiao", "chongguan", "big_hands")
RECENT_HANDS = 50  # hands listed on the member's page, newest first


@dataclass(slots=True)
class Record:
    member_id: str
    name: str | None = None
    hands: int = 0
    wins: int = 0
    self_draws: int = 0
    deguo: int = 0
    jingdiao: int = 0
    chongguan: int = 0
    big_hands: int = 0
    net: float = 0.0
    weeks: dict[str, float] = field(default_factory=dict)
    months: dict[str, float] = field(default_factory=dict)
    series: list[float] = field(default_factory=list)  # the running net, hand by hand
    recent: list[dict[str, Any]] = field(default_factory=list)  # the latest hands, oldest first
    streak: int = 0  # the hands in a row up (> 0) or down (< 0) on the net, now
    best_streak: int = 0  # the most hands in a row up
    worst_streak: int = 0  # the most hands in a row down

    def add(
        self,
        seat: int,
        net: float,
        lines: list[Any],
        started: datetime,
        hand: Any = None,
    ) -> None:
        """One hand the member sat in at ``seat``; ``hand``: its row (table, winner,
        discarder) for the list of hands."""
        mine = [
            line
            for line in lines
            if isinstance(line, dict)
            and line.get("to") == seat
            and isinstance(line.get("code"), str)
        ]
        won = [line for line in mine if line["code"] in WIN_CODES]
        reasons = " ".join(str(line.get("reason", "")) for line in won)
        self.hands += 1
        self.wins += bool(won)
        self.self_draws += any(line["code"] == "win.self_draw" for line in won)
        self.deguo += "德国" in reasons
        self.jingdiao += "精吊" in reasons
        self.chongguan += any("冲关" in str(line.get("reason", "")) for line in mine)
        self.big_hands += net >= BIG_HAND_NET
        self.net += net
        year, week, _ = started.isocalendar()
        w, m = f"{year}-W{week:02d}", started.strftime("%Y-%m")
        self.weeks[w] = self.weeks.get(w, 0.0) + net
        self.months[m] = self.months.get(m, 0.0) + net
        self.series.append(self.net)
        up = 1 if net > 0 else -1 if net < 0 else 0
        self.streak = up if up == 0 or (self.streak > 0) != (up > 0) else self.streak + up
        self.best_streak = max(self.best_streak, self.streak)
        self.worst_streak = max(self.worst_streak, -self.streak)
        self.recent.append(
            {
                "at": started.isoformat(),
                "table": None if hand is None else hand.table_id,
                "result": _outcome(seat, won, hand),
                "net": net,
            }
        )
        del self.recent[:-RECENT_HANDS]

    def as_dict(self) -> dict[str, Any]:
        return {
            "member_id": self.member_id,
            "name": self.name,
            **{k: getattr(self, k) for k in COUNTS},
            "net": self.net,
            "weeks": dict(sorted(self.weeks.items())),
            "months": dict(sorted(self.months.items())),
            "series": self.series[-SERIES_MAX:],
            "recent": self.recent[::-1],
            "streaks": {
                "now": self.streak,
                "best_up": self.best_streak,
                "worst_down": self.worst_streak,
            },
        }


def _outcome(seat: int, won: list[Any], hand: Any) -> str:
    """How a hand went for the member: self_draw, win, dealt_in (they discarded the winning
    tile), other_won, or draw (nobody won)."""
    if won:
        return "self_draw" if any(line["code"] == "win.self_draw" for line in won) else "win"
    if hand is None:
        return "other_won"
    if hand.discarder == seat:
        return "dealt_in"
    return "draw" if hand.winner is None else "other_won"


_NETS = (HANDS.c.net_0, HANDS.c.net_1, HANDS.c.net_2, HANDS.c.net_3)


def _hands(engine: Engine, member_id: str | None) -> Iterator[Any]:
    """Finished, not void hands with players, oldest first (a member's only, if given)."""
    query = (
        select(
            HANDS.c.players,
            HANDS.c.started_at,
            *_NETS,
            SETTLEMENTS.c.payload,
            HANDS.c.table_id,
            HANDS.c.winner,
            HANDS.c.discarder,
        )
        .join(SETTLEMENTS, SETTLEMENTS.c.hand_id == HANDS.c.id)
        .where(
            HANDS.c.status == "finished",
            SETTLEMENTS.c.void.is_(False),
            HANDS.c.players.is_not(None),
        )
        .order_by(HANDS.c.started_at, HANDS.c.id)
    )
    if member_id is not None:
        query = query.where(cast(HANDS.c.players, Text).contains(member_id))
    with engine.connect() as c:
        yield from c.execution_options(yield_per=1000).execute(query)


def _names(engine: Engine) -> dict[str, str | None]:
    with engine.connect() as c:
        rows = c.execute(
            select(MEMBERS.c.member_id, MEMBERS.c.name).where(MEMBERS.c.deleted_at.is_(None))
        )
        return dict(rows.all())


def _count(engine: Engine, member_id: str | None) -> dict[str, Record]:
    names = _names(engine)
    out: dict[str, Record] = {}
    for row in _hands(engine, member_id):
        players, started, n0, n1, n2, n3, payload = row[:7]
        if not isinstance(players, list):
            continue
        lines = payload.get("lines", []) if isinstance(payload, dict) else []
        for seat, player in enumerate(players[:4]):
            who = player.get("member_id") if isinstance(player, dict) else None
            if who is None or (member_id is not None and who != member_id) or who not in names:
                continue
            record = out.get(who) or out.setdefault(who, Record(who, names[who]))
            net = (n0, n1, n2, n3)[seat]
            record.add(seat, float(net or 0), lines, started, row)
    return out


def member_record(engine: Engine, member_id: str) -> Record | None:
    """One member's record; None for no such member (deleted members have none)."""
    names = _names(engine)
    if member_id not in names:
        return None
    return _count(engine, member_id).get(member_id) or Record(member_id, names[member_id])


def all_records(engine: Engine) -> list[Record]:
    """Every member who played a hand, by name."""
    return sorted(_count(engine, None).values(), key=lambda r: (r.name or "", r.member_id))


def leaderboard(records: list[Record], by: str, period: str | None, limit: int = 20) -> list[Any]:
    """The top ``limit`` members by ``by``; for ``net``, ``period`` (a week ``2026-W49`` or a
    month ``2026-12``) takes that period's net."""

    def value(r: Record) -> float:
        if by == "net" and period is not None:
            return r.weeks.get(period, r.months.get(period, 0.0))
        return float(getattr(r, by))

    ranked = sorted(records, key=lambda r: (-value(r), r.name or ""))[:limit]
    return [{"name": r.name, "value": value(r)} for r in ranked]


# --- the member's personal link ------------------------------------------------------------


def new_link(engine: Engine, member_id: str) -> str | None:
    """A new random token for the member's own record (the old one stops working); only its
    hash is stored. None: no such member."""
    token = secrets.token_urlsafe(24)
    with engine.begin() as c:
        done = c.execute(
            update(MEMBERS)
            .where(MEMBERS.c.member_id == member_id, MEMBERS.c.deleted_at.is_(None))
            .values(link_hash=link_hash(token))
        ).rowcount
    return token if done else None


def revoke_link(engine: Engine, member_id: str) -> bool:
    with engine.begin() as c:
        return bool(
            c.execute(
                update(MEMBERS)
                .where(MEMBERS.c.member_id == member_id, MEMBERS.c.deleted_at.is_(None))
                .values(link_hash=None)
            ).rowcount
        )


def member_of_link(engine: Engine, token: str) -> str | None:
    if not 16 <= len(token) <= 64:
        return None
    with engine.connect() as c:
        return c.scalar(
            select(MEMBERS.c.member_id).where(
                MEMBERS.c.link_hash == link_hash(token), MEMBERS.c.deleted_at.is_(None)
            )
        )
