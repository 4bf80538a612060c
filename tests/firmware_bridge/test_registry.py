"""Tag registry: lookup, load/save (atomic), validation that reports and never raises."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from firmware_bridge.registry import (
    Ambiguous,
    ProblemCode,
    RegistryFileError,
    TagRegistry,
    TileTag,
    Unknown,
)

KIND_LABELS = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + list("ESWNCFP")


def uid(n: int) -> bytes:
    return bytes.fromhex("e0040150") + n.to_bytes(4, "big")


def complete() -> TagRegistry:
    reg = TagRegistry(kinds=KIND_LABELS)
    for i, kind in enumerate(KIND_LABELS):
        for copy in range(4):
            reg.add(uid(i * 4 + copy), kind, copy)
    return reg


def codes(problems: list[object]) -> list[str]:
    return [p.code for p in problems]  # type: ignore[attr-defined]


def test_complete_registry_is_valid() -> None:
    reg = complete()
    assert len(reg) == 136
    assert reg.validate() == []
    assert reg.lookup(uid(17)) == TileTag("5m", 1)
    assert reg.uid_of("P", 3) == uid(135)


def test_unknown_uid_is_an_explicit_result() -> None:
    assert complete().lookup(uid(999)) == Unknown(uid(999))
    assert uid(999) not in complete()


def test_save_load_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "tags.json"
    reg = complete()
    reg.save(path)
    doc = json.loads(path.read_text())
    assert doc["format"] == "mjtable.tag-registry" and doc["version"] == 1
    assert doc["tags"][0] == {"uid": "e004015000000000", "kind": "1m", "copy": 0}
    loaded = TagRegistry.load(path)
    assert list(loaded) == list(reg)
    assert loaded.kinds == tuple(KIND_LABELS)
    assert loaded.validate() == []
    assert [p.name for p in tmp_path.iterdir()] == ["tags.json"]  # no temp file left


def test_integer_kind_labels_survive(tmp_path: Path) -> None:
    reg = TagRegistry(kinds=range(34))
    reg.add(uid(1), 33, 2)
    reg.save(tmp_path / "t.json")
    loaded = TagRegistry.load(tmp_path / "t.json")
    assert loaded.lookup(uid(1)) == TileTag(33, 2)
    assert codes(loaded.validate()).count(ProblemCode.MISSING_TILE) == 135


def test_save_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "tags.json"
    complete().save(path)
    before = path.read_text()

    def boom(src: str, dst: str) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        TagRegistry(kinds=KIND_LABELS).save(path)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["tags.json"]


def test_validation_reports_unknown_duplicate_missing() -> None:
    reg = complete()
    reg.remove(uid(0))  # 1m copy 0 missing
    reg.add(uid(5), "9m", 0)  # uid 5 is 2m copy 1 already: duplicate uid
    reg.add(uid(500), "3m", 2)  # 3m copy 2 claimed twice
    reg.add(uid(501), "X", 0)  # not a kind
    reg.add(uid(502), "4m", 7)  # no such copy
    problems = reg.validate(seen=[uid(1), uid(777)])
    got = sorted(codes(problems))
    assert got == sorted(
        [
            ProblemCode.MISSING_TILE,
            ProblemCode.DUPLICATE_UID,
            ProblemCode.DUPLICATE_TILE,  # 9m copy 0
            ProblemCode.DUPLICATE_TILE,  # 3m copy 2
            ProblemCode.UNKNOWN_KIND,
            ProblemCode.BAD_COPY,
            ProblemCode.UNKNOWN_UID,
        ]
    )
    by_code = {p.code: p for p in problems}
    assert by_code[ProblemCode.MISSING_TILE].kind == "1m"
    assert by_code[ProblemCode.UNKNOWN_UID].uid == uid(777).hex()
    assert "2m copy 1" in by_code[ProblemCode.DUPLICATE_UID].message
    assert reg.lookup(uid(5)) == Ambiguous(uid(5), (TileTag("2m", 1), TileTag("9m", 0)))


def test_load_keeps_bad_entries_as_problems(tmp_path: Path) -> None:
    path = tmp_path / "tags.json"
    path.write_text(
        json.dumps(
            {
                "format": "mjtable.tag-registry",
                "version": 1,
                "kinds": ["1m"],
                "tags": [
                    {"uid": "e004015000000001", "kind": "1m", "copy": 0},
                    {"uid": "e004015000000001", "kind": "1m", "copy": 1},
                    {"uid": "zz", "kind": "1m", "copy": 2},
                    {"uid": "e004015000000003", "kind": None, "copy": 2},
                    {"uid": "e004015000000004", "kind": "1m", "copy": "3"},
                    "nonsense",
                ],
            }
        )
    )
    reg = TagRegistry.load(path)
    assert len(reg) == 2
    got = codes(reg.validate())
    assert got.count(ProblemCode.BAD_ENTRY) == 4
    assert ProblemCode.DUPLICATE_UID in got
    assert got.count(ProblemCode.MISSING_TILE) == 2  # copies 2 and 3: their entries were bad
    assert reg.validate(kinds=[]) != []  # an explicit kind list overrides the file's


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not json",
        "[]",
        '{"tags": {}}',
        '{"format": "other", "tags": []}',
        '{"tags": [], "copies": 0}',
    ],
)
def test_a_file_that_is_no_registry_raises_a_clear_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "tags.json"
    path.write_text(text)
    with pytest.raises(RegistryFileError, match=r"tags\.json"):
        TagRegistry.load(path)


def test_missing_file_raises_registry_file_error(tmp_path: Path) -> None:
    with pytest.raises(RegistryFileError):
        TagRegistry.load(tmp_path / "nope.json")
