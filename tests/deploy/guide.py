"""The command blocks of docs/parlour.md that the deploy tier runs, as written: each is
the fenced block right after a ``<!-- deploy-test: NAME -->`` line."""

from __future__ import annotations

import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "parlour.md"
_BLOCK = re.compile(r"<!-- deploy-test: ([\w-]+) -->\n```\w*\n(.*?)\n```", re.S)


def blocks(path: Path = GUIDE) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, body in _BLOCK.findall(path.read_text(encoding="utf-8")):
        assert name not in found, f"two blocks named {name} in {path}"
        found[name] = body + "\n"
    return found


def filled(block: str, values: dict[str, str]) -> str:
    """The block with its ``<…>`` placeholders filled in; every one must be known."""
    for placeholder, value in values.items():
        block = block.replace(placeholder, value)
    left = re.findall(r"<(?:the |8080)[^>]*>", block)
    assert not left, f"placeholders without a value: {left}"
    return block
