"""The handlog payload: built from a stored hand, parsed back, and refused clearly."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.mqtt import Topics, encode
from controller.store import EventStore
from controller.table.handlog import (
    FORMAT,
    HandlogError,
    ack_topic,
    ack_topic_for,
    build_ack,
    build_handlog,
    hub_filter,
    parse_ack,
    parse_handlog,
    table_of_topic,
    topics_identity,
)
from engine.round.events import event_from_dict
from tests.controller.hub.hands import outcome, played_hands, record_hand

pytestmark = pytest.mark.timeout(120)
TOPICS = Topics("p1", "t7")


@pytest.fixture
def payload(store: EventStore) -> dict[str, Any]:
    sid = store.start_session(ruleset="xingguo", parlour="p1", table_id="t7")
    hand_id = record_hand(store, played_hands(1)[0], session_id=sid, hand_no=1)
    return build_handlog(store.load_hand(hand_id), parlour="p1", table="t7")


def test_round_trip_through_json(store: EventStore, payload: dict[str, Any]) -> None:
    stored = store.load_hand(payload["hand_id"])
    log = parse_handlog(encode(payload).encode("utf-8"), topic=TOPICS.topic("handlog"))
    assert payload["format"] == FORMAT and payload["version"] == 1
    assert (log.parlour, log.table, log.hand_id) == ("p1", "t7", stored.hand.id)
    assert log.session_id == stored.hand.session_id and log.hand_no == 1
    assert log.started_at == stored.hand.started_at and log.finished_at == stored.hand.ended_at
    assert list(log.events) == stored.event_dicts()
    assert log.settlement == stored.settlement
    assert log.net == stored.hand.net
    assert (log.result, log.winner, log.discarder) == outcome(stored.event_dicts())
    # The events are the engine's, whole: they fold back into events.
    assert [event_from_dict(e).to_dict() for e in log.events] == list(log.events)


def test_open_hands_have_no_handlog(store: EventStore) -> None:
    hand_id = store.start_hand(ruleset="xingguo", events=played_hands(1)[0][:3])
    with pytest.raises(ValueError, match="not finished"):
        build_handlog(store.load_hand(hand_id), parlour="p1", table="t7")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other"}, "handlog.format"),
        ({"version": 2}, "handlog.version: this hub reads version 1, got 2"),
        ({"table": "a/b"}, "handlog.table: not a topic level"),
        ({"hand_id": ""}, "handlog.hand_id"),
        ({"session_id": 5}, "handlog.session_id"),
        ({"hand_no": "3"}, "handlog.hand_no: expected an integer"),
        ({"winner": 4}, "handlog.winner: a seat 0-3"),
        ({"started_at": "2026-11-30T10:00:00"}, "handlog.started_at: expected an ISO 8601"),
        ({"finished_at": "yesterday"}, "handlog.finished_at"),
        ({"events": []}, "handlog.events: expected a non-empty list"),
        ({"events": [{"seat": 1}]}, r"handlog.events\[0\]: needs a 'type'"),
        ({"settlement": {"net": [1, 2, 3]}}, "handlog.settlement.net: expected 4 numbers"),
        ({"result": None}, "handlog.result"),
        # What one table account could send to take the hub down:
        ({"hand_no": 10**30}, "handlog.hand_no: expected 0-1000000"),
        ({"hand_id": "h\x00"}, "handlog.hand_id: not a topic level id"),
        ({"started_at": "9999-12-31T23:59:59-23:59"}, "handlog.started_at: .* out of range"),
        ({"table_seq": -1}, "handlog.table_seq"),
        ({"clock_synced": "yes"}, "handlog.clock_synced"),
        ({"played_s": float("nan")}, "handlog.played_s"),
        ({"events": [{"type": "x", "note": "a\x00"}]}, r"handlog.events\[0\].note: a NUL"),
        ({"events": [{"type": "x", "n": float("inf")}]}, "number out of range"),
        ({"settlement": {"net": [1e30, 0, 0, 0]}}, "handlog.settlement.net"),
        ({"settlement": {"net": [0, 0, 0, 0], "x": "y" * 5000}}, "more than 4096"),
    ],
)
def test_invalid_payloads_name_the_field(
    payload: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    with pytest.raises(HandlogError, match=message):
        parse_handlog(payload | change)


@pytest.mark.parametrize(
    "change",
    [
        {"started_at": "1970-01-02T00:00:05+00:00", "finished_at": "1970-01-02T00:06:00+00:00"},
        {"finished_at": "2026-01-01T00:00:00+00:00"},  # the clock moved back mid-hand
        {"started_at": "1970-01-02T00:00:05+00:00"},  # set by NTP mid-hand
    ],
)
def test_a_hand_is_kept_whatever_its_clock_said_and_marked_unsynchronised(
    payload: dict[str, Any], change: dict[str, Any]
) -> None:
    log = parse_handlog(payload | change | {"clock_synced": None})
    assert log.clock_synced is False
    assert log.started_at.isoformat() == (payload | change)["started_at"]
    assert parse_handlog(payload | {"clock_synced": True}).clock_synced is True


def test_deep_big_and_non_finite_json_is_refused_before_parsing() -> None:
    with pytest.raises(HandlogError, match="nested 200000 deep, more than 16"):
        parse_handlog(b"[" * 200_000 + b"]" * 200_000)
    with pytest.raises(HandlogError, match="more than 1048576"):
        parse_handlog(b" " * (1 << 20) + b"{}")
    with pytest.raises(HandlogError, match="NaN is not a JSON number"):
        parse_handlog(b'{"hand_no": NaN}')


def test_not_json_and_not_an_object() -> None:
    with pytest.raises(HandlogError, match="handlog: not JSON"):
        parse_handlog(b"\xff{")
    with pytest.raises(HandlogError, match="expected a JSON object, got list"):
        parse_handlog("[1]")
    # more digits than Python converts: json.loads raises a plain ValueError
    with pytest.raises(HandlogError, match=r"handlog: not JSON \(Exceeds the limit"):
        parse_handlog(b'{"hand_no": 1' + b"0" * 5000 + b"}")


def test_a_table_reports_only_its_own_hands(payload: dict[str, Any]) -> None:
    with pytest.raises(HandlogError, match="says p1/t7 but came on 'mahjong/p1/t8/handlog'"):
        parse_handlog(payload, topic="mahjong/p1/t8/handlog")


def test_later_additions_are_accepted(payload: dict[str, Any]) -> None:
    assert parse_handlog(payload | {"later_addition": ["a", "b", "c", "d"]}).hand_id


def test_topics_and_acks() -> None:
    assert ack_topic(TOPICS) == "mahjong/p1/t7/handlog_ack"
    assert ack_topic_for("mahjong/p1/t7/handlog") == "mahjong/p1/t7/handlog_ack"
    assert hub_filter("p1") == "mahjong/p1/+/handlog"
    assert table_of_topic("a/b/mahjong/p1/t7/handlog") == ("p1", "t7")
    assert topics_identity(Topics("p1", "t7", root="x/y")) == ("p1", "t7")
    with pytest.raises(HandlogError, match="not a handlog topic"):
        table_of_topic("mahjong/p1/t7/scores")
    assert parse_ack(json.dumps(build_ack("h1"))) == "h1"
    with pytest.raises(HandlogError, match=r"handlog_ack\.hand_id"):
        parse_ack(b'{"hand": "h1"}')
