"""The waiting-for-staff notice is a screen of the store: held, it is stored with the hand
and said; a restart says it again from the store before anything new happens; the void
that ends the hand takes it back, and the next start says nothing of it."""

from __future__ import annotations

import random

from controller.store import EventStore
from controller.table.hand_keeper import HandKeeper
from controller.web.live import LiveHub
from engine.round.commands import Adjust, Void
from tests.controller.service_helpers import play_at_keeper
from tests.controller.table.test_screens import AUDIT, _act, _keeper


def _said(live: LiveHub) -> dict[str, object]:
    status = live.last("status")
    assert isinstance(status, dict)
    return status


def _restarted(store: EventStore) -> tuple[HandKeeper, LiveHub]:
    live = LiveHub()
    keeper = _keeper(store, live)
    keeper.show_screens()  # (the service's start-up)
    return keeper, live


def test_the_notice_is_said_from_the_store_after_a_restart_and_follows_the_acts(
    store: EventStore,
) -> None:
    live = LiveHub()
    keeper = _keeper(store, live)
    hand_id = play_at_keeper(keeper, random.Random(5), moves=30)
    keeper.hold("牌墙已换", "the walls changed")
    said = _said(live)
    assert (said["hand"], said["hand_id"]) == ("waiting_for_staff", hand_id)

    keeper, live = _restarted(store)  # a new process: nothing in memory
    assert keeper.waiting is not None and keeper.hand_id == hand_id
    assert _said(live) == said  # before anything new happens

    _act(keeper, Adjust(AUDIT, 0, 1, 2))
    assert _said(live) == said  # an act on the hand: it still waits for staff
    _act(keeper, Void(AUDIT))
    assert _said(live) == {"state": "online"}  # the hand is over

    keeper, live = _restarted(store)
    assert _said(live) == {"state": "online"} and keeper.waiting is None
