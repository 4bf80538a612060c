"""A stored hand whose log this engine cannot read back (a damaged row) must not stop the
table at every start. Resuming closes a damaged open hand as aborted with the reason; a
damaged finished hand ends its session (its totals cannot be rebuilt) and a new one
starts. Every event stays stored, and the table plays on."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from engine.bots import Bot
from engine.round.actions import RollDice
from engine.simulation import table_action, waiting_seats


def _keeper(store: EventStore) -> HandKeeper:
    outlet = Outlet(Topics("parlour", "t1"))
    return HandKeeper(store, outlet, parlour="parlour", table="t1", ruleset="xingguo")


def test_a_damaged_open_hand_is_aborted_with_why_and_play_goes_on(tmp_path: Path) -> None:
    store = EventStore.open(f"sqlite:///{tmp_path / 'table.db'}")
    try:
        keeper = _keeper(store)
        keeper.resume()
        hand_id = keeper.start_hand(None)
        assert isinstance(keeper.execute(RollDice("break", keeper.session.dealer, 3, 4)), list)
        stored = store.load_hand(hand_id)
        kept = len(stored.events)
        # the hand's first event, damaged: a seat no table has
        with store.engine.begin() as c:
            damaged = json.dumps({**stored.events[0].payload, "dealer": 9})
            c.execute(
                text("UPDATE events SET payload = :p WHERE hand_id = :h AND seq = 0"),
                {"p": damaged, "h": hand_id},
            )

        again = _keeper(store)
        again.resume()  # (raised before: the table would stop at every start)
        assert not again.in_progress
        record = store.load_hand(hand_id)
        assert record.hand.status == "aborted"
        assert record.hand.note is not None
        assert "its log cannot be replayed: hand_started.dealer" in record.hand.note
        assert len(record.events) == kept  # nothing lost

        assert again.start_hand(None) != hand_id  # the table plays on
        assert again.in_progress
    finally:
        store.close()


def _play_out(keeper: HandKeeper, seed: int) -> str:
    """A whole hand at the keeper, four bots playing (the order known from the lift)."""
    rng = random.Random(seed)
    order = list(range(136))
    rng.shuffle(order)
    hand_id = keeper.start_hand(tuple(order))
    bots = [Bot(s) for s in range(4)]
    while keeper.in_progress:
        state = keeper.state
        assert state is not None
        action = table_action(state, rng) or bots[waiting_seats(state)[0]].act(state)
        assert isinstance(keeper.execute(action), list)
    return hand_id


def _no_lines(settlement: dict[str, Any]) -> dict[str, Any]:
    return {"lines": 5}


def _dealer_seven(settlement: dict[str, Any]) -> dict[str, Any]:
    # read and used before: the resumed session dealt its next hand from seat 7
    return {**settlement, "next_dealer": 7}


def _net_not_its_lines(settlement: dict[str, Any]) -> dict[str, Any]:
    # well-formed, so only the settlement's own check refuses it
    net = settlement["net"]
    assert net[0] != net[1]  # (seed 3's hand is won: the nets differ)
    return {**settlement, "net": [net[1], net[0], net[2], net[3]]}


@pytest.mark.parametrize("damage", [_no_lines, _dealer_seven, _net_not_its_lines])
def test_a_damaged_finished_hand_starts_a_new_session(
    tmp_path: Path, damage: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    store = EventStore.open(f"sqlite:///{tmp_path / 'table.db'}")
    try:
        keeper = _keeper(store)
        keeper.resume()
        hand_id = _play_out(keeper, 3)
        first_session = keeper.session_id
        assert store.load_hand(hand_id).hand.status == "finished"
        last_two = [e.payload for e in store.load_hand(hand_id).events[-2:]]
        assert [e["type"] for e in last_two] == ["settled", "dice_seed_revealed"]
        settled = last_two[0]
        with store.engine.begin() as c:  # its Settled event, damaged
            c.execute(
                text("UPDATE events SET payload = :p WHERE hand_id = :h AND type = 'settled'"),
                {
                    "p": json.dumps({**settled, "settlement": damage(settled["settlement"])}),
                    "h": hand_id,
                },
            )

        again = _keeper(store)
        again.resume()  # (raised before)
        assert again.session_id not in (None, first_session)
        assert store.get_session(first_session).ended_at is not None
        assert store.load_hand(hand_id).hand.status == "finished"  # kept as it was
        assert again.session.dealer in range(4)
        _play_out(again, 4)  # the table plays on
    finally:
        store.close()
