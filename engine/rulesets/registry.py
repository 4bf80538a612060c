"""Find a ruleset by id (a built-in preset) or build one from an owner's edited preset."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.rulesets.base import Ruleset
from engine.rulesets.chongji import ChongjiPreset, ChongjiRuleset
from engine.rulesets.guangdong import GuangdongPreset, GuangdongRuleset
from engine.rulesets.jing import JingPreset, JingRuleset
from engine.rulesets.preset import (
    PresetBase,
    PresetError,
    builtin_preset_data,
    merge_options,
    validate_preset,
)
from engine.rulesets.yichun import YichunPreset, YichunRuleset
from engine.settlement import SettleInputError, Settlement, parse_finished_hand
from engine.settlement.needs import Needs, ResultKind

# family -> (preset model, ruleset class)
FAMILIES: dict[str, tuple[type[PresetBase], Callable[[Any], Ruleset]]] = {
    "jing": (JingPreset, JingRuleset),
    "yichun": (YichunPreset, YichunRuleset),
    "chongji": (ChongjiPreset, ChongjiRuleset),
    "guangdong": (GuangdongPreset, GuangdongRuleset),
}


def ruleset_from_data(data: Mapping[str, Any], options: Mapping[str, Any] | None = None) -> Ruleset:
    """A ruleset from preset data (a parsed TOML file), with option overrides applied."""
    merged = merge_options(data, options or {})
    family = merged.get("family")
    if family not in FAMILIES:
        raise PresetError(f"family: unknown family {family!r}; known: {', '.join(FAMILIES)}")
    model, cls = FAMILIES[family]
    where = "options: " if options else ""
    return cls(validate_preset(model, merged, where))


def load_ruleset(ruleset_id: str, options: Mapping[str, Any] | None = None) -> Ruleset:
    """A built-in ruleset (``xingguo`` …), with option overrides applied."""
    return ruleset_from_data(builtin_preset_data(ruleset_id), options)


def settle_request(data: object, preset: Mapping[str, Any] | None = None) -> Settlement:
    """Settle one ``mjtable settle`` object, with the built-in ruleset it names or an
    owner's ``preset`` data; raises SettleInputError (or PresetError) naming the field.
    The CLI and a hand finished by staff both come here, so they cannot differ."""
    if not isinstance(data, Mapping):
        raise SettleInputError("input: expected a JSON object")
    hand = parse_finished_hand(data)
    if preset is not None:
        return ruleset_from_data(preset, hand.options).settle(hand)
    return load_ruleset(hand.ruleset, hand.options).settle(hand)


def settlement_needs(
    ruleset_id: str,
    kind: ResultKind,
    options: Mapping[str, Any] | None = None,
    preset: Mapping[str, Any] | None = None,
) -> Needs:
    """What a result of ``kind`` needs entered under a built-in ruleset (or an owner's
    ``preset`` data), with its options: the one answer the console, the staff API and
    ``mjtable settle --needs`` share (``Ruleset.needs``)."""
    if preset is not None:
        return ruleset_from_data(preset, options).needs(kind)
    return load_ruleset(ruleset_id, options).needs(kind)
