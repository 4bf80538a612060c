"""Every error the engine raises for what it refuses has one root, ``EngineError``, and keeps
the builtin base its callers knew."""

from __future__ import annotations

import pytest

from engine.errors import CorruptLog, EngineError
from engine.round import event_from_dict, fold
from engine.rulesets import PresetError, load_ruleset
from engine.settlement import SettleInputError
from engine.simulation import IllegalMove
from engine.tiles import TileNotationError, parse_kinds


@pytest.mark.parametrize(
    ("error", "base"),
    [
        (CorruptLog, ValueError),
        (PresetError, ValueError),
        (SettleInputError, ValueError),
        (TileNotationError, ValueError),
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
