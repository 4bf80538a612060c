"""Three sample hands settled under two sets of house values, side by side: what a change
does to the points. Each settles as ``mjtable settle --preset`` does with those values."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from controller.house.options import preset_data
from engine.rulesets import settle_request


@cache
def _samples() -> dict[str, list[dict[str, Any]]]:
    text = (resources.files("controller.house") / "samples.json").read_text(encoding="utf-8")
    samples: dict[str, list[dict[str, Any]]] = json.loads(text)
    return samples


def sample_hands(base: str) -> list[dict[str, Any]]:
    """The three sample hands for the built-in ruleset ``base`` (from docs/rules)."""
    return [dict(hand) for hand in _samples()[base]]


def settle_sample(hand: dict[str, Any], base: str, options: dict[str, Any]) -> dict[str, Any]:
    return settle_request(hand, preset_data(base, options)).as_dict()


def preview(base: str, old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """Each sample hand with its settlement under ``old`` and under ``new`` values."""
    return [
        {"hand": hand, "old": settle_sample(hand, base, old), "new": settle_sample(hand, base, new)}
        for hand in sample_hands(base)
    ]
