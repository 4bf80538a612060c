"""Every error the engine raises for what it refuses has one root, ``EngineError``, and keeps
the builtin base its callers knew."""

from __future__ import annotations

from typing import Any, cast

import pytest

from engine.errors import CorruptLog, EngineError
from engine.hand import Meld, MeldError, MeldType
from engine.round import event_from_dict, fold, settlement_from_dict
from engine.round.events import SettlementDict
from engine.rulesets import PresetError, load_ruleset
from engine.settlement import SettleInputError, Settlement
from engine.simulation import IllegalMove
from engine.tiles import TileNotationError, parse_kinds
from engine.wall import Dice, WallError


@pytest.mark.parametrize(
    ("error", "base"),
    [
        (CorruptLog, ValueError),
        (PresetError, ValueError),
        (SettleInputError, ValueError),
        (TileNotationError, ValueError),
        (WallError, ValueError),
        (MeldError, ValueError),
        (IllegalMove, RuntimeError),
    ],
)
def test_each_engine_error_has_the_root_and_its_old_base(error: type, base: type) -> None:
    assert issubclass(error, EngineError) and issubclass(error, base)


def test_what_the_engine_refuses_is_caught_at_the_root() -> None:
    with pytest.raises(EngineError, match="unknown event type 'nothing'"):
        event_from_dict({"type": "nothing"})
    with pytest.raises(EngineError, match="hand_started"):
        fold([])
    with pytest.raises(EngineError, match="not a tile"):
        parse_kinds("12x")
    with pytest.raises(EngineError):
        load_ruleset("xingguo", {"no_such_option": 1})


def test_a_wall_move_refused_and_a_meld_that_is_none_are_engine_errors() -> None:
    with pytest.raises(EngineError, match="a die shows 1–6"):
        Dice(0, 3)
    with pytest.raises(EngineError, match="not a chow"):
        Meld(MeldType.CHOW, (0, 1, 3), 0)


_SETTLEMENT: dict[str, Any] = {
    "lines": [{"code": "win", "reason": "胡", "from": 1, "to": 0, "amount": 2}],
    "net": [2, -2, 0, 0],
    "next_dealer": 0,
    "void": False,
    "dealer_streak": 1,
    "prevailing_wind": 27,
    "notes": [],
    "house_fee": 0,
}


def _read(row: dict[str, Any]) -> Settlement:
    """A settlement row as read back from a store, unchecked."""
    return settlement_from_dict(cast(SettlementDict, row))


def test_a_damaged_settlement_row_is_a_corrupt_log_naming_what_is_wrong() -> None:
    assert _read(_SETTLEMENT).net == (2, -2, 0, 0)
    no_fee = {k: v for k, v in _SETTLEMENT.items() if k != "house_fee"}
    with pytest.raises(CorruptLog, match="settlement: no 'house_fee'"):
        _read(no_fee)
    with pytest.raises(CorruptLog, match="settlement: "):
        _read({**_SETTLEMENT, "lines": 5})
    with pytest.raises(CorruptLog, match=r"not an amount: 2\.5"):
        _read({**_SETTLEMENT, "house_fee": 2.5})
    with pytest.raises(CorruptLog, match="settlement: "):
        _read({**_SETTLEMENT, "house_fee": "1/0"})
    with pytest.raises(CorruptLog, match=r"net \[2, 0, 0, -2\] is not what its lines pay"):
        _read({**_SETTLEMENT, "net": [2, 0, 0, -2]})
