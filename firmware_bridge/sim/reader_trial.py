"""The bridge side of a reader trial: one reader model's virtual readers and host side,
driven round by round without ports or a clock, and the counts a trial keeps.

The virtual readers answer the real host sessions byte for byte (A0 and ISC: sessions.py
and the round resolver; ref: RefCodec), and an InventoryTracker turns the inventories
into TagIn/TagOut, exactly as ``TableBridge`` does. The hands themselves are played in
``controller.sim.reader_trial`` (legal hands need the rules, which the bridge does not know),
through the controller's tracker; bench/readers.py runs many, a test a few.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from firmware_bridge.rfid.events import Inventory
from firmware_bridge.rfid.inventory import InventoryTracker, TagIn, TagOut
from firmware_bridge.rfid.ref_frame import RefCodec, encode_inventory
from firmware_bridge.rfid.rounds import RoundResolver
from firmware_bridge.rfid.sessions import PolledSession, make_session
from firmware_bridge.rfid.zones import Zone, ZoneMap
from firmware_bridge.sim.antennas import AntennaField
from firmware_bridge.sim.model import TableModel
from firmware_bridge.sim.multi_antenna import VirtualMultiReader, make_virtual_reader

ReaderModel = Literal["a0", "iso15693", "ref"]
MODELS: tuple[ReaderModel, ...] = ("a0", "iso15693", "ref")
REF_SCAN_SECONDS = 0.1
SETTLE_ROUNDS = 12
"""Rounds after the last move of a hand before it is judged."""
ROUNDS_PER_BATCH = 3
"""Inventory rounds between one batch of moves and the next: players act every three
rounds (an A0 round takes a fifth of a second, an ISC round over 8 antennas about one: a
quick player)."""


def out_after_scans(miss_rate: float, tag_rounds: float, errors: float = 0.01) -> int:
    """Scans of absence before a TagOut so that misses alone wrongly drop a tag fewer than
    ``errors`` times in ``tag_rounds`` tag-rounds: the least k with tag_rounds * p**k <
    errors (docs/rfid.md, "Thresholds")."""
    if miss_rate <= 0.0:
        return 1
    if miss_rate >= 1.0:
        raise ValueError("a reader that misses every tag cannot be debounced")
    return max(1, math.ceil(math.log(errors / tag_rounds) / math.log(miss_rate)))


@dataclass(slots=True)
class TrialResult:
    model: str
    hands: int = 0
    moves: int = 0
    rounds: int = 0
    false_moves: int = 0
    lost_tiles: int = 0
    missed_moves: int = 0
    unseen: int = 0
    """Moves no reader saw before the tile moved on (the tracker inferred them): not errors."""
    delays: list[int] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return self.false_moves + self.lost_tiles + self.missed_moves

    def p99_delay(self) -> int:
        if not self.delays:
            return 0
        ordered = sorted(self.delays)
        return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]

    def note(self, text: str) -> None:
        if len(self.examples) < 5:
            self.examples.append(text)

    def add(self, other: TrialResult) -> None:
        """Sum another run of the same model into this one."""
        self.hands += other.hands
        self.moves += other.moves
        self.rounds += other.rounds
        self.false_moves += other.false_moves
        self.lost_tiles += other.lost_tiles
        self.missed_moves += other.missed_moves
        self.unseen += other.unseen
        self.delays += other.delays
        for text in other.examples:
            self.note(text)


class ReaderPipeline:
    """The host side of one reader model, fed by the virtual readers: sessions, the shared
    round resolver and the inventory tracker (what ``TableBridge`` runs), without ports."""

    def __init__(
        self, kind: ReaderModel, zones: ZoneMap, field_: AntennaField, model: TableModel
    ) -> None:
        self.kind = kind
        self.zones = zones
        self.field = field_
        self.model = model
        ids = sorted(zones)
        self.readers: list[tuple[VirtualMultiReader, PolledSession]] = []
        self.commands: list[bytes] = []
        if kind == "ref":
            rounds = 200 * 200 * 136  # tag-rounds in a long season of play
            self.tracker = InventoryTracker(
                zones,
                out_after_scans=out_after_scans(field_.worst_miss_probability(), rounds),
                out_after_seconds=0.0,
            )
            self.codec = RefCodec()
            self._seq = 0
            return
        self.tracker = InventoryTracker(zones, out_after_scans=1, out_after_seconds=0.0)
        resolver = RoundResolver({})
        for k, start in enumerate(range(0, len(ids), 8)):
            chunk = ids[start : start + 8]
            antennas = {p: zones[r] for p, r in enumerate(chunk, start=1)}
            reader = make_virtual_reader(kind, k + 1, antennas, field_, model.zones)
            name = f"{kind} reader {k + 1}"
            session = make_session(kind, name, k + 1, chunk, resolver=resolver)
            self.readers.append((reader, session))
            self.commands.append(session.start(0.0))

    def round(self, now: float) -> tuple[float, list[TagIn | TagOut]]:
        """One inventory round of every reader; returns its duration and the tag events."""
        if self.kind == "ref":
            return REF_SCAN_SECONDS, self._ref_round(now + REF_SCAN_SECONDS)
        events: list[TagIn | TagOut] = []
        longest = 0.0
        for i, (reader, session) in enumerate(self.readers):
            t, command, done = now, self.commands[i], False
            while command and not done:
                answers = reader.receive(command, t)
                command = b""
                for answer in answers:
                    t += answer.delay
                    out, results = session.feed(answer.data, t)
                    command += out
                    for result in results:
                        if isinstance(result, Inventory):
                            done = True
                            events += self.tracker.update(result)
                if not answers:
                    break
            self.commands[i] = command
            longest = max(longest, t - now)
        return longest, events

    def _ref_round(self, t: float) -> list[TagIn | TagOut]:
        table = self.model.zones()
        antennas = frozenset(self.zones.values())
        seen: dict[Zone, set[bytes]] = {z: set() for z in antennas}
        for read in self.field.read_round(table, antennas):
            if read.tag in table.get(read.zone, frozenset()):  # ref readers see no border
                seen[read.zone].add(read.tag)
        stream = b"".join(
            encode_inventory(r, self._seq, seen[zone]) for r, zone in self.zones.items()
        )
        self._seq = (self._seq + 1) & 0xFF
        events: list[TagIn | TagOut] = []
        for inventory in self.codec.feed(stream, t):
            assert isinstance(inventory, Inventory)
            events += self.tracker.update(inventory)
        return events
