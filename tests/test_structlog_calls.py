"""No structlog call passes ``event=``: structlog's first argument is named ``event`` (the
message), so ``log.exception("…", event=x)`` raises TypeError inside the very handler meant
to keep the service going. Checked over every module of ours, by the syntax tree."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "engine", "firmware_bridge", "bench", "tests")
LEVELS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "msg"}
LOGGERS = {"log", "logger", "_log", "bound", "structlog"}


def _logger_name(node: ast.expr) -> str | None:
    """``log`` of ``log.info`` and of ``log.bind(...).info``."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def calls_passing_event(source: str) -> list[int]:
    """Lines of logging calls with an ``event=`` keyword."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in LEVELS or _logger_name(node.func.value) not in LOGGERS:
            continue
        if any(k.arg == "event" for k in node.keywords):
            lines.append(node.lineno)
    return lines


def test_the_check_finds_the_bug_it_is_for() -> None:
    bad = 'log.exception("could not handle a table event", event=repr(e))\n'
    assert calls_passing_event(bad) == [1]
    assert calls_passing_event('log.bind(a=1).warning("x", event=2)\n') == [1]
    assert calls_passing_event('log.info("x", bridge_event=2)\n') == []


def test_no_structlog_call_passes_event() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for line in calls_passing_event(path.read_text())
    ]
    assert not found, f"structlog's message argument is `event`; rename the key: {found}"
