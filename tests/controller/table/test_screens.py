"""The retained screens follow every act and every start: an adjustment, a penalty or an
undo moves the scores and the flat totals at once (before the first settlement too), a
restart mid-hand shows the hand, its 精 and the totals before anything new happens, and a
精 entered with a staff finish reaches the hand's projection."""

from __future__ import annotations

import json
import random

from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from controller.table.staff_acts import handle
from controller.table.staff_requests import HandAct, Look
from controller.web.live import LiveHub
from engine.round.commands import Adjust, Audit, Finish, Penalise, StaffCommand, Undo
from engine.settlement.ledger import plain
from tests.controller.service_helpers import play_at_keeper

AUDIT = Audit("ann", "staff", "2026-12-06T21:00:00+00:00", "count fixed")
FOUR_SEATS = [
    {"seat": 0, "hand": "19m19p19s1234567z", "melds": [], "discards": "2m"},
    {"seat": 1, "hand": "2223334445556m", "melds": [], "discards": "5p"},
    {"seat": 2, "hand": "2223334445556p", "melds": [], "discards": "5s"},
    {"seat": 3, "hand": "2223334445556s", "melds": [], "discards": "6m"},
]


def _keeper(store: EventStore, live: LiveHub) -> HandKeeper:
    outlet = Outlet(Topics("demo", "t1"), live=live)
    keeper = HandKeeper(store, outlet, parlour="demo", table="t1", ruleset="xingguo")
    keeper.resume()
    return keeper


def _retained(store: EventStore) -> dict[str, str]:
    """What the broker will hold once the outbox is drained: the last row of each topic."""
    return {e.topic.removeprefix("mahjong/demo/t1/"): e.payload for e in store.outbox_peek(10**6)}


def _act(keeper: HandKeeper, command: StaffCommand) -> None:
    view = handle(keeper, Look())
    handle(keeper, HandAct(command, view["hand_id"], view["seen"]))


def _shows_totals(store: EventStore, live: LiveHub, keeper: HandKeeper) -> None:
    totals = [plain(t) for t in keeper.session.totals]
    assert json.loads(_retained(store)["scores"])["totals"] == totals
    for seat, total in enumerate(totals):
        assert _retained(store)[f"flat/seat/{seat}/total"] == str(total)
    assert live.last("scores")["totals"] == totals


def test_acts_on_the_settled_hand_move_the_retained_scores_and_flat_totals(
    store: EventStore,
) -> None:
    live = LiveHub()
    keeper = _keeper(store, live)
    play_at_keeper(keeper, random.Random(3))
    settled = list(keeper.session.totals)
    _act(keeper, Adjust(AUDIT, 0, 2, 7))
    assert keeper.session.totals != settled
    _shows_totals(store, live, keeper)
    _act(keeper, Penalise(AUDIT, 1, "false_win"))
    _shows_totals(store, live, keeper)
    _act(keeper, Undo(AUDIT))
    _shows_totals(store, live, keeper)


def test_an_adjustment_before_the_first_settlement_is_on_the_retained_scores(
    store: EventStore,
) -> None:
    live = LiveHub()
    keeper = _keeper(store, live)
    play_at_keeper(keeper, random.Random(3), moves=20)
    _act(keeper, Adjust(AUDIT, 3, 1, 4))
    _shows_totals(store, live, keeper)


def test_a_restart_mid_hand_shows_the_hand_its_jing_and_the_totals_at_once(
    store: EventStore,
) -> None:
    keeper = _keeper(store, LiveHub())
    play_at_keeper(keeper, random.Random(3), moves=20)
    _act(keeper, Adjust(AUDIT, 0, 1, 2))
    live = LiveHub()
    again = _keeper(store, live)  # the service started again
    again.show_screens()
    state = live.snapshot()
    assert state["hand"]["hand_id"] == keeper.hand_id
    assert state["hand"]["jing"] and state["jing"]["zheng_jing"]
    assert state["scores"]["totals"] == [-2, 2, 0, 0]


def test_a_jing_entered_with_the_finish_reaches_the_hand_and_the_jing_topic(
    store: EventStore,
) -> None:
    live = LiveHub()
    keeper = _keeper(store, live)
    keeper.start_hand(None)  # no reader saw the walls, nor the flip
    _act(keeper, Finish.of(AUDIT, [], FOUR_SEATS, indicator="1m"))
    assert live.last("hand")["jing"] == {"zheng": "1m", "fu": "2m"}
    assert live.last("jing")["zheng_jing"] == "1m"
    assert json.loads(_retained(store)["jing"])["zheng_jing"] == "1m"
