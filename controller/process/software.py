"""The mjtable version a process runs (``mjtable version``), said by every table on its
retained ``status`` and in its answers to the hub, and compared with the hub's."""

from __future__ import annotations

import re
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version

SOFTWARE = re.compile(r"^[0-9A-Za-z.+_-]{1,32}$")  # a version string (PEP 440 and local)


def software_version() -> str:
    """The version of mjtable this process runs."""
    try:
        return dist_version("mjtable")
    except PackageNotFoundError:
        return "0"


def behind(version: str | None, reference: str) -> bool:
    """Whether ``version`` (a table's) is older than ``reference`` (the hub's), by its
    numeric release parts; an unknown version is not said to be behind. (floor.js's
    ``behind`` compares the same way.)"""

    def release(text: str) -> tuple[int, ...]:
        parts = re.match(r"^(\d+(?:\.\d+)*)", text)
        return tuple(int(p) for p in parts.group(1).split(".")) if parts else ()

    mine, theirs = release(reference), release(version or "")
    return bool(mine and theirs) and theirs < mine
