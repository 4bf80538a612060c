"""A session's cash-out: each player's net over its hands, and who pays whom.

A player is a member wherever they sat (a member who moved seats between hands is one
player), or a guest by seat ("1号位"): a session where nobody is registered still cashes
out seat by seat. Who sat where comes with each stored hand (``players``: by seat, None
for a guest, else ``{"member_id", "name"}``); a hand without it is four guests.

The nets are the hands' (what each moved in all, staff acts included: the ``hands`` rows
the owners' totals read), the transfers the fewest that square them
(``engine.cashout.fewest_transfers``). Money and the table fee, from the owner's
``CashoutTerms`` in force when the session closed, are shown beside the points, never
mixed into them, and never on a public page.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from pydantic import ValidationError

from controller.cashout_labels import player_labels
from controller.store import EventStore, HandRecord
from controller.store.members import Player
from controller.store.owners import CashoutTerms
from engine.cashout import fewest_transfers
from engine.round.events import SessionClosed
from engine.settlement.ledger import Amount, plain

SEATS = 4


def hand_players(players: Sequence[Mapping[str, str] | None] | None) -> list[Player | None]:
    """A stored hand's ``players`` (``HandRecord.players``) as four seats: None a guest,
    else the member's id and name. A hand stored before members (None) is four guests."""
    if players is None or len(players) != SEATS:
        return [None] * SEATS
    return [
        None
        if p is None or not p.get("member_id")
        else {"member_id": p["member_id"], "name": p.get("name") or ""}
        for p in players
    ]


@dataclass
class _Player:
    seat: int  # the seat they sat in last
    member_id: str | None
    name: str | None
    hands: int = 0
    net: Amount = 0
    seats: set[int] = field(default_factory=set)


def _exact(n: float) -> Amount:
    """A stored net (a float: money columns) as the exact amount it was (halves, quarters)."""
    f = Fraction(n).limit_denominator(10_000)
    return f.numerator if f.denominator == 1 else f


def _money(points: Amount, terms: CashoutTerms) -> float | None:
    return None if terms.point_value is None else round(float(points) * terms.point_value, 2)


def _fee_total(terms: CashoutTerms, hands: int, hours: float) -> float | None:
    if terms.table_fee is None:
        return None
    per = {"hand": hands, "hour": hours, "session": 1}[terms.fee_per]
    return round(terms.table_fee * per, 2)


def cashout(
    session_id: str,
    hands: Sequence[HandRecord],
    *,
    terms: CashoutTerms,
    started_at: datetime,
    ended_at: datetime,
    closed: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The cash-out of ``hands`` (the session's; unsettled ones are skipped), oldest first
    by the table's running number. ``closed``: the ``session_closed`` event (who, when,
    why), None while the session is open (a standing, not yet a cash-out).

    The table fee is the session's (per hand, per hour from the session's start to its
    end, or once) and each player's share is by the hands they sat in."""
    players: dict[str, _Player] = {}
    order = sorted(hands, key=lambda h: (h.table_seq or 0, h.started_at, h.id))
    played = 0
    for h in order:
        if h.net is None or h.status != "finished":
            continue
        played += 1
        for seat, (who, n) in enumerate(zip(hand_players(h.players), h.net, strict=True)):
            key = f"member:{who['member_id']}" if who is not None else f"seat:{seat}"
            p = players.get(key)
            if p is None:
                member, name = (None, None) if who is None else (who["member_id"], who["name"])
                p = players[key] = _Player(seat, member, name)
            p.seat, p.hands, p.net = seat, p.hands + 1, p.net + _exact(n)
            p.seats.add(seat)
            if who is not None:
                p.name = who["name"]  # (the name as they last sat)
    people = list(players.values())
    labels = player_labels([(p.seat, p.name) for p in people])
    transfers = fewest_transfers([p.net for p in people])
    hours = max(0.0, (ended_at - started_at).total_seconds() / 3600)
    fee = _fee_total(terms, played, hours)
    seat_hands = SEATS * played
    return {
        "session_id": session_id,
        "closed": closed is not None,
        "closed_by": None
        if closed is None
        else {k: closed.get(k) for k in ("by", "role", "at", "reason", "cause")},
        "started_at": started_at.isoformat(),
        "ended_at": ended_at.isoformat(),
        "played": played,  # (not "hands": a secret word to the live hub's scrubber)
        "players": [
            {
                "seat": p.seat,
                "seats": sorted(p.seats),
                "member_id": p.member_id,
                "name": p.name,
                "label": label,
                "played": p.hands,
                "net": plain(p.net),
                "money": _money(p.net, terms),
                "fee": None if fee is None else round(fee * p.hands / seat_hands, 2),
            }
            for p, label in zip(people, labels, strict=True)
        ],
        "transfers": [
            {
                "from": t.payer,
                "to": t.payee,
                "points": plain(t.amount),
                "money": _money(t.amount, terms),
            }
            for t in transfers
        ],
        "terms": terms.model_dump(exclude={"cutoff"}),
        "fee": None
        if fee is None
        else {"total": fee, "per": terms.fee_per, "hours": round(hours, 2), "played": played},
    }


def public_cashout(full: Mapping[str, Any]) -> dict[str, Any]:
    """What a display may show: names (or seats), each player's label (``player_labels``:
    what every view names them by) and points; no member ids, no money."""
    return {
        "session_id": full["session_id"],
        "played": full["played"],
        "ended_at": full["ended_at"],
        "players": [
            {"seat": p["seat"], "name": p["name"], "label": p["label"], "net": p["net"]}
            for p in full["players"]
        ],
        "transfers": [
            {"from": t["from"], "to": t["to"], "points": t["points"]} for t in full["transfers"]
        ],
    }


MAX_HANDS = 100_000  # a session's hands read for its cash-out (a table plays ~30 a day)


def closing_event(store: EventStore, hands: Sequence[HandRecord]) -> dict[str, Any] | None:
    """The ``session_closed`` event of a session (in its last hand), None while open."""
    if not hands:
        return None
    last = max(hands, key=lambda h: (h.table_seq or 0, h.started_at, h.id))
    for e in reversed(store.load_hand(last.id).event_dicts()):
        if e.get("type") == SessionClosed.type:
            found: dict[str, Any] = e
            return found
    return None


def stored_cashout(
    store: EventStore, session_id: str, terms_now: CashoutTerms, now: datetime
) -> dict[str, Any]:
    """A session's cash-out as the store holds it, on a table or at the hub: closed, by
    the terms stored with its closing; open, its standing by today's terms. Raises
    ``UnknownSession``."""
    session = store.get_session(session_id)
    hands = store.list_hands(session_id=session_id, status="finished", limit=MAX_HANDS)
    closed = closing_event(store, hands)
    terms, ended = terms_now, session.ended_at or now
    if closed is not None:
        try:
            terms = CashoutTerms.model_validate(closed.get("terms") or {})
        except ValidationError:  # (terms a later version wrote): points only
            terms = CashoutTerms()
        with contextlib.suppress(TypeError, ValueError):
            ended = datetime.fromisoformat(closed["at"])
    return cashout(
        session_id, hands, terms=terms, started_at=session.started_at, ended_at=ended, closed=closed
    )


def last_cutoff(cutoff: str, now: datetime) -> datetime:
    """The latest moment at or before ``now`` (aware, local) when the clock read ``cutoff``
    ("HH:MM", local)."""
    hour, minute = (int(x) for x in cutoff.split(":"))
    at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return at if at <= now else at - timedelta(days=1)


def cutoff_due(cutoff: str | None, session_started: datetime, now: datetime) -> bool:
    """Whether a session that started at ``session_started`` has passed the daily cut-off."""
    return cutoff is not None and session_started < last_cutoff(cutoff, now)
