"""The flat display topics (controller.mqtt.flat) through the Outlet: what a display holds
after each stored batch is what the public JSON says, only changed values are sent, a
batch the store refused is sent again, and a fault in them never keeps events from the
store."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.mqtt import flat
from controller.mqtt.flat import FLAT_NAMES, from_hand, from_scores, points
from controller.mqtt.topics import Topics
from controller.table.alerts import AlertKind, PublicAlert
from controller.table.publication import Message, Outlet, alert_message
from tests.controller.hand_messages import hand_batches

TOPICS = Topics("p1", "t1")


def flat_rows(outlet: Outlet, messages: list[Message]) -> dict[str, str]:
    rows = outlet.outbox(messages)
    outlet.committed([])
    return {
        r.topic.removeprefix(TOPICS.prefix): r.payload
        for r in rows
        if r.topic.removeprefix(TOPICS.prefix) in FLAT_NAMES
    }


def latest(batches: list[list[Message]], upto: int, name: str) -> Any:
    found = [p for batch in batches[:upto] for n, p in batch if n == name]
    return found[-1] if found else None


@settings(max_examples=12, deadline=None)
@given(
    ruleset=st.sampled_from(["xingguo", "chongji", "guangdong", "lianhua", "yongfeng"]),
    seed=st.integers(0, 10_000),
)
def test_a_display_holds_what_the_public_json_says(ruleset: str, seed: int) -> None:
    batches, _state = hand_batches("h1", seed, ruleset)
    outlet = Outlet(TOPICS)
    held: dict[str, str] = {}  # what the broker retains ("" clears)
    for n, batch in enumerate(batches, start=1):
        sent = flat_rows(outlet, batch)
        for name, value in sent.items():
            assert held.get(name) != value, f"{name} sent unchanged"
            held[name] = value
        expected = {"flat/contract": "1"} | from_hand(latest(batches, n, "hand"))
        scores = latest(batches, n, "scores")
        if scores is not None:
            expected |= from_scores(scores)
        assert {k: v for k, v in held.items() if not k.startswith("flat/alert")} == expected
    assert held["flat/state"] == "idle" and held["flat/seat/0/score"] != ""


def test_a_batch_the_store_refused_is_sent_again() -> None:
    batches, _ = hand_batches("h1", 3)
    outlet = Outlet(TOPICS)
    first = flat_rows(outlet, batches[0])
    outlet.outbox(batches[1])  # the store refused it: committed() is never called
    again = flat_rows(outlet, batches[1])
    both = flat_rows(Outlet(TOPICS), batches[0] + batches[1])
    assert first | again == both


def test_a_restart_sends_every_value_once_more() -> None:
    batches, _ = hand_batches("h1", 4)
    outlet = Outlet(TOPICS)
    for batch in batches:
        flat_rows(outlet, batch)
    restarted = flat_rows(Outlet(TOPICS), batches[-1])
    assert set(restarted) >= set(FLAT_NAMES) - {"flat/alert_seat", "flat/alert_at"}
    assert flat_rows(outlet, batches[-1]) == {}


def test_an_alert_shows_until_the_next_hand() -> None:
    outlet = Outlet(TOPICS, clock=lambda: 1700000000.9)
    one, _ = hand_batches("h1", 5)
    two, _ = hand_batches("h2", 6)
    flat_rows(outlet, one[0])
    sent = flat_rows(outlet, [alert_message(PublicAlert(AlertKind.FALSE_WIN, 2), "h1")])
    assert sent == {
        "flat/alert": "false_win",
        "flat/alert_seat": "2",
        "flat/alert_at": "1700000000",
    }
    assert "flat/alert" not in flat_rows(outlet, one[1])  # same hand: it stays
    cleared = flat_rows(outlet, two[0])
    assert cleared["flat/alert"] == "" and cleared["flat/alert_seat"] == ""


def test_the_dice_commitment_shows_before_the_wall_and_the_seed_only_with_the_settlement() -> None:
    one, first = hand_batches("h1", 8)
    two, second = hand_batches("h2", 9)
    assert first.dice_commit is not None and second.dice_commit is not None
    commitment, seed = first.dice_commit.commitment, first.dice_commit.seed
    outlet = Outlet(TOPICS)
    opening = flat_rows(outlet, one[0])
    assert opening["flat/dice_commitment"] == commitment and opening["flat/dice_seed"] == ""
    wall_at = next(
        n
        for n, batch in enumerate(one)
        for name, p in batch
        if name == "events" and p["event"]["type"] == "shuffled"
    )
    assert wall_at > 0  # the wall is stored (and published) after the commitment
    for batch in one[1:-1]:
        sent = flat_rows(outlet, batch)
        assert "flat/dice_commitment" not in sent  # it stays as it is for the whole hand
        assert not any(seed in v for v in sent.values()), "the seed before the settlement"
    assert all(name != "settlement" for b in one[:-1] for name, _ in b)
    end = flat_rows(outlet, one[-1])
    assert end["flat/dice_seed"] == seed
    assert any(name == "settlement" for name, _ in one[-1])  # revealed with the settlement
    nxt = flat_rows(outlet, two[0])
    assert nxt["flat/dice_seed"] == ""  # the next hand clears it
    assert nxt["flat/dice_commitment"] == second.dice_commit.commitment != commitment


def test_a_fault_in_the_flat_topics_keeps_the_json(monkeypatch: pytest.MonkeyPatch) -> None:
    batches, _ = hand_batches("h1", 7)

    def broken(view: Any) -> dict[str, str]:
        raise KeyError("a bug")

    monkeypatch.setattr(flat, "from_hand", broken)
    outlet = Outlet(TOPICS)
    rows = outlet.outbox(batches[0])
    outlet.committed([])
    assert [r.topic.removeprefix(TOPICS.prefix) for r in rows] == [n for n, _ in batches[0]]
    monkeypatch.undo()
    assert "flat/state" in flat_rows(outlet, batches[1])  # nothing was marked as sent


@pytest.mark.parametrize(
    ("value", "text"),
    [(12, "12"), (-3, "-3"), ("7/2", "3.5"), ("-7/2", "-3.5"), (2.0, "2"), (0, "0")],
)
def test_points(value: Any, text: str) -> None:
    assert points(value) == text
