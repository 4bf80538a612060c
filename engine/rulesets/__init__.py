"""The rule systems: validated presets (data) plus the code data cannot express."""

from engine.rulesets.base import Ruleset
from engine.rulesets.preset import PresetError, builtin_ids, builtin_preset_text
from engine.rulesets.registry import (
    load_ruleset,
    ruleset_from_data,
    settle_request,
    settlement_needs,
)

__all__ = [
    "PresetError",
    "Ruleset",
    "builtin_ids",
    "builtin_preset_text",
    "load_ruleset",
    "ruleset_from_data",
    "settle_request",
    "settlement_needs",
]
