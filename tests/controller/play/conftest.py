"""The players' phones tests' table: a table without readers, its service over a real
Mosquitto and its web app on a local port (``ReaderlessTable``), for one test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.controller.mosquitto import Mosquitto
from tests.controller.web.readerless_table import ReaderlessTable


@pytest.fixture
def table(mosquitto: Mosquitto, tmp_path: Path) -> Iterator[Any]:
    site = ReaderlessTable(mosquitto, tmp_path)
    site.start()
    try:
        yield site
    finally:
        site.halt()
