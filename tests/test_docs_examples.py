"""The worked examples in docs/rules/*.md are real: each Input is re-settled and must give
the Output printed beside it, so the owners' docs cannot drift from the code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from controller.cli.settle import settle_data

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"
PAIR = re.compile(r"Input:\s*```json\n(.*?)```\s*Output:\s*```json\n(.*?)```", re.S)


def examples() -> list[tuple[str, str, str]]:
    found = []
    for doc in sorted(DOCS.glob("*.md")):
        for i, m in enumerate(PAIR.finditer(doc.read_text(encoding="utf-8"))):
            found.append((f"{doc.stem}-{i + 1}", m.group(1), m.group(2)))
    return found


def test_every_ruleset_doc_has_examples() -> None:
    stems = {name.rsplit("-", 1)[0] for name, _, _ in examples()}
    assert stems == {
        "chongji",
        "guangdong",
        "jian",
        "lianhua",
        "nanchang",
        "xingguo",
        "yichun",
        "yongfeng",
    }


@pytest.mark.parametrize(("name", "given", "printed"), examples(), ids=[e[0] for e in examples()])
def test_example_output_matches(name: str, given: str, printed: str) -> None:
    assert settle_data(json.loads(given)) == json.loads(printed), name
