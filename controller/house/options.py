"""A house ruleset as the owners' form sees it: a built-in preset (``mjtable rules show``)
and option values on top of it (``{"win.deguo_bonus": 10}``), each option with its
Chinese label, its allowed values and the preset's own comment (the seed line or
``[decision]`` it comes from).

Validation is ``mjtable rules check``'s (``engine.rulesets.ruleset_from_data``); a refusal
names the option in words."""

from __future__ import annotations

import enum
import json
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from annotated_types import Ge, Gt, Le
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from controller.house.labels import GROUPS, LABELS
from controller.words import worded
from controller.words.house_rules import CHOICES
from engine.rulesets import (
    PresetError,
    Ruleset,
    builtin_ids,
    builtin_preset_text,
    load_ruleset,
    ruleset_from_data,
)
from engine.rulesets.preset import builtin_preset_data, merge_options

MAX_OPTIONS = 200  # every field of the largest family (jing: 66) fits many times
MAX_INT = 1_000_000  # no price on a table is near it

Kind = Literal["bool", "int", "choice"]


class HouseRulesError(ValueError):
    """House option values a table cannot play; the message names the option in words,
    ``en`` is the engine's own reason (the API's ``en``)."""

    def __init__(self, zh: str, en: str | None = None) -> None:
        super().__init__(zh)
        self.en = en or zh


@dataclass(frozen=True, slots=True)
class OptionInfo:
    key: str  # "win.deguo_bonus"
    group: str  # the preset's section, "win"
    label: str  # 德国奖分
    kind: Kind
    choices: tuple[Any, ...]  # "choice": the allowed values (None: the procedure's own)
    minimum: int | None
    maximum: int | None
    default: Any  # the built-in preset's value
    note: str  # the preset's comment on the line: a seed line, [decision], a variant

    def said(self, value: Any) -> dict[str, str] | None:
        """One of its values in words (``{"zh", "en"}``), or None: not one of its choices."""
        words = CHOICES.get(self.key, {})
        if self.kind != "choice" or value not in self.choices or value not in words:
            return None
        zh, en = words[value]
        return {"zh": zh, "en": en}

    def allowed(self, lang: Literal["zh", "en"] = "zh") -> str:
        """The allowed values, in words (Chinese, or English)."""
        en = lang == "en"
        if self.kind == "bool":
            return "yes or no" if en else "是 或 否"
        if self.kind == "choice":
            said = [(self.said(c) or {lang: str(c)})[lang] for c in self.choices]
            return " / ".join(said) if en else "、".join(f"「{c}」" for c in said)
        low = 0 if self.minimum is None else self.minimum
        high = MAX_INT if self.maximum is None else self.maximum
        return f"a whole number {low} to {high}" if en else f"{low} 到 {high} 的整数"

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "group": self.group,
            "group_label": GROUPS.get(self.group, self.group),
            "label": self.label,
            "kind": self.kind,
            "choices": list(self.choices),
            "words": [self.said(c) for c in self.choices],  # each choice, {"zh", "en"}
            "minimum": self.minimum,
            "maximum": self.maximum,
            "default": self.default,
            "note": self.note,
            "allowed": self.allowed(),
            "allowed_words": {"zh": self.allowed(), "en": self.allowed("en")},
        }

    def check(self, value: Any) -> Any:
        """``value`` if the option may hold it (JSON: no 1 for true), else a HouseRulesError."""
        if self.kind == "bool":
            ok = isinstance(value, bool)
        elif self.kind == "int":
            ok = (
                isinstance(value, int)
                and not isinstance(value, bool)
                and (self.minimum is None or value >= self.minimum)
                and (self.maximum is None or value <= self.maximum)
                and abs(value) <= MAX_INT
            )
        else:
            ok = value in self.choices and (value is None or isinstance(value, str))
        if not ok:
            sent = json.dumps(value, ensure_ascii=False)[:40]
            raise HouseRulesError(
                f"「{self.label}」（{self.key}）不能是 {sent}：可选 {self.allowed()}",
                f"{self.label} ({self.key}) cannot be {sent}: allowed {self.allowed('en')}",
            )
        return value


def _kind(field: FieldInfo) -> tuple[Kind, tuple[Any, ...], int | None, int | None]:
    annotation = field.annotation
    nullable = False
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        nullable, annotation = True, args[0]
    if annotation is bool:
        return "bool", (), None, None
    if annotation is int:
        low = high = None
        for m in field.metadata:
            if isinstance(m, Ge):
                low = int(m.ge)  # type: ignore[call-overload]
            elif isinstance(m, Gt):
                low = int(m.gt) + 1  # type: ignore[call-overload]
            elif isinstance(m, Le):
                high = int(m.le)  # type: ignore[call-overload]
        return "int", (), low, high
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values: tuple[Any, ...] = tuple(e.value for e in annotation)
    elif typing.get_origin(annotation) is Literal:
        values = typing.get_args(annotation)
    else:
        raise TypeError(f"no form field for {annotation!r}")
    return "choice", (None, *values) if nullable else values, None, None


_LINE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=[^#]*#\s*(.+?)\s*$")
_SECTION = re.compile(r"^\s*\[([A-Za-z_]+)\]")


def _notes(ruleset_id: str) -> dict[str, str]:
    """The comment on each option's line of the built-in preset, by dotted key."""
    notes: dict[str, str] = {}
    section = ""
    for line in builtin_preset_text(ruleset_id).splitlines():
        if m := _SECTION.match(line):
            section = m.group(1)
        elif (m := _LINE.match(line)) and section:
            notes[f"{section}.{m.group(1)}"] = m.group(2)
    return notes


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def catalog(base: str) -> list[OptionInfo]:
    """Every option of the built-in preset ``base``, in the preset's order of sections."""
    preset = load_ruleset(base).preset
    notes = _notes(base)
    out: list[OptionInfo] = []
    for group in type(preset).model_fields:
        section = getattr(preset, group)
        if not isinstance(section, BaseModel):
            continue
        for name, sub in type(section).model_fields.items():
            key = f"{group}.{name}"
            kind, choices, low, high = _kind(sub)
            default = _plain(getattr(section, name))
            label, note = LABELS.get(key, key), notes.get(key, "")
            out.append(OptionInfo(key, group, label, kind, choices, low, high, default, note))
    return out


def check_base(base: Any) -> str:
    if not isinstance(base, str) or base not in builtin_ids():
        known = "、".join(builtin_ids())
        raise HouseRulesError(f"没有这个内置规则：{str(base)[:40]}（可选 {known}）")
    return base


def check_house(base: Any, options: Any) -> dict[str, Any]:
    """The option values that differ from ``base``'s, checked one by one and then as a
    whole by ``mjtable rules check``'s validation; a HouseRulesError names the option."""
    check_base(base)
    if not isinstance(options, dict) or len(options) > MAX_OPTIONS:
        raise HouseRulesError(f"选项须为 {{选项: 值}}，最多 {MAX_OPTIONS} 项")
    by_key = {o.key: o for o in catalog(base)}
    changed: dict[str, Any] = {}
    for key, value in options.items():
        info = by_key.get(key)
        if info is None:
            raise HouseRulesError(f"{load_ruleset(base).preset.name} 没有这个选项：{str(key)[:60]}")
        if info.check(value) != info.default:
            changed[key] = value
    try:
        house_ruleset(base, changed)
    except PresetError as err:
        text = str(err)
        named = next((o for o in by_key.values() if o.key in text), None)
        where = f"「{named.label}」（{named.key}）" if named else "这些设置"
        said = worded(text)
        why = f"：{said}" if said else ""
        en = text if named is None else _choices_in_english(text, named)
        raise HouseRulesError(f"{where}不能这样设置{why}", en) from None
    return changed


def _choices_in_english(text: str, option: OptionInfo) -> str:
    """The engine's refusal with ``option``'s values said in English words, not ids."""
    words = {str(c): w["en"] for c in option.choices if c is not None and (w := option.said(c))}
    if not words:
        return text
    ids = "|".join(re.escape(c) for c in sorted(words, key=len, reverse=True))
    key, colon, why = text.partition(f"{option.key}:")
    said = re.sub(rf"'?\b({ids})\b'?", lambda m: f"“{words[m.group(1)]}”", why)
    return key + colon + said


def house_ruleset(base: str, options: dict[str, Any]) -> Ruleset:
    return ruleset_from_data(builtin_preset_data(base), options)


def preset_data(base: str, options: dict[str, Any]) -> dict[str, Any]:
    """The preset a table plays with these values: what ``mjtable settle --preset`` reads."""
    return merge_options(builtin_preset_data(base), options)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string


def preset_toml(base: str, options: dict[str, Any], name: str = "") -> str:
    """The house ruleset as a preset file (``mjtable rules check`` / ``settle --preset``)."""
    data = preset_data(base, options)
    lines = [f"# {name or data['name']}: {base} with {json.dumps(options, ensure_ascii=False)}"]
    sections = {k: v for k, v in data.items() if isinstance(v, dict)}
    for key, value in data.items():
        if not isinstance(value, dict) and value is not None:
            lines.append(f"{key} = {_toml_value(value)}")
    for section, values in sections.items():
        lines.append(f"\n[{section}]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in values.items() if v is not None]
    return "\n".join(lines) + "\n"
