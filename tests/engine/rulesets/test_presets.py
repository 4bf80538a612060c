"""Presets: every built-in loads (with its wall rules), owners' edits are validated."""

from __future__ import annotations

import tomllib

import pytest

from engine.rulesets import PresetError, builtin_ids, builtin_preset_text, load_ruleset
from engine.rulesets.registry import ruleset_from_data

ALL = ["chongji", "guangdong", "jian", "lianhua", "nanchang", "xingguo", "yichun", "yongfeng"]


def test_all_eight_builtin() -> None:
    assert builtin_ids() == ALL


@pytest.mark.parametrize("ruleset_id", ALL)
def test_builtin_loads_with_its_wall_rules(ruleset_id: str) -> None:
    ruleset = load_ruleset(ruleset_id)
    assert ruleset.id == ruleset_id
    assert ruleset.wall_rules().procedure is ruleset.preset.table.dice


def test_owner_copy_with_changed_values() -> None:
    data = tomllib.loads(builtin_preset_text("xingguo"))
    data["id"] = "parlour-xingguo"
    data["win"]["deguo_bonus"] = 10
    ruleset = ruleset_from_data(data)
    assert ruleset.id == "parlour-xingguo"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"win": {"deguo_bonus": -1}}, "win.deguo_bonus"),
        ({"win.no_such_thing": 1}, "win.no_such_thing"),
        ({"table": {"dice": "three_dice"}}, "table.dice"),
        ({"jing.chongguan_at": "five"}, "jing.chongguan_at"),
    ],
)
def test_invalid_values_name_the_field(options: dict[str, object], field: str) -> None:
    with pytest.raises(PresetError, match=field.replace(".", r"\.")):
        load_ruleset("xingguo", options)


def test_unknown_ruleset() -> None:
    with pytest.raises(PresetError, match="unknown ruleset"):
        load_ruleset("mars")
