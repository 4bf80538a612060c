"""Tag registry: which tile (kind label, copy 0–3) each tag UID is stuck on.

Kind labels are opaque to the bridge: whatever the caller enrols with (``"5m"`` or ``4``).
The file is JSON, written atomically (temp file in the same directory, fsync, rename)::

    {
      "format": "mjtable.tag-registry",
      "version": 1,
      "copies": 4,
      "kinds": ["1m", "2m", …],          # optional: the expected kinds, in enrolment order
      "tags": [{"uid": "e004010000000000", "kind": "1m", "copy": 0}, …]
    }

``tags`` is a list (not an object keyed by UID) so that a UID written twice survives loading
and is reported by :meth:`TagRegistry.validate` rather than silently merged.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from firmware_bridge.rfid.uid import is_tag_id, parse_uid, tag_id_problem, uid_hex

FORMAT = "mjtable.tag-registry"
VERSION = 1
COPIES = 4

KindLabel = str | int


class RegistryFileError(ValueError):
    """The file is not a registry at all (unreadable, not JSON, wrong shape or version)."""


@dataclass(frozen=True, slots=True)
class TileTag:
    """What a known UID is stuck on."""

    kind: KindLabel
    copy: int

    def __str__(self) -> str:
        return f"{self.kind} copy {self.copy}"


@dataclass(frozen=True, slots=True)
class Unknown:
    """Lookup result for a UID the registry does not hold."""

    uid: bytes


@dataclass(frozen=True, slots=True)
class Ambiguous:
    """Lookup result for a UID the registry holds more than once (a broken registry)."""

    uid: bytes
    tiles: tuple[TileTag, ...]


LookupResult = TileTag | Unknown | Ambiguous


@dataclass(frozen=True, slots=True)
class RegistryEntry:
    uid: bytes
    tile: TileTag


class ProblemCode(StrEnum):
    BAD_ENTRY = "bad_entry"
    """An entry in the file that could not be read (bad hex, wrong types)."""
    DUPLICATE_UID = "duplicate_uid"
    DUPLICATE_TILE = "duplicate_tile"
    """Two UIDs claim the same kind and copy."""
    UNKNOWN_KIND = "unknown_kind"
    BAD_COPY = "bad_copy"
    MISSING_TILE = "missing_tile"
    UNKNOWN_UID = "unknown_uid"
    """A UID seen on the table that the registry does not hold."""


@dataclass(frozen=True, slots=True)
class Problem:
    code: ProblemCode
    message: str
    uid: str | None = None
    kind: KindLabel | None = None
    copy: int | None = None


class TagRegistry:
    def __init__(
        self,
        entries: Iterable[RegistryEntry] = (),
        *,
        kinds: Sequence[KindLabel] | None = None,
        copies: int = COPIES,
    ) -> None:
        self.kinds: tuple[KindLabel, ...] | None = None if kinds is None else tuple(kinds)
        self.copies = copies
        self._entries: list[RegistryEntry] = []
        self._by_uid: dict[bytes, list[TileTag]] = {}
        self.load_problems: list[Problem] = []
        """Entries of the loaded file that could not be read; reported again by validate."""
        for entry in entries:
            self._append(entry)

    # --- reading --------------------------------------------------------------------
    def lookup(self, uid: bytes) -> LookupResult:
        tiles = self._by_uid.get(bytes(uid))
        if not tiles:
            return Unknown(bytes(uid))
        if len(tiles) > 1:
            return Ambiguous(bytes(uid), tuple(tiles))
        return tiles[0]

    def uid_of(self, kind: KindLabel, copy: int) -> bytes | None:
        for entry in self._entries:
            if entry.tile == TileTag(kind, copy):
                return entry.uid
        return None

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[RegistryEntry]:
        return iter(self._entries)

    def __contains__(self, uid: object) -> bool:
        return isinstance(uid, bytes | bytearray) and bytes(uid) in self._by_uid

    # --- editing --------------------------------------------------------------------
    def add(self, uid: bytes, kind: KindLabel, copy: int) -> None:
        """Append an entry as given; conflicts are for :meth:`validate` to report."""
        self._append(RegistryEntry(bytes(uid), TileTag(kind, copy)))

    def remove(self, uid: bytes) -> bool:
        uid = bytes(uid)
        if uid not in self._by_uid:
            return False
        self._entries = [e for e in self._entries if e.uid != uid]
        del self._by_uid[uid]
        return True

    def _append(self, entry: RegistryEntry) -> None:
        self._entries.append(entry)
        self._by_uid.setdefault(entry.uid, []).append(entry.tile)

    # --- validation -----------------------------------------------------------------
    def validate(
        self,
        kinds: Sequence[KindLabel] | None = None,
        seen: Iterable[bytes] = (),
    ) -> list[Problem]:
        """Every problem found, in a stable order; never raises.

        ``kinds`` (default: the kinds stored in the file) enables the unknown-kind and
        missing-tile checks; ``seen`` are UIDs read on the table, reported if unknown.
        """
        expected = self.kinds if kinds is None else tuple(kinds)
        problems = list(self.load_problems)
        for uid, tiles in self._by_uid.items():
            if len(tiles) > 1:
                names = ", ".join(str(t) for t in tiles)
                problems.append(
                    Problem(
                        ProblemCode.DUPLICATE_UID,
                        f"UID {uid_hex(uid)} is listed {len(tiles)} times ({names})",
                        uid=uid_hex(uid),
                    )
                )
        holders: dict[TileTag, list[bytes]] = {}
        for entry in self._entries:
            tile = entry.tile
            if not is_tag_id(entry.uid):
                problems.append(
                    Problem(
                        ProblemCode.BAD_ENTRY,
                        str(tag_id_problem(entry.uid)),
                        uid=uid_hex(entry.uid),
                        kind=tile.kind,
                        copy=tile.copy,
                    )
                )
            if expected is not None and tile.kind not in expected:
                problems.append(
                    Problem(
                        ProblemCode.UNKNOWN_KIND,
                        f"UID {uid_hex(entry.uid)} names kind {tile.kind!r}, not a known kind",
                        uid=uid_hex(entry.uid),
                        kind=tile.kind,
                        copy=tile.copy,
                    )
                )
            if not 0 <= tile.copy < self.copies:
                problems.append(
                    Problem(
                        ProblemCode.BAD_COPY,
                        f"UID {uid_hex(entry.uid)}: copy {tile.copy} is outside "
                        f"0–{self.copies - 1}",
                        uid=uid_hex(entry.uid),
                        kind=tile.kind,
                        copy=tile.copy,
                    )
                )
            uids = holders.setdefault(tile, [])
            if entry.uid not in uids:
                uids.append(entry.uid)
        for tile, uids in holders.items():
            if len(uids) > 1:
                problems.append(
                    Problem(
                        ProblemCode.DUPLICATE_TILE,
                        f"{tile} is claimed by {len(uids)} UIDs: "
                        + ", ".join(uid_hex(u) for u in uids),
                        kind=tile.kind,
                        copy=tile.copy,
                    )
                )
        if expected is not None:
            for kind in expected:
                for copy in range(self.copies):
                    if TileTag(kind, copy) not in holders:
                        problems.append(
                            Problem(
                                ProblemCode.MISSING_TILE,
                                f"no tag enrolled for {kind} copy {copy}",
                                kind=kind,
                                copy=copy,
                            )
                        )
        for uid in dict.fromkeys(bytes(u) for u in seen):
            if uid not in self._by_uid:
                problems.append(
                    Problem(
                        ProblemCode.UNKNOWN_UID,
                        f"UID {uid_hex(uid)} was seen but is not enrolled",
                        uid=uid_hex(uid),
                    )
                )
        return problems

    # --- files ----------------------------------------------------------------------
    def to_json(self) -> str:
        doc: dict[str, Any] = {"format": FORMAT, "version": VERSION, "copies": self.copies}
        if self.kinds is not None:
            doc["kinds"] = list(self.kinds)
        doc["tags"] = [
            {"uid": uid_hex(e.uid), "kind": e.tile.kind, "copy": e.tile.copy} for e in self._entries
        ]
        return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, source: str = "<registry>") -> TagRegistry:
        """Parse a registry; raises :class:`RegistryFileError` only if the whole file is
        unusable. Unreadable entries are kept in :attr:`load_problems`."""
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RegistryFileError(f"{source}: not JSON ({exc})") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("tags"), list):
            raise RegistryFileError(f"{source}: expected an object with a 'tags' list")
        if doc.get("format", FORMAT) != FORMAT or doc.get("version", VERSION) != VERSION:
            raise RegistryFileError(
                f"{source}: format {doc.get('format')!r} version {doc.get('version')!r} "
                f"is not {FORMAT!r} version {VERSION}"
            )
        copies = doc.get("copies", COPIES)
        if not _is_int(copies) or copies < 1:
            raise RegistryFileError(f"{source}: 'copies' must be a positive integer")
        kinds = doc.get("kinds")
        if kinds is not None and (
            not isinstance(kinds, list) or not all(_is_label(k) for k in kinds)
        ):
            raise RegistryFileError(f"{source}: 'kinds' must be a list of strings or integers")
        registry = cls(kinds=kinds, copies=copies)
        for i, item in enumerate(doc["tags"]):
            entry = _read_entry(item)
            if isinstance(entry, str):
                registry.load_problems.append(
                    Problem(ProblemCode.BAD_ENTRY, f"{source}: tags[{i}]: {entry}")
                )
            else:
                registry._append(entry)
        return registry

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> TagRegistry:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise RegistryFileError(f"{path}: cannot read ({exc})") from None
        return cls.from_json(text, source=str(path))

    def save(self, path: str | os.PathLike[str]) -> None:
        write_atomically(Path(path), self.to_json())


def write_atomically(path: Path, text: str) -> None:
    """Readers of ``path`` see the old file or the new one, never half of either."""
    path = path.resolve()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    # The rename itself must reach the disk too (power cut right after enrolment).
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_label(value: object) -> bool:
    return isinstance(value, str) or _is_int(value)


def _read_entry(item: object) -> RegistryEntry | str:
    """An entry, or why it cannot be one."""
    if not isinstance(item, dict):
        return f"expected an object, got {item!r}"
    uid_text, kind, copy = item.get("uid"), item.get("kind"), item.get("copy")
    if not isinstance(uid_text, str):
        return f"missing or non-text 'uid' in {item!r}"
    try:
        uid = parse_uid(uid_text)
    except ValueError as exc:
        return str(exc)
    if isinstance(kind, bool) or not isinstance(kind, str | int):
        return f"UID {uid_text}: 'kind' must be a string or integer, got {kind!r}"
    if isinstance(copy, bool) or not isinstance(copy, int):
        return f"UID {uid_text}: 'copy' must be an integer, got {copy!r}"
    return RegistryEntry(uid, TileTag(kind, copy))
