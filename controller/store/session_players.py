"""Who played a session (``sessions.players``, docs/players.md): the members who sat in any
of its hands, in the order they first sat down, each with the seats they took and their
name as their latest hand there has it. Guests are not listed.

It is derived from the hands (``hands.players``), never kept beside them: a hand starting
adds its seating in the same transaction (``EventStore.start_hand``); the hub, whose hands
arrive in any order, recomputes a session from the hands it holds; a member's deletion
drops them (``controller.store.members.anonymise``), as their hands' entries become
guests; migration 0012 back-filled the sessions stored before. So it always equals
``of_hands`` over the session's hands, oldest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Text, cast, select, update

from controller.store.hand_filters import OLDEST_FIRST
from controller.store.models import HANDS, SESSIONS

SessionPlayer = dict[str, Any]  # {"member_id", "name", "seats": [seat, …] ascending}
CHUNK = 1000  # session ids per IN (...) list


def with_hand(players: Sequence[Mapping[str, Any]] | None, hand: Any) -> list[SessionPlayer]:
    """``players`` (a session's, None: nobody yet) after a hand seated as ``hand``
    (``hands.players``: by seat, None a guest; None a hand from before members)."""
    out: list[SessionPlayer] = [
        {"member_id": p["member_id"], "name": p["name"], "seats": list(p["seats"])}
        for p in players or []
    ]
    index = {p["member_id"]: p for p in out}
    for seat, who in enumerate(hand if isinstance(hand, list) else []):
        if not isinstance(who, Mapping) or not isinstance(who.get("member_id"), str):
            continue
        found = index.get(who["member_id"])
        if found is None:
            found = index[who["member_id"]] = {"member_id": who["member_id"], "seats": []}
            out.append(found)
        found["name"] = str(who.get("name") or "")
        if seat not in found["seats"]:
            found["seats"] = sorted([*found["seats"], seat])
    return out


def of_hands(hands: Iterable[Any]) -> list[SessionPlayer]:
    """A session's players from its hands' ``players``, oldest hand first."""
    players: list[SessionPlayer] = []
    for hand in hands:
        players = with_hand(players, hand)
    return players


def add_hand(c: Connection, session_id: str, hand: Any) -> None:
    """The session's players after a hand it just started (in that hand's transaction)."""
    players = c.scalar(select(SESSIONS.c.players).where(SESSIONS.c.id == session_id))
    after = with_hand(players if isinstance(players, list) else None, hand)
    if after != players:
        c.execute(update(SESSIONS).where(SESSIONS.c.id == session_id).values(players=after))


def recompute(c: Connection, session_ids: Iterable[str]) -> None:
    """The sessions' players from the hands stored now (at the hub, where a session's
    hands arrive in any order)."""
    ids = sorted(set(session_ids))
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        hands: dict[str, list[Any]] = {sid: [] for sid in chunk}
        rows = c.execute(
            select(HANDS.c.session_id, HANDS.c.players)
            .where(HANDS.c.session_id.in_(chunk))
            .order_by(*OLDEST_FIRST)
        )
        for sid, players in rows:
            hands[sid].append(players)
        for sid in chunk:
            c.execute(
                update(SESSIONS).where(SESSIONS.c.id == sid).values(players=of_hands(hands[sid]))
            )


def forget(c: Connection, member_id: str) -> int:
    """Drop a deleted member from every session's players; returns how many changed."""
    rows = c.execute(
        select(SESSIONS.c.id, SESSIONS.c.players).where(
            cast(SESSIONS.c.players, Text).contains(member_id)
        )
    ).all()
    changed = 0
    for session_id, players in rows:
        if not isinstance(players, list):
            continue
        kept = [p for p in players if not (isinstance(p, dict) and p.get("member_id") == member_id)]
        if kept != players:
            c.execute(update(SESSIONS).where(SESSIONS.c.id == session_id).values(players=kept))
            changed += 1
    return changed
