"""What a table's SQLite store committed, kept outside it: the highest ``table_seq`` it gave
a hand (and the one a hand is about to commit with, written before its commit) and the last
hand it settled, in ``<database>.settled`` beside the database file (JSON, replaced whole
and fsynced with each commit that moves it).

A store that lost its last commits (its WAL and shared memory deleted after a kill -9, a
WAL SQLite drops as garbled) opens without a word; this file does not go with them. At
start the service compares the store with it (:func:`behind`) and says the loss on any
broker, the embedded one too, which keeps nothing retained across a restart; and the next
hand is numbered past it, so a lost hand's ``table_seq`` is never given again.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path

SUFFIX = ".settled"  # (not one of SQLite's side files: a damaged store set aside leaves it)


@dataclass(frozen=True, slots=True)
class Mark:
    table_seq: int = 0
    """The highest ``table_seq`` the store gave a hand."""
    hand_id: str | None = None
    """The last hand it settled, its number in its session and its session."""
    hand_no: int | None = None
    session_id: str | None = None
    reserved: int = 0
    """The highest ``table_seq`` taken by a hand about to commit: kept before the commit, so
    a kill between the commit and ``table_seq``'s write cannot give the number again (a
    hand killed before its commit leaves its number unused, never said lost)."""

    @property
    def next_seq(self) -> int:
        """Past every number given or about to be."""
        return max(self.table_seq, self.reserved)


def _read(path: Path) -> Mark:
    """The mark written last; none (a new store, or an unreadable file) reads as zero."""
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(path.read_text())
        if isinstance(data, dict) and isinstance(data.get("table_seq"), int):
            hand_id, hand_no = data.get("hand_id"), data.get("hand_no")
            session, reserved = data.get("session_id"), data.get("reserved")
            return Mark(
                data["table_seq"],
                hand_id if isinstance(hand_id, str) else None,
                hand_no if isinstance(hand_no, int) else None,
                session if isinstance(session, str) else None,
                reserved if isinstance(reserved, int) else 0,
            )
    return Mark()


class HighWater:
    """The mark of one store (``path``: its ``.settled`` file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.mark = _read(path)

    @classmethod
    def beside(cls, database: Path) -> HighWater:
        return cls(database.with_name(database.name + SUFFIX))

    def reserve(self, table_seq: int) -> None:
        """A hand is about to commit with ``table_seq`` (written before the commit)."""
        if table_seq > self.mark.next_seq:
            self._write(replace(self.mark, reserved=table_seq))

    def numbered(self, table_seq: int) -> None:
        """A hand took ``table_seq`` (committed)."""
        if table_seq > self.mark.table_seq:
            self._write(replace(self.mark, table_seq=table_seq))

    def settled(self, hand_id: str, hand_no: int, session_id: str | None, table_seq: int) -> None:
        """``hand_id`` was settled (committed)."""
        seq = max(table_seq, self.mark.table_seq)
        self._write(
            replace(
                self.mark, table_seq=seq, hand_id=hand_id, hand_no=hand_no, session_id=session_id
            )
        )

    def _write(self, mark: Mark) -> None:
        """Replace the file whole, durably (a power cut leaves the old mark or the new)."""
        temporary = self.path.with_name(self.path.name + ".new")
        with temporary.open("w") as f:
            json.dump(asdict(mark), f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.path)
        directory = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
        self.mark = mark


def behind(mark: Mark, newest_seq: int, settled: bool) -> list[str]:
    """What the store lost against its mark (``newest_seq``: its highest ``table_seq``;
    ``settled``: whether it holds the mark's hand settled); [] when it lost nothing."""
    problems: list[str] = []
    if mark.hand_id is not None and not settled:
        problems.append(
            f"the last hand this store settled (hand {mark.hand_no} of session "
            f"{mark.session_id}, id {mark.hand_id}) is not in it, settled: its last "
            "commits are lost (the WAL deleted or garbled)"
        )
    if newest_seq < mark.table_seq:
        problems.append(
            f"it numbered hands up to table_seq {mark.table_seq}, it holds up to {newest_seq}: "
            f"hands {newest_seq + 1}-{mark.table_seq} lost; the next hand is "
            f"{mark.table_seq + 1} (a number is never given twice)"
        )
    return problems
