"""Every refusal the table can raise to a page has words: the engine's rejections (its
``reject`` codes), its input errors (``SettleInputError``, ``StaffInputError``) and the
table loop's (``staff_acts``) are found in the source and worded by the catalogue; none
reads 「这次操作没有完成：<English>」, the fallback for a message the catalogue lacks."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import controller.store.members
import controller.table.seating
import controller.table.staff_acts
import engine
from controller.words import refusal

RAISED = {"SettleInputError", "StaffInputError", "StaleRequest", "NotPermitted", "UnknownHandId"}
RAISED |= {"SeatsLocked", "UnknownMember"}  # a seat taken (MemberInputError: below)
SOURCES = [Path(engine.__file__).parent]
SOURCES += [Path(m.__file__) for m in (controller.table.staff_acts, controller.table.seating)]
# the store's refusals of a seat taken (``MemberInputError(field, why)``), by function
SEAT_STORE = Path(controller.store.members.__file__), {"_sitter", "seat_command"}
# a value for each formatted part of a message, by what the part names (first match)
SAMPLES = [
    (r"'winner'", "seat"),
    (r"\bwhich\b", "小相公"),
    (r"in_seats|_in_request_terms|seat_words", "2号位"),
    (r"\bwhere\b|\bfield\b|_where", "winners[0]"),
    (r"\bname\b", "indicator"),
    (r"extra", "foo"),
    (r"join", "tian, di"),
    (r"ruleset", "xingguo"),
    (r"penalty", "xianggong"),
    (r"\.type", "pung"),
    (r"\bwant\b", "13"),
    (r"tile_count", "12"),
    (r"tiles\b", "5s5s5s"),
    (r"indicator|tile|claimed", "5s"),
    (r"\bwhy\b", "不是胡牌 (not a winning hand)"),
    (r"\berr\b|\bmsg\b", "not a tile: Q"),
    (r"\bkey\b", "hand"),
    (r"hand_id|current", "a1b2"),
    (r"!r|command|role", "'x'"),
    (r"seat|dealer|roller|src|\bs\b|\bi\b|turn", "2"),
]


def _sample(part: ast.expr, conversion: int) -> str:
    text = ast.unparse(part) + ("!r" if conversion == ord("r") else "")
    return next((v for p, v in SAMPLES if re.search(p, text)), "3")


def _message(node: ast.expr) -> str | None:
    """The message a raise's argument makes, its formatted parts filled by sample values."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                out.append(str(v.value))
            elif isinstance(v, ast.FormattedValue):
                out.append(_sample(v.value, v.conversion))
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _message(node.left), _message(node.right)
        return None if left is None or right is None else left + right
    return None  # a message made elsewhere (a variable): its maker's raise is scanned


def _raised_in(path: Path, tree: ast.AST) -> Iterator[tuple[str, str]]:
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = getattr(node.func, "id", None)
        where = f"{path.name}:{node.lineno}"
        if name in RAISED:
            message = _message(node.args[0])
            if message is not None:
                yield where, message
        elif name == "MemberInputError" and len(node.args) == 2:
            field, why = _message(node.args[0]), _message(node.args[1])
            if field is not None and why is not None:
                yield where, f"{field}: {why}"
        elif name == "reject" and len(node.args) == 3:  # reject(code, zh, en)
            zh, en = _message(node.args[1]), _message(node.args[2])
            if zh is not None and en is not None:
                yield where, f"{zh} ({en})"


def _raised() -> Iterator[tuple[str, str]]:
    for root in SOURCES:
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            yield from _raised_in(path, ast.parse(path.read_text(encoding="utf-8")))
    path, functions = SEAT_STORE
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and node.name in functions:
            yield from _raised_in(path, node)


MESSAGES = list(_raised())
# the catalogue's fallbacks: no words for the message, its reason or its field
FALLBACK = re.compile(r"^这次操作没有完成|填得不对|这一项")
# a field path, a 0-based seat, an English word (tile notation is short: 5s, 123m456p, E)
UNREADABLE = re.compile(r"seats?\[|winners?\[|\bseat \d|0号位|[A-Za-z_]{4,}")


def test_the_scan_finds_the_refusals() -> None:
    assert len(MESSAGES) > 150, len(MESSAGES)
    assert any("没有这个座位" in m for _, m in MESSAGES)  # an engine rejection
    assert any(m.startswith("no roll is due") for _, m in MESSAGES)  # the table loop's
    assert any(m.endswith("the member is deactivated") for _, m in MESSAGES)  # a seat's


@pytest.mark.parametrize(("where", "message"), MESSAGES, ids=[w for w, _ in MESSAGES])
def test_every_refusal_has_words(where: str, message: str) -> None:
    said = refusal(message).zh
    assert not FALLBACK.search(said), (where, message, said)
    assert not UNREADABLE.search(said), (where, message, said)
