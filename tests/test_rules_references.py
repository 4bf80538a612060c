"""Every reference to the rules pages resolves inside the repository: a ``docs/rules/…``
path in code, presets or docs names an existing page (and, with ``#anchor``, one of its
headings); markdown links into docs/rules do too; the old spec's file names and the bare
seed numbers are not cited without a page; every preset field the decisions page names
exists."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from engine.rulesets import builtin_ids, load_ruleset

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
SUFFIXES = {".py", ".md", ".toml", ".c", ".h", ".js", ".html", ".css", ".sh", ".txt", ".cfg"}
SKIP_DIRS = {"node_modules", "__pycache__", "build", "dist", "data", "artifacts"}

RULES_PATH = re.compile(r"docs/rules/([\w.-]+\.md)(?:#([\w-]+))?")
MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")  # [text](target)
# the external spec's file names, which only resolve as docs/rules/ pages
OLD_SPEC = re.compile(r"(?<![\w/-])(?:rules/)?(jing-family|common)\.md")
SEED = re.compile(r"\bseeds? `?(00\d)")
FENCE = re.compile(r"^(```|~~~)")
SEEDS = ("000", "001", "002", "003", "004")


def text_files() -> Iterator[Path]:
    def walk(folder: Path) -> Iterator[Path]:
        for path in sorted(folder.iterdir()):
            if path.name.startswith(".") or path.name in SKIP_DIRS or path.suffix == ".egg-info":
                continue
            if path.is_dir():
                yield from walk(path)
            elif path.suffix in SUFFIXES and path != Path(__file__).resolve():
                yield path

    yield from walk(ROOT)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    found, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return frozenset(found)


def check_target(page: Path, anchor: str | None, where: str) -> list[str]:
    if page == RULES and anchor is None:
        return []  # the folder itself
    if not page.is_file():
        return [f"{where}: {page.relative_to(ROOT)} does not exist"]
    if anchor and anchor not in anchors(page):
        return [f"{where}: {page.relative_to(ROOT)} has no heading #{anchor}"]
    return []


def references(path: Path) -> Iterator[tuple[Path, str | None, str, int, int]]:
    """(page, anchor, line, start, end) of every reference in ``path`` into docs/rules."""
    rel = path.relative_to(ROOT)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{rel}:{number}"
        for m in RULES_PATH.finditer(line):
            yield RULES / m.group(1), m.group(2), where, m.start(), m.end()
        if path.suffix != ".md":
            continue
        for m in MD_LINK.finditer(line):
            target = m.group(1)
            if "://" in target or target.startswith("mailto:"):
                continue
            file_part, _, anchor = target.partition("#")
            page = (path.parent / file_part).resolve() if file_part else path
            if page.parent == RULES or page == RULES:
                yield page, anchor or None, where, m.start(), m.end()


FILES = list(text_files())


def test_the_rules_pages_exist() -> None:
    pages = {p.name for p in RULES.glob("*.md")}
    assert {"README.md", "common.md", "jing-family.md", "decisions.md"} <= pages
    assert {f"{r}.md" for r in builtin_ids()} <= pages


def test_every_reference_into_docs_rules_resolves() -> None:
    broken: list[str] = []
    seen = 0
    for path in FILES:
        for page, anchor, where, _, _ in references(path):
            seen += 1
            broken += check_target(page, anchor, where)
    assert seen > 50  # the scan found the references (presets, engine, docs)
    assert not broken, "\n".join(broken)


def test_no_citation_points_outside_the_repository() -> None:
    """``jing-family.md`` / ``common.md`` only as docs/rules pages; a seed only with the
    sources page cited in the same file."""
    bad: list[str] = []
    for path in FILES:
        spans: dict[int, list[tuple[int, int]]] = {}
        cited_seeds: set[str] = set()
        for page, anchor, where, start, end in references(path):
            spans.setdefault(int(where.rsplit(":", 1)[1]), []).append((start, end))
            if page == RULES / "README.md" and anchor == "sources":
                cited_seeds.update(SEEDS)
            elif page == RULES / "README.md" and anchor and anchor.startswith("seed-"):
                cited_seeds.add(anchor.removeprefix("seed-"))
        rel = path.relative_to(ROOT)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in OLD_SPEC.finditer(line):
                inside = any(s <= m.start() < e for s, e in spans.get(number, []))
                if not inside:
                    bad.append(f"{rel}:{number}: {m.group(0)} is not a docs/rules/ reference")
            if path.parent == RULES and path.name == "README.md":
                continue  # the page that defines the seeds
            for m in SEED.finditer(line):
                if m.group(1) not in cited_seeds:
                    bad.append(f"{rel}:{number}: seed {m.group(1)} without its sources entry")
    assert not bad, "\n".join(bad)


@cache
def preset_fields() -> frozenset[str]:
    fields = set()
    for ruleset in builtin_ids():
        for section, values in load_ruleset(ruleset).preset.model_dump().items():
            if isinstance(values, dict):
                fields.update(f"{section}.{name}" for name in values)
    return frozenset(fields)


@pytest.mark.parametrize("page", ["decisions.md", "jing-family.md", "common.md"])
def test_every_option_named_is_a_preset_field(page: str) -> None:
    text = (RULES / page).read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z]+\.[a-z_]+)`", text))
    named = {n for n in named if not n.startswith("extra.")}  # a settle request's input
    assert named, page
    assert named <= preset_fields(), sorted(named - preset_fields())
