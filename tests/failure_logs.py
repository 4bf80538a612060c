"""Logs of the processes a test started (its brokers), shown with the test's failure.

A test that fails on CI leaves nothing else behind: its temporary folder is gone by the
time anyone looks. ``show_log_on_failure(request.node, label, path)`` names a log; when
that test fails, its report carries the log's tail as a section of its own."""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path

import pytest

TAIL_BYTES = 16_000  # enough for a broker's last few hundred lines; bounded for CI's page

_LOGS = pytest.StashKey[list[tuple[str, Path]]]()


def show_log_on_failure(node: pytest.Item, label: str, path: Path) -> None:
    node.stash.setdefault(_LOGS, []).append((label, path))


def tail(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as err:
        return f"({err.strerror}: {path})"
    cut = len(data) > TAIL_BYTES
    text = data[-TAIL_BYTES:].decode(errors="replace")
    return f"(… the first {len(data) - TAIL_BYTES} bytes left out)\n{text}" if cut else text


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.failed:
        for label, path in item.stash.get(_LOGS, []):
            report.sections.append((f"{label} ({path})", tail(path)))
    return report
