"""Enrolment: walk an operator through every tile, kind by kind, and record its tag UID.

A pure state machine: the caller feeds UIDs (from a reader, a file, a test) and shows
:meth:`Enrollment.expected`. The walk visits the caller's kinds in order, copies 0..3 of
each. Progress is saved as a partial registry, so an interrupted enrolment resumes at the
first tile not yet enrolled.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from firmware_bridge.registry import (
    COPIES,
    KindLabel,
    Problem,
    ProblemCode,
    RegistryEntry,
    TagRegistry,
    TileTag,
)
from firmware_bridge.rfid.uid import tag_id_problem, uid_hex


@dataclass(frozen=True, slots=True)
class Slot:
    """One physical tile of the walk; ``index`` is its position, 0 … total-1."""

    kind: KindLabel
    copy: int
    index: int

    def describe(self, copies: int = COPIES) -> str:
        return f"{self.kind} copy {self.copy + 1}/{copies}"


@dataclass(frozen=True, slots=True)
class Accepted:
    uid: bytes
    slot: Slot


class RejectReason(StrEnum):
    ALREADY_ENROLLED = "already_enrolled"
    BAD_UID = "bad_uid"
    COMPLETE = "complete"


@dataclass(frozen=True, slots=True)
class Rejected:
    uid: bytes
    reason: RejectReason
    message: str
    owner: Slot | None = None
    """For ALREADY_ENROLLED: the tile the UID belongs to."""


OfferResult = Accepted | Rejected


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    total: int

    @property
    def remaining(self) -> int:
        return self.total - self.done

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


class Enrollment:
    def __init__(self, kinds: Sequence[KindLabel], copies: int = COPIES) -> None:
        if not kinds:
            raise ValueError("enrolment needs at least one kind")
        if len(set(kinds)) != len(kinds):
            raise ValueError("the kinds to enrol must be distinct")
        if copies < 1:
            raise ValueError("copies must be at least 1")
        self.kinds: tuple[KindLabel, ...] = tuple(kinds)
        self.copies = copies
        self._slots = [
            Slot(kind, copy, i * copies + copy)
            for i, kind in enumerate(self.kinds)
            for copy in range(copies)
        ]
        self._uid_at: dict[int, bytes] = {}
        self._slot_of: dict[bytes, Slot] = {}
        self._history: list[int] = []
        self.skipped: list[Problem] = []
        """Entries of a resumed registry that did not fit the walk (reported, not used)."""

    # --- the walk -------------------------------------------------------------------
    def expected(self) -> Slot | None:
        """The tile to present next; None when every tile is enrolled."""
        for slot in self._slots:
            if slot.index not in self._uid_at:
                return slot
        return None

    @property
    def is_complete(self) -> bool:
        return len(self._uid_at) == len(self._slots)

    @property
    def last(self) -> Slot | None:
        """The slot enrolled most recently (what :meth:`undo` would take back)."""
        return self._slots[self._history[-1]] if self._history else None

    def offer(self, uid: bytes) -> OfferResult:
        uid = bytes(uid)
        problem = tag_id_problem(uid)
        if problem is not None:
            return Rejected(uid, RejectReason.BAD_UID, problem)
        owner = self._slot_of.get(uid)
        if owner is not None:
            return Rejected(
                uid,
                RejectReason.ALREADY_ENROLLED,
                f"UID {uid_hex(uid)} is already enrolled as {owner.describe(self.copies)}",
                owner,
            )
        slot = self.expected()
        if slot is None:
            return Rejected(uid, RejectReason.COMPLETE, "every tile is already enrolled")
        self._assign(slot, uid)
        return Accepted(uid, slot)

    def undo(self) -> Slot | None:
        """Take back the most recent enrolment; returns the freed slot (None if nothing)."""
        if not self._history:
            return None
        index = self._history.pop()
        uid = self._uid_at.pop(index)
        del self._slot_of[uid]
        return self._slots[index]

    def progress(self) -> Progress:
        return Progress(len(self._uid_at), len(self._slots))

    def enrolled(self, kind: KindLabel) -> int:
        """How many copies of ``kind`` are enrolled."""
        return sum(1 for s in self._slot_of.values() if s.kind == kind)

    def _assign(self, slot: Slot, uid: bytes) -> None:
        self._uid_at[slot.index] = uid
        self._slot_of[uid] = slot
        self._history.append(slot.index)

    # --- registry and files ---------------------------------------------------------
    def to_registry(self) -> TagRegistry:
        """The enrolled tiles (a partial registry until :attr:`is_complete`), in walk order."""
        entries = [
            RegistryEntry(self._uid_at[slot.index], TileTag(slot.kind, slot.copy))
            for slot in self._slots
            if slot.index in self._uid_at
        ]
        return TagRegistry(entries, kinds=self.kinds, copies=self.copies)

    def save(self, path: str | os.PathLike[str]) -> None:
        self.to_registry().save(path)

    @classmethod
    def from_registry(
        cls, registry: TagRegistry, kinds: Sequence[KindLabel], copies: int = COPIES
    ) -> Enrollment:
        """Continue from a (partial) registry. Entries that do not fit the walk — unknown
        kind, bad copy, a UID or tile already taken — are skipped and listed in
        :attr:`skipped`."""
        enrollment = cls(kinds, copies)
        index_of = {(s.kind, s.copy): s for s in enrollment._slots}
        enrollment.skipped.extend(registry.load_problems)
        for entry in registry:
            slot = index_of.get((entry.tile.kind, entry.tile.copy))
            reason = None
            if slot is None:
                reason = f"{entry.tile} is not a tile of this enrolment"
            elif tag_id_problem(entry.uid) is not None:
                reason = tag_id_problem(entry.uid)
            elif entry.uid in enrollment._slot_of:
                reason = f"UID {uid_hex(entry.uid)} is listed twice"
            elif slot.index in enrollment._uid_at:
                reason = f"{entry.tile} is claimed twice"
            if reason is not None or slot is None:
                enrollment.skipped.append(
                    Problem(
                        ProblemCode.BAD_ENTRY,
                        f"skipped: {reason}",
                        uid=uid_hex(entry.uid),
                        kind=entry.tile.kind,
                        copy=entry.tile.copy,
                    )
                )
                continue
            enrollment._uid_at[slot.index] = entry.uid
            enrollment._slot_of[entry.uid] = slot
        # Undo after a resume takes back tiles in walk order, latest first.
        enrollment._history = sorted(enrollment._uid_at)
        return enrollment

    @classmethod
    def resume(
        cls, path: str | os.PathLike[str], kinds: Sequence[KindLabel], copies: int = COPIES
    ) -> Enrollment:
        """Continue from the partial registry at ``path``, or start afresh if there is none.

        Raises :class:`~firmware_bridge.registry.RegistryFileError` if the file exists but
        is not a registry (it is not overwritten: that is the operator's call).
        """
        if not Path(path).exists():
            return cls(kinds, copies)
        return cls.from_registry(TagRegistry.load(path), kinds, copies)
