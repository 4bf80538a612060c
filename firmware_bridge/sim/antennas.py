"""How antennas read a pile of tiles, for the virtual multi-antenna readers (sans-IO).

Each tile put down in a zone lands somewhere on that zone's antenna: in the middle, near an
edge (then a neighbouring zone's antenna may read it too, weaker), or stacked on another
tile; some tiles are metal-backed (a detuned, weaker tag). Each round, each tag is missed
with a probability that depends on where it lies, scaled so that the average over the
placements is ``miss_rate``; an edge tag is read by the neighbouring antenna with a
probability scaled so that the average over all tags is ``border_rate``. RSSI is highest
in the middle and lower at edges, in stacks and on metal; a border read is 18-28 dB weaker
than the tag's reading at home.

A round takes time: per antenna a fixed overhead plus a time per tag (UHF Q algorithm), or
(HF ISO 15693) 16-slot anticollision rounds, more of them the more tags collide.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from firmware_bridge.rfid.zones import Zone, ZoneKind

_SEATS = 4


@dataclass(frozen=True, slots=True)
class FieldModel:
    miss_rate: float = 0.05
    border_rate: float = 0.02
    edge_share: float = 0.25
    """Share of placements near a zone border."""
    stack_share: float = 0.10
    metal_share: float = 0.10
    """Share of tiles that are metal-backed (fixed per tile)."""
    rssi_centre: float = -45.0
    rssi_sd: float = 2.0

    def __post_init__(self) -> None:
        for name in ("miss_rate", "border_rate", "edge_share", "stack_share", "metal_share"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} {value} is outside 0..1")


@dataclass(frozen=True, slots=True)
class Placement:
    edge: bool
    stacked: bool
    neighbour: Zone | None
    """The zone across the border an edge tile lies on (None: no antenna there)."""


@dataclass(frozen=True, slots=True)
class Read:
    zone: Zone
    tag: bytes
    rssi: int


# Relative miss weights and RSSI penalties (dB) by where a tag lies.
_MISS_WEIGHT = {"centre": 0.6, "edge": 2.0}
_STACK_MISS, _METAL_MISS = 1.6, 1.5
_EDGE_DB, _STACK_DB, _METAL_DB = 6.0, 3.0, 6.0


def neighbours(zone: Zone) -> list[Zone]:
    """The zones whose antennas lie next to ``zone``'s on the table."""
    seat = zone.seat
    if zone.kind is ZoneKind.HAND and seat is not None:
        return [Zone(ZoneKind.MELDS, seat)]
    if zone.kind is ZoneKind.MELDS and seat is not None:
        return [Zone(ZoneKind.HAND, seat), Zone(ZoneKind.DISCARDS, seat), Zone(ZoneKind.POOL)]
    if zone.kind is ZoneKind.DISCARDS and seat is not None:
        return [
            Zone(ZoneKind.MELDS, seat),
            Zone(ZoneKind.DISCARDS, (seat + 1) % _SEATS),
            Zone(ZoneKind.DISCARDS, (seat - 1) % _SEATS),
            Zone(ZoneKind.JING),
        ]
    if zone.kind is ZoneKind.POOL:
        return [Zone(ZoneKind.MELDS, s) for s in range(_SEATS)] + [Zone(ZoneKind.JING)]
    return [Zone(ZoneKind.POOL), *(Zone(ZoneKind.DISCARDS, s) for s in range(_SEATS))]


class AntennaField:
    """Placements of the tags on the table's antennas and what one round reads."""

    def __init__(
        self,
        model: FieldModel,
        rng: random.Random,
        covered: Callable[[Zone], bool] = lambda z: True,
    ) -> None:
        self.model = model
        self.rng = rng
        self.covered = covered
        self._placed: dict[bytes, tuple[Zone, Placement]] = {}
        self._odds: dict[bytes, tuple[float, float]] = {}
        """Per placed tag: its miss probability and RSSI at home (fixed while it lies)."""
        self.misses = 0
        self.border_reads = 0
        self._metal: dict[bytes, bool] = {}
        m = model
        mean_weight = (1 - m.edge_share) * _MISS_WEIGHT["centre"] + m.edge_share * _MISS_WEIGHT[
            "edge"
        ]
        mean_weight *= 1 + m.stack_share * (_STACK_MISS - 1)
        mean_weight *= 1 + m.metal_share * (_METAL_MISS - 1)
        self._miss_scale = m.miss_rate / mean_weight if mean_weight else 0.0
        self._border_p = min(1.0, m.border_rate / m.edge_share) if m.edge_share else 0.0

    def metal(self, tag: bytes) -> bool:
        found = self._metal.get(tag)
        if found is None:
            found = self._metal[tag] = self.rng.random() < self.model.metal_share
        return found

    def placement(self, tag: bytes, zone: Zone) -> Placement:
        """Where ``tag`` lies in ``zone``; drawn when it arrives there, then kept."""
        known = self._placed.get(tag)
        if known is not None and known[0] == zone:
            return known[1]
        m = self.model
        edge = self.rng.random() < m.edge_share
        options = [z for z in neighbours(zone) if self.covered(z)]
        neighbour = self.rng.choice(options) if edge and options else None
        placed = Placement(edge, self.rng.random() < m.stack_share, neighbour)
        self._placed[tag] = (zone, placed)
        self._odds[tag] = (self.miss_probability(tag, placed), self.home_rssi(tag, placed))
        return placed

    def worst_miss_probability(self) -> float:
        """A metal-backed tile stacked at an edge: what absence thresholds must outlast."""
        weight = _MISS_WEIGHT["edge"] * _STACK_MISS * _METAL_MISS
        return min(1.0, weight * self._miss_scale)

    def miss_probability(self, tag: bytes, placed: Placement) -> float:
        weight = _MISS_WEIGHT["edge" if placed.edge else "centre"]
        weight *= _STACK_MISS if placed.stacked else 1.0
        weight *= _METAL_MISS if self.metal(tag) else 1.0
        return min(1.0, weight * self._miss_scale)

    def home_rssi(self, tag: bytes, placed: Placement) -> float:
        rssi = self.model.rssi_centre
        rssi -= _EDGE_DB if placed.edge else 0.0
        rssi -= _STACK_DB if placed.stacked else 0.0
        rssi -= _METAL_DB if self.metal(tag) else 0.0
        return rssi

    def read_round(
        self, tags_by_zone: Mapping[Zone, frozenset[bytes]], antennas: frozenset[Zone]
    ) -> list[Read]:
        """One round of the antennas covering ``antennas`` (one reader's), given where every
        tag of the table lies: who is read, by which zone's antenna, how strongly; in a
        shuffled order, like a Q algorithm's."""
        reads: list[Read] = []
        rng = self.rng
        for zone, tags in sorted(tags_by_zone.items()):
            ours = zone in antennas
            for tag in sorted(tags):  # a fixed order: the same seed, the same reads
                placed = self.placement(tag, zone)
                border = placed.neighbour
                theirs = border is not None and border in antennas
                if not ours and not theirs:
                    continue
                miss, rssi = self._odds[tag]
                if ours:
                    if rng.random() < miss:
                        self.misses += 1
                    else:
                        reads.append(Read(zone, tag, self._noisy(rssi)))
                if theirs and rng.random() < self._border_p:
                    assert border is not None
                    self.border_reads += 1
                    weaker = rssi - rng.uniform(18.0, 28.0)
                    reads.append(Read(border, tag, self._noisy(weaker)))
        stale = [t for t, (z, _) in self._placed.items() if t not in tags_by_zone.get(z, ())]
        for tag in stale:
            del self._placed[tag]
            del self._odds[tag]
        self.rng.shuffle(reads)
        return reads

    def _noisy(self, rssi: float) -> int:
        return round(max(-98.0, min(-20.0, self.rng.gauss(rssi, self.model.rssi_sd))))


def uhf_round_seconds(tags_per_antenna: Mapping[int, int]) -> float:
    """An R2000 fast-switch round: 8 ms per antenna plus 2.5 ms per tag read there."""
    return sum(0.008 + 0.0025 * n for n in tags_per_antenna.values())


def hf_round_seconds(tags_per_antenna: Mapping[int, int]) -> float:
    """ISO 15693 at 26 kbit/s: one 16-slot round is ~20 ms, plus ~6 ms per tag read; a
    round with collisions is followed by another (about one more per 8 tags)."""
    total = 0.0
    for n in tags_per_antenna.values():
        slot_rounds = 1 + math.ceil(n / 8)
        total += 0.005 + slot_rounds * 0.020 + n * 0.006
    return total
