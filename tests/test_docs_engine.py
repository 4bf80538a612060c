"""docs/engine.md is true: its Python blocks run, in order, in one namespace (each holds
its own asserts), and every repository path and module it names exists."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "engine.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
PATH = re.compile(r"`((?:engine|controller|tests|bench|docs)/[\w/.<>-]*[\w/])`")
MODULE = re.compile(r"python -m ([\w.]+)")


def test_the_python_blocks_run() -> None:
    blocks = BLOCK.findall(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 4
    namespace: dict[str, object] = {"__name__": "engine_md"}
    for number, block in enumerate(blocks, 1):
        code = compile(block, f"docs/engine.md block {number}", "exec")
        exec(code, namespace)


def test_every_path_named_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = {m.replace("<id>", "xingguo").replace("<family>", "jing") for m in PATH.findall(text)}
    assert len(named) > 20
    missing = sorted(p for p in named if not (ROOT / p).exists())
    assert not missing, missing


def test_every_module_run_exists() -> None:
    modules = set(MODULE.findall(DOC.read_text(encoding="utf-8")))
    assert modules
    assert all(importlib.util.find_spec(m) is not None for m in modules), modules
