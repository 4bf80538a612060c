"""Presets: every built-in loads (with its wall rules), owners' edits are validated."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

import engine
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


def _sections(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(dotted option, attribute name) of every option a preset model holds."""
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            yield from _sections(kind, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", name


def _attributes_read(folder: Path) -> set[str]:
    """Every attribute name the code under ``folder`` reads (``x.name``, ``getattr(x, "name")``)."""
    read: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                read.add(node.attr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "getattr"
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
            ):
                read.add(str(node.args[1].value))
    return read


PEOPLES_TEXT = {"description"}  # shown by `mjtable rules list`, not a rule


@pytest.mark.parametrize("ruleset_id", ALL)
def test_every_option_of_a_preset_is_read_by_the_engine(ruleset_id: str) -> None:
    """An option no code reads would do nothing; `rules check` refuses unknown ones."""
    read = _attributes_read(Path(engine.__file__).parent)
    model = type(load_ruleset(ruleset_id).preset)
    unread = [o for o, name in _sections(model) if name not in read | PEOPLES_TEXT]
    assert unread == []


@pytest.mark.parametrize(
    ("ruleset_id", "option"),
    [("xingguo", "win.seize_dealer_big"), ("xingguo", "shapes.honor_sets_by_chow")],
)
def test_an_option_the_engine_does_not_read_is_refused(ruleset_id: str, option: str) -> None:
    with pytest.raises(PresetError, match=option.replace(".", r"\.") + ": unknown field"):
        load_ruleset(ruleset_id, {option: False})


@pytest.mark.parametrize("order", ["largest", "protected_first"])
def test_a_claim_order_the_family_cannot_apply_is_refused(order: str) -> None:
    """The jing family's settlement takes the nearest winner or all of them, nothing else."""
    with pytest.raises(PresetError, match=r"table\.multiple_winners: .*cannot apply"):
        load_ruleset("xingguo", {"table.multiple_winners": order})
    assert load_ruleset("chongji", {"table.multiple_winners": order})
