"""Enrolment state machine: a full walk with undo, rejections, save and resume."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_bridge.enroll import Accepted, Enrollment, Rejected, RejectReason, Slot
from firmware_bridge.registry import TagRegistry, TileTag

KINDS = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + list("ESWNCFP")


def uid(n: int) -> bytes:
    return bytes.fromhex("e0040150") + n.to_bytes(4, "big")


def test_full_walk_with_undo() -> None:
    e = Enrollment(KINDS)
    assert e.expected() == Slot("1m", 0, 0)
    assert e.progress().done == 0 and e.progress().total == 136
    n = 0
    while (slot := e.expected()) is not None:
        if slot.index == 50:
            # A wrong tile presented, noticed, taken back.
            assert isinstance(e.offer(uid(9000)), Accepted)
            assert e.undo() == slot
            assert e.expected() == slot
        result = e.offer(uid(n))
        assert result == Accepted(uid(n), slot)
        n += 1
    assert e.is_complete and e.progress().fraction == 1.0
    reg = e.to_registry()
    assert len(reg) == 136 and reg.validate() == []
    assert reg.lookup(uid(0)) == TileTag("1m", 0)
    assert reg.lookup(uid(135)) == TileTag("P", 3)
    assert reg.lookup(uid(50)) == TileTag(KINDS[12], 2)
    assert e.offer(uid(5000)) == Rejected(
        uid(5000), RejectReason.COMPLETE, "every tile is already enrolled"
    )


def test_walk_goes_kind_by_kind() -> None:
    e = Enrollment(["1m", "2m"])
    order = []
    for i in range(8):
        order.append((e.expected().kind, e.expected().copy))  # type: ignore[union-attr]
        e.offer(uid(i))
    assert order == [("1m", 0), ("1m", 1), ("1m", 2), ("1m", 3)] + [("2m", c) for c in range(4)]
    assert e.enrolled("1m") == 4


def test_rejects_a_uid_already_enrolled_naming_its_tile() -> None:
    e = Enrollment(KINDS)
    for i in range(6):
        e.offer(uid(i))
    result = e.offer(uid(5))
    assert isinstance(result, Rejected)
    assert result.reason is RejectReason.ALREADY_ENROLLED
    assert result.owner == Slot("2m", 1, 5)
    assert "2m copy 2/4" in result.message and uid(5).hex() in result.message
    assert e.expected() == Slot("2m", 2, 6)  # nothing moved


def test_rejects_bad_uid() -> None:
    result = Enrollment(KINDS).offer(b"\x01\x02")
    assert isinstance(result, Rejected) and result.reason is RejectReason.BAD_UID


def test_undo_on_empty_does_nothing() -> None:
    e = Enrollment(KINDS)
    assert e.undo() is None
    e.offer(uid(1))
    assert e.undo() == Slot("1m", 0, 0)
    assert e.offer(uid(1)) == Accepted(uid(1), Slot("1m", 0, 0))  # freed for reuse


def test_save_and_resume(tmp_path: Path) -> None:
    path = tmp_path / "partial.json"
    assert Enrollment.resume(path, KINDS).progress().done == 0
    e = Enrollment(KINDS)
    for i in range(30):
        e.offer(uid(i))
    e.save(path)
    partial = TagRegistry.load(path)
    assert len(partial) == 30 and partial.kinds == tuple(KINDS)

    resumed = Enrollment.resume(path, KINDS)
    assert resumed.progress().done == 30
    assert resumed.expected() == Slot("8m", 2, 30)
    assert resumed.skipped == []
    assert isinstance(resumed.offer(uid(3)), Rejected)  # remembered
    assert resumed.undo() == Slot("8m", 1, 29)  # undo reaches back across the resume
    for i in range(29, 136):
        assert isinstance(resumed.offer(uid(i)), Accepted)
    assert resumed.is_complete
    assert resumed.to_registry().validate() == []


def test_resume_skips_entries_that_do_not_fit(tmp_path: Path) -> None:
    reg = TagRegistry(kinds=KINDS)
    reg.add(uid(0), "1m", 0)
    reg.add(uid(1), "1m", 1)
    reg.add(uid(1), "1m", 2)  # same UID twice
    reg.add(uid(2), "X", 0)  # not a kind
    reg.add(uid(3), "1m", 0)  # tile taken
    path = tmp_path / "p.json"
    reg.save(path)
    e = Enrollment.resume(path, KINDS)
    assert e.progress().done == 2
    assert len(e.skipped) == 3
    assert e.expected() == Slot("1m", 2, 2)


def test_holes_in_a_partial_registry_are_filled_first() -> None:
    reg = TagRegistry()
    reg.add(uid(0), "1m", 0)
    reg.add(uid(2), "1m", 2)
    e = Enrollment.from_registry(reg, KINDS)
    assert e.expected() == Slot("1m", 1, 1)
    e.offer(uid(1))
    assert e.expected() == Slot("1m", 3, 3)


def test_bad_kind_lists() -> None:
    with pytest.raises(ValueError):
        Enrollment([])
    with pytest.raises(ValueError):
        Enrollment(["1m", "1m"])
