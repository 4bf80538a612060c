"""Rounds of a multi-antenna reader -> one Inventory per antenna, each tag on one antenna.

A multi-antenna reader (UHF A0, HF ISC) reports sightings, (tag, antenna, RSSI), round by
round. Real antennas overlap: a tile near a zone border is sometimes read, weaker, by the
neighbouring antenna too, and any tile is sometimes missed. :class:`RoundResolver` gives
every tag one *home* antenna and reports it there until it is settled elsewhere:

- a tag seen by several antennas in a round counts for the strongest (highest RSSI);
- a tag takes a new home at once when read there at ``strong_rssi`` or more while its
  old home missed it (a tile put down on an antenna reads strong), else only after
  ``confirm_rounds`` rounds in a row with the new antenna strongest (a border read, weak,
  almost never repeats while the home antenna misses the tile);
- a tag missing from every antenna stays at home for ``absent_rounds`` rounds.

With a per-round miss rate p, a tile is wrongly dropped with probability p**absent_rounds
per round, and a border read b wins a false move with about (p*b)**confirm_rounds: see
docs/rfid.md for choosing them. A round with more than ``max_tags`` tags (a pile of foreign
tags, a stuck reader) is not believed: it is reported and changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from firmware_bridge.rfid.events import Inventory, ReaderAlert, TagSighting

AntennaKey = tuple[int, int]
"""(reader bus address, antenna port from 1)."""

DEFAULT_CONFIRM_ROUNDS = 2
DEFAULT_ABSENT_ROUNDS = 5
DEFAULT_STRONG_RSSI = -60.0
DEFAULT_MAX_TAGS = 200
"""More than a table's 136 tiles plus a few strangers: a round this big is not believed."""
CROWD_ANTENNAS = 3
"""A tag read by this many antennas at once is reported (an antenna cable swapped, a tile
held up over the table, a reflector)."""


@dataclass(frozen=True, slots=True)
class ResolverSettings:
    confirm_rounds: int = DEFAULT_CONFIRM_ROUNDS
    absent_rounds: int = DEFAULT_ABSENT_ROUNDS
    strong_rssi: float = DEFAULT_STRONG_RSSI
    max_tags: int = DEFAULT_MAX_TAGS


@dataclass(slots=True)
class _Home:
    key: AntennaKey
    missed: int = 0
    challenger: AntennaKey | None = None
    challenges: int = 0


class RoundResolver:
    def __init__(
        self,
        name: str,
        antennas: Mapping[AntennaKey, int],
        settings: ResolverSettings | None = None,
    ) -> None:
        """``antennas`` maps each antenna to the zone-map reader id it reports as."""
        settings = settings or ResolverSettings()
        self.name = name
        self.antennas = dict(antennas)
        self.confirm_rounds = max(1, settings.confirm_rounds)
        self.absent_rounds = max(1, settings.absent_rounds)
        self.strong_rssi = settings.strong_rssi
        self.max_tags = settings.max_tags
        self._round: dict[bytes, dict[AntennaKey, float]] = {}
        self._home: dict[bytes, _Home] = {}
        self._pending: dict[bytes, tuple[AntennaKey, int]] = {}
        self._crowded: set[bytes] = set()
        self._unknown_alerted: set[AntennaKey] = set()
        self._seq = 0
        self.rounds = 0
        self.rounds_refused = 0

    def sight(self, s: TagSighting) -> list[ReaderAlert]:
        key = (s.reader_id, s.antenna)
        if key not in self.antennas:
            if key in self._unknown_alerted:
                return []
            self._unknown_alerted.add(key)
            return [
                ReaderAlert(
                    self.name,
                    s.antenna,
                    "unknown_antenna",
                    f"{self.name}: address {s.reader_id} antenna {s.antenna} is in no zone map",
                    s.t,
                )
            ]
        seen = self._round.setdefault(s.tag, {})
        seen[key] = max(s.rssi, seen.get(key, s.rssi))
        return []

    def home_of(self, tag: bytes) -> AntennaKey | None:
        home = self._home.get(tag)
        return home.key if home else None

    def end_round(self, t: float) -> tuple[list[Inventory], list[ReaderAlert]]:
        seen_round, self._round = self._round, {}
        self.rounds += 1
        alerts: list[ReaderAlert] = []
        if len(seen_round) > self.max_tags:
            self.rounds_refused += 1
            counts: dict[int, int] = {}
            for seen in seen_round.values():
                for _, antenna in seen:
                    counts[antenna] = counts.get(antenna, 0) + 1
            worst = max(counts, key=lambda a: counts[a])
            alerts.append(
                ReaderAlert(
                    self.name,
                    worst,
                    "crowded_round",
                    f"{self.name}: {len(seen_round)} tags in one round (antenna {worst}: "
                    f"{counts[worst]}); more than the {self.max_tags} a table can hold, ignored",
                    t,
                )
            )
            return self._inventories(t), alerts
        for tag, seen in seen_round.items():
            if len(seen) >= CROWD_ANTENNAS:
                if tag not in self._crowded:
                    self._crowded.add(tag)
                    ports = ", ".join(str(a) for _, a in sorted(seen))
                    alerts.append(
                        ReaderAlert(
                            self.name,
                            max(seen, key=lambda k: seen[k])[1],
                            "many_antennas",
                            f"{self.name}: tag {tag.hex()} read by {len(seen)} antennas at "
                            f"once ({ports}); counted on the strongest",
                            t,
                        )
                    )
            else:
                self._crowded.discard(tag)
            self._settle(tag, seen)
        for tag in [tag for tag in self._home if tag not in seen_round]:
            home = self._home[tag]
            home.missed += 1
            home.challenger, home.challenges = None, 0
            if home.missed >= self.absent_rounds:
                del self._home[tag]
        for tag in [tag for tag in self._pending if tag not in seen_round]:
            del self._pending[tag]
        return self._inventories(t), alerts

    def _settle(self, tag: bytes, seen: dict[AntennaKey, float]) -> None:
        best = max(seen, key=lambda k: (seen[k], k == self.home_of(tag)))
        strong = seen[best] >= self.strong_rssi
        home = self._home.get(tag)
        if home is None:
            key, count = self._pending.get(tag, (best, 0))
            count = count + 1 if key == best else 1
            if strong or count >= self.confirm_rounds:
                self._pending.pop(tag, None)
                self._home[tag] = _Home(best)
            else:
                self._pending[tag] = (best, count)
            return
        home.missed = 0 if home.key in seen else home.missed + 1
        if best == home.key:
            home.challenger, home.challenges = None, 0
            return
        if home.challenger == best:
            home.challenges += 1
        else:
            home.challenger, home.challenges = best, 1
        if home.challenges >= self.confirm_rounds or (strong and home.key not in seen):
            self._home[tag] = _Home(best)

    def _inventories(self, t: float) -> list[Inventory]:
        by_key: dict[AntennaKey, set[bytes]] = {key: set() for key in self.antennas}
        for tag, home in self._home.items():
            by_key[home.key].add(tag)
        seq = self._seq
        self._seq = (self._seq + 1) & 0xFF
        return [
            Inventory(self.antennas[key], seq, frozenset(tags), t) for key, tags in by_key.items()
        ]
