"""Tag UIDs to the engine's physical tile ids (0-135), through the enrolment registry,
and members' cards told apart from tiles.

The registry names kinds with the engine's labels (``"5m"``, ``"E"``; or the integers 0-33)
and copies 0-3, so tile id = kind * 4 + copy. What cannot be a tile is an anomaly the
tracker reports, never an exception: an unknown UID, a UID enrolled twice, a copy beyond
the fourth (a fifth copy), or two UIDs claiming the same tile.

A member's card (``cards``: the member registry's lookup, controller.table.seating) is never a
tile and never an anomaly: ``tile_of`` answers a ``Card``. A UID enrolled as a tile stays a
tile whatever the member registry says (``mjtable member`` refuses such a card).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from engine.tiles import COPIES, NUM_KINDS, TileNotationError, parse_kind
from firmware_bridge.registry import Ambiguous, KindLabel, TagRegistry, TileTag, Unknown


class TagProblem(StrEnum):
    UNKNOWN = "unknown_tag"
    AMBIGUOUS = "ambiguous_tag"  # the registry lists the UID more than once
    FIFTH_COPY = "fifth_copy"  # a copy number beyond 3, or a second UID for one tile
    BAD_KIND = "bad_kind"


@dataclass(frozen=True, slots=True)
class BadTag:
    uid: bytes
    problem: TagProblem
    detail: str


@dataclass(frozen=True, slots=True)
class Card:
    """A member's card, read by a reader."""

    uid: bytes
    member_id: str


CardLookup = Callable[[bytes], str | None]
"""A card's UID -> its member's id, or None."""


def kind_index(label: KindLabel) -> int | None:
    """The engine kind of a registry label, or None."""
    if isinstance(label, int):
        return label if 0 <= label < NUM_KINDS else None
    try:
        return parse_kind(label)
    except TileNotationError:
        return None


class TagBook:
    """``tile_of(uid)`` -> a tile id or a ``BadTag``; built once from the registry."""

    def __init__(self, registry: TagRegistry, cards: CardLookup | None = None) -> None:
        self.cards = cards
        self._tiles: dict[bytes, int] = {}
        self._bad: dict[bytes, BadTag] = {}
        holder: dict[int, bytes] = {}
        for entry in registry:
            uid = entry.uid
            if uid in self._tiles or uid in self._bad:
                continue
            found = registry.lookup(uid)
            if isinstance(found, Ambiguous):
                names = ", ".join(str(t) for t in found.tiles)
                self._bad[uid] = BadTag(uid, TagProblem.AMBIGUOUS, f"enrolled as {names}")
                continue
            if isinstance(found, Unknown):  # pragma: no cover - every entry is known
                continue
            bad = self._check(uid, found, holder)
            if bad is not None:
                self._bad[uid] = bad
                continue
            tile = self._tile_id(found)
            holder[tile] = uid
            self._tiles[uid] = tile
        self.uid_of = {t: u for u, t in self._tiles.items()}

    @staticmethod
    def _tile_id(tag: TileTag) -> int:
        kind = kind_index(tag.kind)
        assert kind is not None
        return kind * COPIES + tag.copy

    def _check(self, uid: bytes, tag: TileTag, holder: dict[int, bytes]) -> BadTag | None:
        kind = kind_index(tag.kind)
        if kind is None:
            return BadTag(uid, TagProblem.BAD_KIND, f"kind {tag.kind!r} is not a tile kind")
        if not 0 <= tag.copy < COPIES:
            return BadTag(uid, TagProblem.FIFTH_COPY, f"{tag.kind} copy {tag.copy}")
        tile = kind * COPIES + tag.copy
        if tile in holder:
            return BadTag(uid, TagProblem.FIFTH_COPY, f"{tag} is already another tag's")
        return None

    def tile_of(self, uid: bytes) -> int | BadTag | Card:
        tile = self._tiles.get(uid)
        if tile is not None:
            return tile
        bad = self._bad.get(uid)
        if bad is not None:
            return bad
        member_id = None if self.cards is None else self.cards(uid)
        if member_id is not None:
            return Card(uid, member_id)
        return BadTag(uid, TagProblem.UNKNOWN, "not enrolled")

    def tiles_of(self, uids: Iterable[bytes]) -> tuple[int, ...] | None:
        """Tile ids for a whole list (a lift order), or None if any tag is not a tile."""
        out = []
        for uid in uids:
            tile = self._tiles.get(uid)
            if tile is None:
                return None
            out.append(tile)
        return tuple(out)

    def __len__(self) -> int:
        return len(self._tiles)
