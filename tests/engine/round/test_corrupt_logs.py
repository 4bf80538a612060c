"""A damaged hand log is refused with a reason, at the step that shows it: reading an
event (``event_from_dict``: ValueError), folding it (``CorruptLog``) or checking the
settlement (``check`` says why). Nothing else escapes, whatever the damage."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from engine.round import CorruptLog, event_from_dict, fold
from engine.round.events import DiceRolled, HandStarted
from engine.round.narration import owner_text, public_text
from engine.round.replay import check, split_hands, steps
from engine.simulation import play_session
from tests.engine.round_helpers import RULESETS

GOOD = {"type": "drew", "seat": 1, "tile": 40, "position": 60}


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"seat": "1"}, "drew.seat: Input should be a valid integer"),
        ({"seat": True}, "drew.seat: Input should be a valid integer"),
        ({"seat": 1.0}, "drew.seat: Input should be a valid integer"),
        ({"seat": 4}, "drew.seat: Input should be less than or equal to 3"),
        ({"seat": -1}, "drew.seat: Input should be greater than or equal to 0"),
        ({"tile": 136}, "drew.tile: Input should be less than or equal to 135"),
        ({"tile": [40]}, "drew.tile: Input should be a valid integer"),
        ({"position": None}, "drew.position: Input should be a valid integer"),
    ],
)
def test_a_field_the_event_cannot_hold_is_named(change: dict[str, Any], says: str) -> None:
    assert event_from_dict(GOOD).to_dict() == GOOD
    with pytest.raises(ValueError, match=says):
        event_from_dict({**GOOD, **change})


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"type": "drew", "seat": 1, "tile": 40}, "drew.position: Field required"),
        ({"type": "punged", "seat": 1, "from_seat": 0, "tile": 9, "tiles": [10]}, "punged.tiles"),
        ({"type": "dice_rolled", "purpose": "break", "seat": 0, "a": 7, "b": 1}, "dice_rolled.a"),
        ({"type": "dice_rolled", "purpose": "lunch", "seat": 0, "a": 1, "b": 1}, "purpose"),
        ({"type": "dealt", "tiles": [[1, 2], 3]}, "dealt.tiles.1"),
        ({"type": "hand_started", "ruleset": "jian", "dealer": 0, "options": []}, "options"),
        ({"type": "claims_resolved", "tile": 5, "passed": None}, "claims_resolved.passed"),
        ({"type": "win_declared", "seat": 0, "tile": 5, "source": None}, "win_declared.source"),
    ],
)
def test_events_of_every_shape_are_checked(data: dict[str, Any], says: str) -> None:
    with pytest.raises(ValueError, match=says):
        event_from_dict(data)


def _settled_log() -> list[dict[str, Any]]:
    result = next(play_session("xingguo", 1, random.Random(3)))
    log = [e.to_dict() for e in result.log]
    assert log[-1]["type"] == "settled" and log[-1]["settlement"]["lines"]
    return log


@pytest.mark.parametrize(
    ("where", "value", "says"),
    [
        # each of these was read and folded: a resumed session took seat 7 as the dealer
        (("next_dealer",), 7, "settled.settlement.next_dealer: Input should be less than"),
        (("next_dealer",), "1", "settled.settlement.next_dealer: Input should be a valid int"),
        (("void",), "no", "settled.settlement.void: Input should be a valid boolean"),
        (("notes",), [1], "settled.settlement.notes.0: Input should be a valid string"),
        (("prevailing_wind",), 99, "settled.settlement.prevailing_wind"),
        (("dealer_streak",), -1, "settled.settlement.dealer_streak"),
        (("net",), [0, 0, 0], "settled.settlement.net: List should have at least 4 items"),
        (("mood",), "happy", "settled.settlement.mood: Extra inputs are not permitted"),
        # ``check`` raised IndexError on this one (its nets index the seats)
        (("lines", 0, "from"), 9, "settled.settlement.lines.0.from: Input should be less"),
        (("lines", 0, "amount"), 1.5, "settled.settlement.lines.0.amount"),
        (("lines", 0, "amount"), "1.5", "settled.settlement.lines.0.amount"),
        (("house_fee",), "7/0", "settled.settlement.house_fee"),
    ],
)
def test_a_settlement_the_session_cannot_use_is_refused(
    where: tuple[str | int, ...], value: Any, says: str
) -> None:
    log = _settled_log()
    target: Any = log[-1]["settlement"]
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    with pytest.raises(ValueError, match=says):
        event_from_dict(log[-1])


def test_a_settlement_whose_nets_are_not_its_lines_is_corrupt() -> None:
    """The nets are what the displays and the owners' pages show: they must be the lines'."""
    log = _settled_log()
    net = log[-1]["settlement"]["net"]
    net[0], net[1] = net[1], net[0]
    assert net[0] != net[1]
    events = [event_from_dict(e) for e in log]
    with pytest.raises(CorruptLog, match=r"settled: net \[.*\] is not what its lines pay"):
        fold(events)


def test_a_log_event_round_trips_as_tuples() -> None:
    e = event_from_dict({"type": "dealt", "tiles": [[1, 2], [3], [], [4]]})
    assert e.to_dict() == {"type": "dealt", "tiles": [[1, 2], [3], [], [4]]}
    assert e == event_from_dict(e.to_dict())


def test_a_hand_of_an_unknown_ruleset_is_corrupt() -> None:
    started = HandStarted("no-such-rules", 0)
    with pytest.raises(CorruptLog, match=r"hand_started: .*unknown ruleset"):
        fold([started])
    with pytest.raises(CorruptLog, match="hand_started"):
        list(steps([started]))


def test_the_second_break_roll_before_the_first_is_corrupt() -> None:
    started = HandStarted("xingguo", 0)  # two rolls to break the wall
    with pytest.raises(CorruptLog, match="second roll to break comes before the first"):
        fold([started, DiceRolled("break_second", 0, 3, 4)])


def test_a_folded_hand_that_cannot_be_settled_is_reported() -> None:
    result = next(play_session("guangdong", 1, random.Random(3)))
    state = fold(result.log)
    assert check(state) is None
    state.hands[0].append(state.hands[1].pop())  # 大相公 and 小相公: nothing settles that
    why = check(state)
    assert why is not None and why.startswith("the folded hand cannot be settled: ")


def test_a_settlement_kept_beside_the_log_is_checked_line_by_line() -> None:
    result = next(play_session("guangdong", 1, random.Random(3)))
    state = fold(result.log)
    assert state.settlement is not None
    kept = state.settlement.as_dict()
    assert check(state, {"the stored settlement": kept}) is None
    assert check(state, {"the stored settlement": None}) == "the stored settlement is missing"
    changed = {**kept, "lines": [{**kept["lines"][0], "reason": "made up"}, *kept["lines"][1:]]}
    why = check(state, {"the stored settlement": changed})
    assert why is not None and why.startswith("the stored settlement: line 1 reason: 'made up'")


def _logs() -> list[list[dict[str, Any]]]:
    return [
        [e.to_dict() for e in r.log]
        for ruleset in RULESETS
        for r in play_session(ruleset, 2, random.Random(f"corrupt-{ruleset}"))
    ]


def _damaged(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))  # (a settlement, a line of it, the options)
        return {**value, key: _damaged(value[key], rng)}
    if isinstance(value, list) and value and rng.random() < 0.5:
        value = list(value)
        i = rng.randrange(len(value))
        value[i] = _damaged(value[i], rng)
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return rng.choice([value + 1, value - 1, -1, 136, 999, None, "3", 3.5, [value], True])
    return rng.choice([None, 0, "x", [], {}, [1, 2, 3]])


def test_damaged_logs_are_refused_with_a_reason_and_nothing_else() -> None:
    """Fields changed, events dropped, swapped or repeated: every outcome is a reason."""
    rng = random.Random(20261130)
    logs = _logs()

    def damaged() -> Iterator[list[dict[str, Any]]]:
        for _ in range(400):
            log = [dict(e) for e in rng.choice(logs)]
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(len(log))
                op = rng.random()
                if op < 0.6:
                    key = rng.choice([k for k in log[i] if k != "type"] or ["type"])
                    log[i][key] = _damaged(log[i][key], rng)
                elif op < 0.75 and len(log) > 1:
                    del log[i]
                elif op < 0.9:
                    j = rng.randrange(len(log))
                    log[i], log[j] = log[j], log[i]
                else:
                    log.insert(i, dict(log[rng.randrange(len(log))]))
            yield log

    outcomes = _replayed(damaged())
    # the damage reaches every stage (a change can also leave a log valid: a swapped pair)
    assert outcomes["unreadable"] and outcomes["corrupt"] and outcomes["mismatch"]


def test_a_damaged_settlement_is_refused_with_a_reason_and_nothing_else() -> None:
    """The settled event's payload, deep inside: a line's seat, an amount, the dealer."""
    rng = random.Random(20261201)
    logs = _logs()
    damaged = []
    for _ in range(300):
        log = [dict(e) for e in rng.choice(logs)]
        assert log[-1]["type"] == "settled"
        log[-1]["settlement"] = _damaged(log[-1]["settlement"], rng)
        damaged.append(log)
    outcomes = _replayed(damaged)
    assert outcomes["unreadable"] and outcomes["corrupt"]


def _replayed(logs: Iterable[list[dict[str, Any]]]) -> Counter[str]:
    """What ``mjtable replay`` makes of each log: a reason at some step, or a match."""
    outcomes: Counter[str] = Counter()
    for log in logs:
        try:
            events = [event_from_dict(json.loads(json.dumps(d))) for d in log]
        except ValueError as err:
            assert str(err)
            outcomes["unreadable"] += 1
            continue
        for hand in split_hands(events):
            try:
                state = None
                for event, after in steps(hand):
                    assert owner_text(event) and public_text(event)
                    state = after
            except CorruptLog as err:
                assert str(err)
                outcomes["corrupt"] += 1
                continue
            assert state is not None
            outcomes["mismatch" if check(state) else "matches"] += 1
    return outcomes
