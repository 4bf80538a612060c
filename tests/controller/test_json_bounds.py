"""The one bounded loader of a JSON object from outside (the hub's handlogs, its house
rulesets and the tables' answers): the bounds, and an object only."""

from __future__ import annotations

import pytest

from controller.hub.house_sync import HouseSyncError, parse_ack, parse_house
from controller.json_bounds import JsonBoundsError, loads_object
from controller.table.handlog import HandlogError, parse_handlog


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("[1, 2]", "expected a JSON object, got list"),
        ('"text"', "expected a JSON object, got str"),
        ('{"a": ' * 9 + "1" + "}" * 9, "nested 9 deep"),
        ('{"a": "' + "x" * 300 + '"}', "more than 256"),
        ("{not json", "not JSON"),
    ],
)
def test_an_object_within_its_bounds_or_refused_saying_why(raw: str, says: str) -> None:
    with pytest.raises(JsonBoundsError, match=says):
        loads_object(raw, max_bytes=256, max_depth=4)
    assert loads_object('{"a": [1]}', max_bytes=256, max_depth=4) == {"a": [1]}


def test_the_hubs_and_the_tables_messages_are_read_by_it() -> None:
    for parse, error in ((parse_house, HouseSyncError), (parse_ack, HouseSyncError)):
        with pytest.raises(error, match="expected a JSON object, got list"):
            parse(b"[]")
    with pytest.raises(HandlogError, match="expected a JSON object, got list"):
        parse_handlog(b"[]")
