"""Zones of the table a reader can cover, and which reader covers which zone."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

SEATS = 4


class ZoneKind(StrEnum):
    HAND = "hand"
    MELDS = "melds"
    DISCARDS = "discards"
    POOL = "pool"
    """One centre pool for every seat's discards."""
    JING = "jing"
    """The spot where the flipped jing indicator lies."""


_SEATED = frozenset({ZoneKind.HAND, ZoneKind.MELDS, ZoneKind.DISCARDS})


@dataclass(frozen=True, order=True, slots=True)
class Zone:
    """A seat's hand/melds/discards (seat 0–3), or the shared pool or jing spot (no seat)."""

    kind: ZoneKind
    seat: int | None = None

    def __post_init__(self) -> None:
        if self.kind in _SEATED:
            if self.seat is None or not 0 <= self.seat < SEATS:
                raise ValueError(f"zone {self.kind} needs a seat 0–{SEATS - 1}, got {self.seat}")
        elif self.seat is not None:
            raise ValueError(f"zone {self.kind} belongs to no seat, got seat {self.seat}")

    def __str__(self) -> str:
        return self.kind.value if self.seat is None else f"{self.kind.value}:{self.seat}"

    @classmethod
    def parse(cls, text: str) -> Zone:
        """``"hand:0"``, ``"discards:3"``, ``"pool"``, ``"jing"``."""
        name, _, seat = text.strip().partition(":")
        try:
            kind = ZoneKind(name.lower())
        except ValueError:
            known = ", ".join(k.value for k in ZoneKind)
            raise ValueError(f"unknown zone {text!r} (zones: {known})") from None
        if not seat:
            return cls(kind)
        if not seat.isdigit():
            raise ValueError(f"bad seat in zone {text!r}")
        return cls(kind, int(seat))


class ZoneMap(Mapping[int, Zone]):
    """Reader id → zone. Several readers may cover one zone (a large centre pool)."""

    def __init__(self, readers: Mapping[int, Zone]) -> None:
        self._zones = dict(readers)

    def __getitem__(self, reader_id: int) -> Zone:
        return self._zones[reader_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self._zones)

    def __len__(self) -> int:
        return len(self._zones)

    def readers_of(self, zone: Zone) -> list[int]:
        return [r for r, z in self._zones.items() if z == zone]

    @classmethod
    def standard(cls, centre_pool: bool = False) -> ZoneMap:
        """Reader ids 1–4 hands of seats 0–3, 5–8 melds, then 9–12 discards (or 9 the
        pool), then the jing spot."""
        zones = [Zone(ZoneKind.HAND, s) for s in range(SEATS)]
        zones += [Zone(ZoneKind.MELDS, s) for s in range(SEATS)]
        if centre_pool:
            zones.append(Zone(ZoneKind.POOL))
        else:
            zones += [Zone(ZoneKind.DISCARDS, s) for s in range(SEATS)]
        zones.append(Zone(ZoneKind.JING))
        return cls({i + 1: z for i, z in enumerate(zones)})

    def to_config(self) -> dict[str, str]:
        return {str(r): str(z) for r, z in sorted(self._zones.items())}

    @classmethod
    def from_config(cls, config: Mapping[str, str] | Mapping[int, str]) -> ZoneMap:
        """``{"1": "hand:0", "9": "pool", ...}``; raises ValueError naming a bad entry."""
        readers: dict[int, Zone] = {}
        for key, value in config.items():
            try:
                reader_id = int(key)
            except ValueError:
                raise ValueError(f"reader id {key!r} is not a number") from None
            if not 0 <= reader_id <= 0xFF:
                raise ValueError(f"reader id {reader_id} is outside 0–255")
            readers[reader_id] = Zone.parse(str(value))
        return cls(readers)

    @classmethod
    def load(cls, path: Path) -> ZoneMap:
        """A JSON file ``{"readers": {"1": "hand:0", ...}}``."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("readers"), dict):
            raise ValueError(f"{path}: expected an object with a 'readers' object")
        return cls.from_config(data["readers"])

    def save(self, path: Path) -> None:
        text = json.dumps({"readers": self.to_config()}, indent=2) + "\n"
        Path(path).write_text(text, encoding="utf-8")
