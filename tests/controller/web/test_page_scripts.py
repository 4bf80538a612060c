"""The page scripts share their plumbing (a scan of their source): only common.js talks to
the API (``MJ.api``), holds the login form and looks words up (pages hand their own words
to ``MJ.words``); only it parses tile notation; only broker.js holds the id pattern; and no
page builds markup from data (``innerHTML`` and its kin take constant text, if anything)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.config import ID_PATTERN

STATIC = Path(__file__).parents[3] / "controller" / "web" / "static"
SCRIPTS = sorted(p for p in STATIC.glob("*.js") if p.name != "mqtt.min.js")  # (vendored)
PAGES = [p for p in SCRIPTS if p.name != "common.js"]

# A string literal with no substitution: "…", '…' or `…` without ${
CONSTANT = r"""(?:"[^"\\\n]*"|'[^'\\\n]*'|`[^`$\\]*`)"""
MARKUP_SINKS = [
    re.compile(r"\.(?:innerHTML|outerHTML)\s*\+?=(?!\s*" + CONSTANT + r"\s*[;,)\n])"),
    re.compile(r"\.insertAdjacentHTML\(\s*" + CONSTANT + r"\s*,(?!\s*" + CONSTANT + r"\s*\))"),
    re.compile(r"\bdocument\.write(?:ln)?\("),
    re.compile(r"\.createContextualFragment\("),
    re.compile(r"\.tileHtml\b|\.outerHTML\b"),
]


def _code(path: Path) -> str:
    """The script without its comments (a comment may name what the code must not do)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)(^|[^:\"'`\\])//.*$", r"\1", text)


def test_the_scan_sees_every_page_script() -> None:
    names = {p.name for p in SCRIPTS}
    assert {"common.js", "console.js", "owner.js", "floor.js", "member.js"} <= names


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_no_page_script_builds_markup_from_data(path: Path) -> None:
    code = _code(path)
    found = [m.group(0) for sink in MARKUP_SINKS for m in sink.finditer(code)]
    assert found == [], f"{path.name}: build with MJ.el (text, never markup): {found}"


def test_the_scan_catches_markup_built_from_data() -> None:
    def caught(line: str) -> bool:
        return any(sink.search(line) for sink in MARKUP_SINKS)

    assert caught("main.innerHTML = `<b>${name}</b>`;")
    assert caught("row.innerHTML += name;")
    assert caught('body.insertAdjacentHTML("beforeend", rows.join(""));')
    assert not caught('box.innerHTML = "";')


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_only_common_js_calls_the_api_and_logs_in(path: Path) -> None:
    code = _code(path)
    assert not re.search(r"\bfetch\s*\(|XMLHttpRequest|\bnew EventSource\b", code), (
        f"{path.name}: call the API with MJ.api (common.js)"
    )
    assert "/api/v1/auth/login" not in code, f"{path.name}: the login form is MJ.loginForm"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_a_pages_own_words_go_through_the_one_lookup(path: Path) -> None:
    code = _code(path)
    # words indexed by the language (TXT[MJ.lang()], text[lang]): a second lookup
    assert not re.search(r"\[\s*(?:MJ\.lang\(\)|lang)\s*\]", code), (
        f"{path.name}: MJ.words for the page's words, MJ.inLang for a payload's"
    )
    if re.search(r"\bzh\s*:\s*\{", code):  # a page with words of its own hands them over
        assert "MJ.words(" in code, f"{path.name}: look its words up with MJ.words"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_only_common_js_parses_tile_notation(path: Path) -> None:
    code = _code(path)
    assert not re.search(r"\[(?:1-9|mps|mpsz)\]\)?\s*\(?\[mpsz?\]", code), (
        f"{path.name}: parse tiles with MJ.parseTiles / MJ.parseTile"
    )
    assert "function parseTiles" not in code and "function parseTile" not in code


def test_the_pages_one_id_pattern_is_the_configs() -> None:
    holders = [p.name for p in SCRIPTS if ID_PATTERN in p.read_text(encoding="utf-8")]
    assert holders == ["broker.js"]
    assert f"const ID = /{ID_PATTERN}/;" in (STATIC / "broker.js").read_text(encoding="utf-8")
