"""The repository's own text files, for the tests that read the docs and sources whole."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOPS = ("engine", "controller", "firmware_bridge", "firmware", "deploy", "docs", "tests", "bench")
SOURCES = {".py", ".md", ".c", ".h", ".js", ".html", ".css", ".toml", ".yaml", ".sh", ".ini"}
SOURCES |= {".service", ".conf", ".rules"}


def source_files() -> list[Path]:
    """README, Makefile, pyproject and every source or doc under the project's folders."""
    found = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    for top in TOPS:
        found += [p for p in (ROOT / top).rglob("*") if p.suffix in SOURCES and p.is_file()]
    return found
