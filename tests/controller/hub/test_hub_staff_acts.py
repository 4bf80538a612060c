"""The hub (PostgreSQL) keeps the acts of staff with each hand: the handlogs a table sends
carry them (who, when, why), the hub stores them, and a recount of the hub's events gives
the table's session totals; the owners' totals there and at the table move with them."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from controller.hub.ingest import store_handlogs
from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.table.hand_keeper import HandKeeper
from controller.table.handlog import parse_handlog
from controller.table.publication import Outlet
from engine.round.commands import Adjust, Audit, CorrectWin, Finish, Penalise, Void
from engine.round.events import event_from_dict
from engine.round.staff import session_totals
from tests.controller.service_helpers import act_at, play_at_keeper

AUDIT = Audit("ann", "staff", "2026-12-03T20:30:00+00:00", "dispute at the table")


@pytest.fixture
def sites(pg_url: str) -> Iterator[tuple[EventStore, EventStore, HandKeeper]]:
    """A table's store (SQLite) with its hand keeper, and the hub's store (PostgreSQL)."""
    table = EventStore.open("sqlite://")
    hub = EventStore.open(pg_url)
    try:
        keeper = HandKeeper(
            table, Outlet(Topics("p1", "t1")), parlour="p1", table="t1", ruleset="xingguo"
        )
        keeper.resume()
        yield table, hub, keeper
    finally:
        hub.close()
        table.close()


def test_the_hub_stores_the_acts_of_staff(sites: tuple[EventStore, EventStore, HandKeeper]) -> None:
    table, hub, keeper = sites
    rng = random.Random(4)
    first = play_at_keeper(keeper, rng, 25)
    act_at(keeper, Penalise(AUDIT, 1, "false_win"))
    act_at(keeper, Finish(AUDIT))
    second = play_at_keeper(keeper, rng, 25)
    act_at(keeper, Adjust(AUDIT, 2, 0, 8))
    act_at(keeper, Void(AUDIT))
    payloads = [
        json.loads(e.payload) for e in table.outbox_peek(1000) if e.topic.endswith("/handlog")
    ]
    assert len(payloads) == 2
    result = store_handlogs(hub.engine, [parse_handlog(p) for p in payloads])
    assert sorted(result.stored) == sorted([first, second])
    log = []
    for hand_id in (first, second):
        stored = hub.load_hand(hand_id)
        log += [event_from_dict(d) for d in stored.event_dicts()]
    acts = [e.to_dict() for e in log if e.type in ("penalty_applied", "adjusted")]
    assert [(a["by"], a["role"], a["reason"]) for a in acts] == [
        ("ann", "staff", "dispute at the table")
    ] * 2
    assert hub.load_hand(second).hand.result == "void"  # (voided: listed as 作废 at the hub too)
    assert tuple(keeper.session.totals) == session_totals(log)
    # the owners' totals (the hands' nets) move with the acts, at the table and the hub
    for where in (table, hub):
        nets = [where.load_hand(h).hand.net for h in (first, second)]
        assert [sum(n[s] for n in nets if n) for s in range(4)] == keeper.session.totals
    assert hub.load_hand(first).hand.net == table.load_hand(first).hand.net
    assert hub.load_hand(first).settlement == table.load_hand(first).settlement


def test_a_correction_after_the_settlement_reaches_the_hub(
    sites: tuple[EventStore, EventStore, HandKeeper],
) -> None:
    from engine.round.staff import read_winners

    table, hub, keeper = sites
    rng = random.Random(1)
    while True:  # a hand that ends in a win, played to its settlement
        hand_id = play_at_keeper(keeper, rng)
        if keeper.state is not None and keeper.state.wins:
            break
    played = table.load_hand(hand_id).settlement
    before = list(keeper.session.totals)
    w = read_winners(keeper.state)[0]
    # staff read the laid-down hand as the readers did: the settlement stands again
    act_at(keeper, CorrectWin.of(AUDIT, w["seat"], w["hand"], w["melds"]))
    assert keeper.session.totals == before
    # then void it before the next hand starts: its points come off
    act_at(keeper, Void(AUDIT))
    stored = table.load_hand(hand_id)
    assert stored.settlement is not None and stored.settlement["void"] is True
    assert [e.payload["type"] for e in stored.events][-4:] == [
        "win_corrected",
        "settled",
        "hand_voided",
        "settled",
    ]
    assert played is not None and stored.hand.net == (0, 0, 0, 0)
    payloads = [
        json.loads(e.payload) for e in table.outbox_peek(10_000) if e.topic.endswith("/handlog")
    ]
    mine = [p for p in payloads if p["hand_id"] == hand_id]
    assert len(mine) == 3  # at the settlement, and again after each act
    first = store_handlogs(hub.engine, [parse_handlog(mine[0])])
    assert first.stored == [hand_id]
    later = store_handlogs(hub.engine, [parse_handlog(p) for p in mine[1:]])
    assert hand_id in later.stored
    at_hub = hub.load_hand(hand_id)
    assert at_hub.event_dicts() == stored.event_dicts()
    assert at_hub.settlement == stored.settlement and at_hub.hand.net == stored.hand.net
    # an older, shorter log arriving late changes nothing
    assert store_handlogs(hub.engine, [parse_handlog(mine[0])]).stored == []
    assert hub.load_hand(hand_id).event_dicts() == stored.event_dicts()
