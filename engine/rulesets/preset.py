"""Validated presets: the data half of a ruleset.

A preset is a TOML file (the built-in ones live in ``engine/rulesets/presets/``). An owner
copies one, changes values and loads it; anything invalid is rejected with the field named.
Every ``[decision]`` of the spec is a field here, defaulting to the spec's value.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Mapping
from importlib import resources
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.errors import EngineError
from engine.hand import Shape, ShapeOptions
from engine.wall import BreakProcedure, JumpStyle, StartAt


class PresetError(EngineError, ValueError):
    """A preset or an option override is invalid; the message names the field."""


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ShapesConfig(Section):
    """Which hands win, and how wildcards may be used in them."""

    honor_sets: bool = False  # 东南西 / 中发白 as concealed sets
    xiaoqi: bool = True
    daqi: bool = True
    shisanlan: bool = False
    qixing_shisanlan: bool = False
    shisanyao: bool = False
    jiulian: bool = False
    quanfeng: bool = False  # all honors without shape
    sicaishen: bool = False  # four wildcards without shape, self-draw only
    fifth_copy: bool = True  # [decision] a wildcard may stand for a fifth copy
    wild_in_shisanlan: bool = True  # [decision] a wildcard may fill 十三烂
    wild_for_qixing_honor: bool = True  # [decision] ... and a 七星 honor

    def options(self) -> ShapeOptions:
        shapes = {Shape.PINGHU}
        for flag, shape in (
            (self.xiaoqi, Shape.XIAOQI),
            (self.daqi, Shape.DAQI),
            (self.shisanlan, Shape.SHISANLAN),
            (self.qixing_shisanlan, Shape.QIXING_SHISANLAN),
            (self.shisanyao, Shape.SHISANYAO),
            (self.jiulian, Shape.JIULIAN),
            (self.quanfeng, Shape.QUANFENG),
            (self.sicaishen, Shape.SICAISHEN),
        ):
            if flag:
                shapes.add(shape)
        return ShapeOptions(
            honor_sets=self.honor_sets,
            shapes=frozenset(shapes),
            fifth_copy=self.fifth_copy,
            wild_in_shisanlan=self.wild_in_shisanlan,
            wild_for_qixing_honor=self.wild_for_qixing_honor,
        )


# Several winners on one discard: the nearest after the discarder (胡前不胡后), all of them
# (一炮多响), the largest hand (chongji 小的不能拦大的), or the protected hands first and then
# the nearest (chongji's 不能拦胡 read as: any other hand the nearer seat may intercept).
MultipleWinners = Literal["nearest", "all", "largest", "protected_first"]


class TableConfig(Section):
    """Dice and the wall (see ``engine.wall``), the flipped tile and the claim order."""

    dice: BreakProcedure = BreakProcedure.TWO_ROLLS_TOTAL_LEFT
    start: StartAt | None = None  # draw AT or AFTER the counted 墩; None = the procedure's
    jump: JumpStyle = JumpStyle.TILES_1_3  # 跳庄
    reserve_stacks: int = Field(default=0, ge=0, le=30)  # yongfeng: 17 墩 kept back
    flipped_in_play: bool = True  # False: the flipped 精 stays face up, out of play
    multiple_winners: MultipleWinners = "nearest"


class PresetBase(Section):
    # the shapes the family's settlement has a price for; a preset may enable no other
    priced_shapes: ClassVar[frozenset[Shape]] = frozenset(Shape)
    # the claim orders the family's settlement can apply; a preset may choose no other
    claim_orders: ClassVar[frozenset[str]] = frozenset({"nearest", "all", "largest"})

    id: str
    name: str
    family: str
    description: str = ""
    shapes: ShapesConfig = ShapesConfig()
    table: TableConfig = TableConfig()


def builtin_ids() -> list[str]:
    folder = resources.files("engine.rulesets") / "presets"
    names = (p.name for p in folder.iterdir())
    return sorted(n.removesuffix(".toml") for n in names if n.endswith(".toml"))


def builtin_preset_data(ruleset_id: str) -> dict[str, Any]:
    """The built-in preset's TOML as a dict (a copy an owner may edit)."""
    if ruleset_id not in builtin_ids():
        known = ", ".join(builtin_ids())
        raise PresetError(f"ruleset: unknown ruleset {ruleset_id!r}; known: {known}")
    path = resources.files("engine.rulesets") / "presets" / f"{ruleset_id}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8"))


def builtin_preset_text(ruleset_id: str) -> str:
    builtin_preset_data(ruleset_id)  # validates the id
    path = resources.files("engine.rulesets") / "presets" / f"{ruleset_id}.toml"
    return path.read_text(encoding="utf-8")


def merge_options(data: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """Apply overrides: nested tables, or dotted keys like ``{"win.deguo_bonus": 5}``."""
    merged: dict[str, Any] = copy.deepcopy(dict(data))
    for key, value in options.items():
        path = key.split(".")
        target = merged
        for part in path[:-1]:
            nxt = target.get(part)
            if not isinstance(nxt, dict):
                raise PresetError(f"options.{key}: no section {part!r}")
            target = nxt
        leaf = path[-1]
        if isinstance(value, Mapping) and isinstance(target.get(leaf), dict):
            target[leaf] = merge_options(target[leaf], value)
        else:
            target[leaf] = value
    return merged


P = TypeVar("P", bound=PresetBase)


def validate_preset(model: type[P], data: Mapping[str, Any], where: str = "") -> P:
    try:
        preset = model.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        msg = "unknown field" if first["type"] == "extra_forbidden" else first["msg"]
        raise PresetError(f"{where}{loc}: {msg}") from None
    enabled = preset.shapes.options().shapes
    for shape in Shape:
        if shape in enabled and shape not in model.priced_shapes:
            raise PresetError(
                f"{where}shapes.{shape.value}: the {preset.family} family has no price for "
                f"this shape (it would pay as something else); leave it false"
            )
    order = preset.table.multiple_winners
    if order not in model.claim_orders:
        known = ", ".join(sorted(model.claim_orders))
        raise PresetError(
            f"{where}table.multiple_winners: the {preset.family} family cannot apply "
            f"{order!r}; one of {known}"
        )
    return preset
