"""Rounds of a multi-antenna reader -> one Inventory per antenna, each tag on one antenna.

A multi-antenna reader (UHF A0, HF ISC) reports sightings, (tag, antenna, RSSI), round by
round; a table with more zones than one reader has antennas has several readers, each
with its own rounds, and they share one resolver (a border read by the other reader's
antenna is judged against the tag's home like any other). Real antennas overlap: a tile
near a zone border is sometimes read, weaker, by the neighbouring antenna too, and any
tile is sometimes missed. :class:`RoundResolver` gives every tag one *home* antenna and
reports it there until it is settled elsewhere:

- a tag seen by several antennas in a round counts for the strongest (highest RSSI);
- a tag with no home yet (a tile from the wall) takes one at once when read at
  ``strong_rssi`` or more, else after ``confirm_rounds`` rounds with that antenna the
  strongest (``border_rounds`` while it reads below ``border_rssi``); as for a move, a
  round in which no antenna reads it does not break the count (a drawn tile on a weak
  spot read every other round shows within three), and after ``absent_rounds`` such
  rounds it is forgotten (a stranger passing by);
- a tag takes a new home at once when read there at ``strong_rssi`` or more while its
  old home missed it (a tile put down on an antenna reads strong), else after
  ``confirm_rounds`` rounds with the new antenna strongest while the home has not read
  it since: a round in which no antenna reads the tag does not break the count (a tile
  on a weak spot is missed there too; a border read needs the home to miss it all that
  time, which is no likelier than in consecutive rounds), a read at home does;
- a tag whose home has missed it ``confirm_rounds`` rounds in a row takes a new home when
  read there at ``moved_rssi`` or more: the home has stopped seeing it, and a border read
  is this strong less often than once in 10 000 (a tile on the weakest spot of an
  antenna, missed there a round in four, may be read only once before it moves again);
- a read that looks like a border read (below ``border_rssi``) counts only towards
  ``border_rounds`` such rounds: a border read seldom repeats while the home antenna
  misses the tile. The level decides, not the drop from the tag's reading at home: a
  tile from the middle of one antenna on the weakest spot of another reads 15 dB
  weaker, and a border read of a tile on a weak spot at home only 18 dB weaker;
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
"""(the reader's slot in the resolver, antenna port from 1)."""

DEFAULT_CONFIRM_ROUNDS = 2
DEFAULT_ABSENT_ROUNDS = 8
DEFAULT_STRONG_RSSI = -58.0
DEFAULT_BORDER_RSSI = -64.0
DEFAULT_MOVED_RSSI = -62.0
DEFAULT_BORDER_ROUNDS = 4
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
    border_rssi: float = DEFAULT_BORDER_RSSI
    moved_rssi: float = DEFAULT_MOVED_RSSI
    border_rounds: int = DEFAULT_BORDER_ROUNDS
    max_tags: int = DEFAULT_MAX_TAGS


@dataclass(slots=True)
class _Home:
    key: AntennaKey
    rssi: float
    """A running mean of the tag's reads at home."""
    missed: int = 0
    challenger: AntennaKey | None = None
    challenges: int = 0
    """Rounds since the home last read the tag in which the challenger was the strongest
    and read like a tile put there."""
    border_challenges: int = 0
    """... and read like a border read (they only add up to ``border_rounds``)."""


class RoundResolver:
    def __init__(
        self, antennas: Mapping[AntennaKey, int], settings: ResolverSettings | None = None
    ) -> None:
        """``antennas`` maps each antenna of every reader sharing this resolver to the
        zone-map reader id it reports as."""
        settings = settings or ResolverSettings()
        self.antennas = dict(antennas)
        self.confirm_rounds = max(1, settings.confirm_rounds)
        self.absent_rounds = max(1, settings.absent_rounds)
        self.strong_rssi = settings.strong_rssi
        self.border_rssi = settings.border_rssi
        self.moved_rssi = settings.moved_rssi
        self.border_rounds = max(self.confirm_rounds, settings.border_rounds)
        self.max_tags = settings.max_tags
        self._round: dict[int, dict[bytes, dict[AntennaKey, float]]] = {}
        self._home: dict[bytes, _Home] = {}
        self._pending: dict[bytes, tuple[AntennaKey, int, int]] = {}
        """Tags with no home yet: the antenna that read them strongest, in how many rounds,
        and rounds since any antenna read them."""
        self._crowded: set[bytes] = set()
        self._unknown_alerted: set[AntennaKey] = set()
        self._seq: dict[int, int] = {}
        self.rounds = 0

    def add_reader(self, antennas: Mapping[int, int]) -> int:
        """A reader whose antenna ports report as these zone-map reader ids; returns its
        slot, the first half of its antenna keys (bus addresses may repeat across ports)."""
        slot = 1 + max((k[0] for k in self.antennas), default=0)
        self.antennas.update({(slot, port): rid for port, rid in antennas.items()})
        return slot

    def sight(self, slot: int, s: TagSighting, name: str) -> list[ReaderAlert]:
        """A sighting by the reader in ``slot``, called ``name`` (for alerts)."""
        key = (slot, s.antenna)
        if key not in self.antennas:
            if key in self._unknown_alerted:
                return []
            self._unknown_alerted.add(key)
            text = f"{name}: antenna {s.antenna} is in no zone map (tag {s.tag.hex()})"
            return [ReaderAlert(name, s.antenna, "unknown_antenna", text, s.t)]
        seen = self._round.setdefault(slot, {}).setdefault(s.tag, {})
        seen[key] = max(s.rssi, seen.get(key, s.rssi))
        return []

    def clear(self) -> None:
        """Every tile went into the machine (the table shuffles): no tag has a home any
        more, so the next rounds report the zones empty at once."""
        self._home.clear()
        self._pending.clear()
        self._round.clear()

    def home_of(self, tag: bytes) -> AntennaKey | None:
        home = self._home.get(tag)
        return home.key if home else None

    def end_round(
        self, address: int, t: float, name: str
    ) -> tuple[list[Inventory], list[ReaderAlert]]:
        """The reader in slot ``address`` finished a round: its antennas' inventories."""
        seen_round = self._round.pop(address, {})
        self.rounds += 1
        if len(seen_round) > self.max_tags:
            return self._inventories(address, t), [self._crowd_alert(seen_round, t, name)]
        alerts: list[ReaderAlert] = []
        for tag, seen in seen_round.items():
            if len(seen) >= CROWD_ANTENNAS:
                if tag not in self._crowded:
                    self._crowded.add(tag)
                    ports = ", ".join(str(a) for _, a in sorted(seen))
                    alerts.append(
                        ReaderAlert(
                            name,
                            max(seen, key=lambda k: seen[k])[1],
                            "many_antennas",
                            f"{name}: tag {tag.hex()} read by {len(seen)} antennas at once "
                            f"({ports}); counted on the strongest",
                            t,
                        )
                    )
            else:
                self._crowded.discard(tag)
            self._settle(address, tag, seen)
        for tag, home in list(self._home.items()):
            if home.key[0] != address or tag in seen_round:
                continue
            # Missed by every antenna: the home keeps missing it, so a challenger's reads
            # so far still count (a tile that moved to a weak spot is missed there too).
            home.missed += 1
            if home.missed >= self.absent_rounds:
                del self._home[tag]
        for tag, (key, count, unread) in list(self._pending.items()):
            if key[0] == address and tag not in seen_round:
                # a new tile missed a round keeps its count, as a challenger does (it may
                # lie on a weak spot); a stranger passing by is forgotten after a while
                if unread + 1 >= self.absent_rounds:
                    del self._pending[tag]
                else:
                    self._pending[tag] = (key, count, unread + 1)
        return self._inventories(address, t), alerts

    def _crowd_alert(
        self, seen_round: dict[bytes, dict[AntennaKey, float]], t: float, name: str
    ) -> ReaderAlert:
        counts: dict[int, int] = {}
        for seen in seen_round.values():
            for _, antenna in seen:
                counts[antenna] = counts.get(antenna, 0) + 1
        worst = max(counts, key=lambda a: counts[a])
        return ReaderAlert(
            name,
            worst,
            "crowded_round",
            f"{name}: {len(seen_round)} tags in one round (antenna {worst}: {counts[worst]}); "
            f"more than the {self.max_tags} a table can hold, ignored",
            t,
        )

    def _settle(self, address: int, tag: bytes, seen: dict[AntennaKey, float]) -> None:
        home = self._home.get(tag)
        best = max(seen, key=lambda k: (seen[k], home is not None and k == home.key))
        rssi = seen[best]
        if home is None:
            key, count, _ = self._pending.get(tag, (best, 0, 0))
            count = count + 1 if key == best else 1
            needed = self.confirm_rounds if rssi >= self.border_rssi else self.border_rounds
            if rssi >= self.strong_rssi or count >= needed:
                self._pending.pop(tag, None)
                self._home[tag] = _Home(best, rssi)
            else:
                self._pending[tag] = (best, count, 0)
            return
        # The home antenna may belong to another reader: then whether it still reads the
        # tag is what that reader's last round said.
        ours = home.key[0] == address
        at_home = seen.get(home.key) if ours else None
        if ours:
            home.missed = 0 if at_home is not None else home.missed + 1
        if at_home is not None:
            home.rssi += (at_home - home.rssi) / 4
        home_missed = at_home is None if ours else home.missed > 0
        if best == home.key:
            home.challenger, home.challenges, home.border_challenges = None, 0, 0
            return
        if not ours and not home_missed and rssi <= home.rssi:
            # Its home (another reader's) read it in its last round, and more strongly:
            # nothing to count, nothing to reset.
            return
        if home.challenger != best:
            home.challenger, home.challenges, home.border_challenges = best, 0, 0
        if rssi < self.border_rssi:
            home.border_challenges += 1
        else:
            home.challenges += 1
        if (
            home.challenges >= self.confirm_rounds
            or home.challenges + home.border_challenges >= self.border_rounds
            or (rssi >= self.strong_rssi and home_missed and home.border_challenges == 0)
            or (rssi >= self.moved_rssi and home.missed >= self.confirm_rounds)
        ):
            self._home[tag] = _Home(best, rssi)

    def _inventories(self, address: int, t: float) -> list[Inventory]:
        by_key: dict[AntennaKey, set[bytes]] = {k: set() for k in self.antennas if k[0] == address}
        for tag, home in self._home.items():
            if home.key in by_key:
                by_key[home.key].add(tag)
        seq = self._seq.get(address, 0)
        self._seq[address] = (seq + 1) & 0xFF
        return [
            Inventory(self.antennas[key], seq, frozenset(tags), t) for key, tags in by_key.items()
        ]
