"""The docs hold together: every relative link in README.md and docs/**/*.md names a file
that exists, and a link to a heading (``service.md#durability``) names one that is there;
every doc the code, tests and benches cite exists, and so does the section they name
(``docs/service.md, "Durability"``); every repository path docs/design.md names exists."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from tests.repo_files import ROOT, source_files

DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```|<!--.*?-->", re.S | re.M)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$", re.M)
CITED = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-]+\.md)\b")
SECTION = re.compile(r"""((?:[\w.-]+/)*[\w-]+\.md)\)?,\s+(?:"([^"]{2,80})"|'([^'\n]{2,80})')""")
PATH = re.compile(
    r"`((?:engine|controller|firmware_bridge|firmware|deploy|tests|bench|docs)/[\w/.-]*[\w/])`"
)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    kept = (c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return "".join(kept).replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    found: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", doc.read_text(encoding="utf-8"))):
        base = slug(heading)
        name, n = base, 0
        while name in found:
            n += 1
            name = f"{base}-{n}"
        found.add(name)
    return found


def links(doc: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", doc.read_text(encoding="utf-8")))


def cited(name: str, by: Path) -> Path | None:
    """The doc ``name`` as ``by`` cites it: from the top, beside it, or in docs/ or docs/rules/."""
    for where in (ROOT, by.parent, ROOT / "docs", ROOT / "docs" / "rules"):
        if (where / name).is_file():
            return where / name
    return None


def headings(doc: Path) -> list[str]:
    text = FENCE.sub("", doc.read_text(encoding="utf-8"))
    return [h.replace("`", "").lower() for h in HEADING.findall(text)]


def test_the_docs_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in DOCS}
    assert {"README.md", "docs/design.md", "docs/service.md", "docs/rules/README.md"} <= names


def test_every_relative_link_resolves() -> None:
    broken = []
    for doc in DOCS:
        for target in links(doc):
            if re.match(r"[a-z][a-z+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            where = (doc.parent / path).resolve() if path else doc
            if not where.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and where.suffix == ".md" and anchor not in anchors(where):
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_the_docs_link_to_each_other() -> None:
    """Guards the check above: the docs do link to one another, headings included."""
    targets = [t for doc in DOCS for t in links(doc)]
    assert sum(".md" in t and not t.startswith("http") for t in targets) > 30
    assert any(".md#" in t for t in targets)


def test_every_path_the_design_names_exists() -> None:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    named = set(PATH.findall(text))
    assert len(named) > 10
    assert sorted(p for p in named if not (ROOT / p).exists()) == []


def test_slugs_follow_github() -> None:
    assert slug("How the tracker reads the table") == "how-the-tracker-reads-the-table"
    assert slug("On a Pi's budget (`bench/latency.py`)") == "on-a-pis-budget-benchlatencypy"
    assert slug("Dice, the break and the 精") == "dice-the-break-and-the-精"


def test_every_doc_cited_exists() -> None:
    """A citation of a doc that is not in the repository (a bare ``design.md``) is caught."""
    missing, count = [], 0
    for path in source_files():
        for name in CITED.findall(path.read_text(encoding="utf-8", errors="replace")):
            count += 1
            if cited(name, path) is None:
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert count > 100
    assert missing == []


def test_every_section_cited_is_there() -> None:
    missing, count = [], 0
    for path in source_files():
        for name, double, single in SECTION.findall(
            path.read_text(encoding="utf-8", errors="replace")
        ):
            doc = cited(name, path)
            section = " ".join((double or single).split()).lower()
            count += 1
            if doc is not None and not any(section in h for h in headings(doc)):
                missing.append(f"{path.relative_to(ROOT)}: {name}, {section!r}")
    assert count > 10
    assert missing == []


def _controller_map() -> str:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    start = text.index("Inside `controller/`")
    block = text.index("```\n", start)
    return text[block : text.index("```\n", block + 4)]


def _listed(module: str, where: str) -> bool:
    """``a.py`` by name at the top; ``pkg/a.py`` as ``a`` in the parentheses after ``pkg/``."""
    folder, _, name = module.rpartition("/")
    stem = name.removesuffix(".py")
    if not folder:
        return re.search(rf"(?<![\w/]){re.escape(name)}\b", where) is not None
    for group in re.finditer(rf"(?<![\w/]){re.escape(folder)}/ \(([^)]*)\)", where):
        if re.search(rf"\b{re.escape(stem)}\b", group.group(1).split(":")[-1]):
            return True
    return False


def test_the_design_maps_every_controller_module() -> None:
    """docs/design.md's map of ``controller/`` names every module (Alembic's revisions
    excepted: the map names their folder), so a new module cannot go unmapped."""
    where = _controller_map()
    package = ROOT / "controller"
    modules = sorted(
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if p.name not in ("__init__.py", "__main__.py")
        and "migrations" not in p.relative_to(package).parts
    )
    assert len(modules) > 90
    assert "store/migrations/" in where
    assert [m for m in modules if not _listed(m, where)] == []
    # and the check is not vacuous: a module it has never heard of is missing
    assert not _listed("no_such_module.py", where) and not _listed("hub/no_such.py", where)
