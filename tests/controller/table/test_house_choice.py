"""The table takes an owner's house ruleset at its next session, never mid-session or
mid-hand (or at the next hand when the owner asked for that); each hand records the house
ruleset and the values it was played under, which replay and ``mjtable settle --preset``
use; a table no owner assigned anything keeps table.toml's rules; a house ruleset the
table cannot validate is never played."""

from __future__ import annotations

import json
import random
from pathlib import Path

from sqlalchemy import update
from typer.testing import CliRunner

from controller.cli import (
    app,
    commands,  # noqa: F401  (registers the commands)
)
from controller.cli.json_input import loads
from controller.house.options import preset_toml
from controller.hub.house_sync import HouseMessage, take_house
from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.store.house_rules import HouseRules
from controller.store.models import HOUSE_RULESETS
from controller.table.hand_keeper import HandKeeper
from controller.table.handlog import handlog_of
from controller.table.house_choice import HouseChoice, RulesInForce
from controller.table.publication import Outlet
from controller.table.screens import screen_messages
from controller.table.staff_acts import current_view
from engine.bots import Bot
from engine.round import event_from_dict
from engine.round.finish import finished_hand
from engine.round.fold import fold
from engine.round.replay import check
from engine.settlement.finished_hand import request_of
from engine.simulation import table_action, waiting_seats
from tests.controller.service_helpers import play_at_keeper

BONUS = {"win.deguo_bonus": 10}
HOUSE = {"name": "本店兴国", "version": 1}
runner = CliRunner()


def _keeper(store: EventStore) -> HandKeeper:
    keeper = HandKeeper(
        store, Outlet(Topics("demo", "t1")), parlour="demo", table="t1", ruleset="xingguo"
    )
    keeper.rules_choice = HouseChoice(store, "t1", RulesInForce("xingguo", {}))
    return keeper


def _started(store: EventStore, hand_id: str) -> tuple[str, dict[str, object]]:
    first = event_from_dict(store.load_hand(hand_id).event_dicts()[0])
    return first.ruleset, first.options  # type: ignore[attr-defined]


def test_a_table_without_an_assignment_keeps_table_tomls_rules(store: EventStore) -> None:
    keeper = _keeper(store)
    keeper.resume()
    hand = play_at_keeper(keeper, random.Random(1))
    assert _started(store, hand) == ("xingguo", {})
    session = store.open_session()
    assert session is not None and session.house is None and session.options == {}
    assert store.load_hand(hand).hand.house is None
    assert "house" not in dict(screen_messages(keeper.view()))["scores"]


def test_the_assigned_house_ruleset_starts_with_the_next_session(
    store: EventStore, tmp_path: Path
) -> None:
    keeper = _keeper(store)
    keeper.resume()
    rules = HouseRules(store)
    rules.save("本店兴国", "xingguo", BONUS, "boss")
    rules.assign("t1", "本店兴国", "boss")
    rng = random.Random(7)
    before = play_at_keeper(keeper, rng)  # the session goes on under its own rules
    assert _started(store, before) == ("xingguo", {})
    keeper.new_session()
    session = store.open_session()
    assert session is not None and session.house == HOUSE and session.options == BONUS
    assignment = rules.assignment("t1")
    assert assignment is not None and assignment.applied_version == 1
    preset = tmp_path / "house.toml"
    preset.write_text(preset_toml("xingguo", BONUS, "本店兴国"), encoding="utf-8")
    for _ in range(3):
        hand = play_at_keeper(keeper, rng)
        stored = store.load_hand(hand)
        assert stored.hand.house == HOUSE
        assert _started(store, hand) == ("xingguo", BONUS)
        state = fold([event_from_dict(e) for e in stored.event_dicts()])
        assert check(state, {"the stored settlement": stored.settlement}) is None  # replay
        request = tmp_path / "hand.json"
        request.write_text(json.dumps(request_of(finished_hand(state))), encoding="utf-8")
        settled = runner.invoke(app, ["settle", str(request), "--preset", str(preset)])
        assert settled.exit_code == 0, settled.output
        assert loads(settled.output) == stored.settlement
        log = handlog_of(
            stored.hand, stored.event_dicts(), stored.settlement, parlour="demo", table="t1"
        )
        assert log["house"] == HOUSE
    # the displays (the scores screen) and the console name it
    assert dict(screen_messages(keeper.view()))["scores"]["house"] == "本店兴国"
    assert current_view(keeper)["house"] == "本店兴国"
    # a restart resumes the session under its house ruleset
    again = _keeper(store)
    again.resume()
    assert again.session_id == keeper.session_id and again.house == HOUSE


def _finish(keeper: HandKeeper, rng: random.Random) -> None:
    """The hand in play, played to its end by four bots."""
    bots = [Bot(s) for s in range(4)]
    while keeper.in_progress:
        state = keeper.state
        assert state is not None
        action = table_action(state, rng) or bots[waiting_seats(state)[0]].act(state)
        assert isinstance(keeper.execute(action), list)


def test_from_the_next_hand_when_the_owner_asks_so(store: EventStore) -> None:
    keeper = _keeper(store)
    keeper.resume()
    rng = random.Random(3)
    session = keeper.session_id
    mid = play_at_keeper(keeper, rng, moves=5)
    assert keeper.in_progress
    rules = HouseRules(store)
    rules.save("本店兴国", "xingguo", BONUS, "boss")
    rules.assign("t1", "本店兴国", "boss", from_next_hand=True)
    _finish(keeper, rng)  # the hand in play keeps its rules …
    assert _started(store, mid) == ("xingguo", {})
    after = play_at_keeper(keeper, rng)  # … the next one, in the same session, the house's
    assert keeper.session_id == session
    assert _started(store, after) == ("xingguo", BONUS)
    resumed = store.open_session()
    assert resumed is not None and resumed.house == HOUSE and resumed.options == BONUS


def test_a_house_ruleset_the_table_cannot_validate_is_never_played(store: EventStore) -> None:
    keeper = _keeper(store)
    keeper.resume()
    rules = HouseRules(store)
    rules.save("本店兴国", "xingguo", BONUS, "boss")
    rules.assign("t1", "本店兴国", "boss")
    with store.engine.begin() as c:  # a value this software refuses (as from a newer hub)
        c.execute(update(HOUSE_RULESETS).values(options={"win.deguo_bonus": -5}))
    keeper.new_session()
    session = store.open_session()
    assert session is not None and session.house is None and session.options == {}
    assignment = rules.assignment("t1")
    assert assignment is not None and assignment.applied_version is None
    assert assignment.problem is not None and "「德国奖分」" in assignment.problem
    assert keeper.rules_choice is not None and keeper.rules_choice.problem == assignment.problem
    assert current_view(keeper)["house_problem"] == assignment.problem  # the console says why


def test_the_hubs_rules_refused_as_they_came_stay_said_while_the_old_ones_play_on(
    store: EventStore,
) -> None:
    """The hub's next version of the played house ruleset, refused: the next session plays
    the version before, and the console still says why the hub's is not played."""
    keeper = _keeper(store)
    keeper.resume()
    rules = HouseRules(store)
    rules.save("本店兴国", "xingguo", BONUS, "boss")
    rules.assign("t1", "本店兴国", "boss")
    keeper.new_session()
    assert (a := rules.assignment("t1")) is not None and a.applied_version == 1
    sent = HouseMessage("本店兴国", "xingguo", {"win.deguo_bonus": -5}, 2, False, "boss")
    why = take_house(store, "t1", sent)
    assert why is not None and "「德国奖分」" in why
    keeper.new_session()
    session = store.open_session()
    assert session is not None and session.house == HOUSE and session.options == BONUS
    assert current_view(keeper)["house_problem"] == why  # the console says why
    assert (a := rules.assignment("t1")) is not None and a.problem == why


def test_the_hubs_first_rules_refused_as_they_came_are_said_and_audited_once(
    store: EventStore,
) -> None:
    """A table no owner assigned anything refuses the hub's house ruleset: it keeps
    table.toml's rules, the console says why, the audit has it once (the retained message
    comes again on each reconnect); rules it can play, sent next, end it."""
    keeper = _keeper(store)
    keeper.resume()
    bad = HouseMessage("本店兴国", "xingguo", {"win.deguo_bonus": -5}, 1, False, "boss")
    why = take_house(store, "t1", bad)
    assert why is not None and take_house(store, "t1", bad) == why
    keeper.new_session()
    session = store.open_session()
    assert session is not None and session.house is None and session.options == {}
    assert current_view(keeper)["house_problem"] == why
    refused = [e for e in HouseRules(store).audit() if e.action == "refuse"]
    assert [(e.table_id, e.new["version"], e.new["problem"]) for e in refused] == [("t1", 1, why)]
    good = HouseMessage("本店兴国", "xingguo", BONUS, 2, False, "boss")
    assert take_house(store, "t1", good) is None
    assert current_view(keeper)["house_problem"] is None
