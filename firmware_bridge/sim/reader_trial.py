"""Whole hands of tile moves read through a reader model, and what the bridge made of them.

No asyncio and no clock: a hand is a list of physical moves between inventory rounds; the
virtual readers answer the real host sessions byte for byte (A0 and ISC: sessions.py and
the round resolver; ref: RefCodec), an InventoryTracker turns the inventories into
TagIn/TagOut, and each event is checked against where the tile truly lies:

- a **false move**: a TagIn into a zone the tile is not in;
- a **lost tile**: a TagOut from the zone the tile still lies in;
- a **missed move**: a real move with no TagIn into its zone before the tile moves again
  (or the hand ends, a few rounds after the last move);
- the **delay** of each move: inventory rounds from the move to its TagIn (1 = the first
  round after it).

bench/readers.py runs 200 hands per model; a test runs a few.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from firmware_bridge.rfid.events import Inventory
from firmware_bridge.rfid.inventory import InventoryTracker, TagIn, TagOut
from firmware_bridge.rfid.ref_frame import RefCodec, encode_inventory
from firmware_bridge.rfid.rounds import RoundResolver
from firmware_bridge.rfid.sessions import PolledSession, make_session
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.sim.antennas import AntennaField, FieldModel
from firmware_bridge.sim.model import TableModel
from firmware_bridge.sim.moves import FlipToJing, MoveTag, TakeFromWall
from firmware_bridge.sim.multi_antenna import VirtualMultiReader, make_virtual_reader
from firmware_bridge.sim.tiles import make_uids

ReaderModel = Literal["a0", "iso15693", "ref"]
MODELS: tuple[ReaderModel, ...] = ("a0", "iso15693", "ref")
REF_SCAN_SECONDS = 0.1
SETTLE_ROUNDS = 12
"""Rounds after the last move of a hand before it is judged."""
ROUNDS_PER_BATCH = 3
"""Inventory rounds between one batch of moves and the next: players act every three
rounds (an A0 round takes a fifth of a second, an ISC round over 8 antennas about one: a
quick player). A move not seen before the tile moves again counts as missed."""


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


def hand_moves(model: TableModel, rng: random.Random) -> Iterator[list[object]]:
    """The moves of one hand, a batch per inventory round: the jing flipped, 13 tiles dealt
    to each seat four at a time, then turns of draw and discard, with a pung now and then.
    Positions and zones only: no rules."""
    wall = iter(range(len(model.wall)))
    jing_at = len(model.wall) - 1
    jing = model.wall[jing_at]
    yield [FlipToJing(jing)] if jing is not None else []
    for _ in range(3):
        for seat in range(4):
            yield [TakeFromWall(next(wall), Zone(ZoneKind.HAND, seat)) for _ in range(4)]
    for seat in range(4):
        yield [TakeFromWall(next(wall), Zone(ZoneKind.HAND, seat))]
    seat = 0
    for _ in range(60):
        hand = Zone(ZoneKind.HAND, seat)
        yield [TakeFromWall(next(wall), hand)]
        tiles = sorted(model.tags_in(hand))
        discard = rng.choice(tiles)
        yield [MoveTag(discard, Zone(ZoneKind.DISCARDS, seat))]
        nxt = (seat + 1) % 4
        taker = sorted(model.tags_in(Zone(ZoneKind.HAND, nxt)))
        if len(taker) >= 4 and rng.random() < 0.1:  # a pung: the discard and two held tiles
            taken = [discard, *rng.sample(taker, 2)]
            yield [MoveTag(t, Zone(ZoneKind.MELDS, nxt)) for t in taken]
        seat = nxt


class _Pipeline:
    """The host side of one reader model, fed by the virtual readers."""

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


def run_trial(
    kind: ReaderModel,
    hands: int,
    *,
    seed: int = 0,
    miss_rate: float = 0.05,
    border_rate: float = 0.02,
) -> TrialResult:
    result = TrialResult(kind)
    zones = ZoneMap.standard()
    uids = make_uids(seed, 136, epc=kind == "a0")
    for h in range(hands):
        rng = random.Random(f"{seed}:{kind}:{h}")
        model = TableModel(uids)
        model.build_wall(rng)
        field_ = AntennaField(
            FieldModel(miss_rate=miss_rate, border_rate=border_rate if kind != "ref" else 0.0),
            random.Random(f"{seed}:{kind}:{h}:field"),
        )
        pipeline = _Pipeline(kind, zones, field_, model)
        _play(pipeline, model, rng, result)
        result.hands += 1
    return result


def _play(pipe: _Pipeline, model: TableModel, rng: random.Random, result: TrialResult) -> None:
    now = 0.0
    rounds = 0
    pending: dict[bytes, tuple[Zone, int]] = {}  # tag -> (zone moved to, round of the move)

    def judge(events: list[TagIn | TagOut]) -> None:
        for event in events:
            truth = model.place_of(event.uid)
            if isinstance(event, TagIn):
                if event.zone != truth:
                    result.false_moves += 1
                    result.note(f"{pipe.kind}: false move of {event.uid.hex()} to {event.zone}")
                    continue
                moved = pending.get(event.uid)
                if moved is not None and moved[0] == event.zone:
                    result.delays.append(rounds - moved[1])
                    del pending[event.uid]
            elif event.zone == truth:
                result.lost_tiles += 1
                result.note(f"{pipe.kind}: {event.uid.hex()} lost from {event.zone}")

    def step() -> None:
        nonlocal now, rounds
        seconds, events = pipe.round(now)
        now += seconds
        rounds += 1
        judge(events)

    step()
    for batch in hand_moves(model, rng):
        for move in batch:
            if isinstance(move, TakeFromWall):
                tag = model.wall[move.position]
                model.take_from_wall(move)
                to = move.to
            else:
                assert isinstance(move, MoveTag | FlipToJing)
                tag = move.tag
                model.move_tag(move)
                to = move.to if isinstance(move, MoveTag) else Zone(ZoneKind.JING)
            if tag is None:
                continue
            if tag in pending:
                result.missed_moves += 1
                result.note(f"{pipe.kind}: move of {tag.hex()} to {pending[tag][0]} missed")
            pending[tag] = (to, rounds)
            result.moves += 1
        for _ in range(ROUNDS_PER_BATCH):
            step()
    for _ in range(SETTLE_ROUNDS):
        step()
    for tag, (zone, _) in pending.items():
        result.missed_moves += 1
        result.note(f"{pipe.kind}: move of {tag.hex()} to {zone} never seen")
    result.rounds += rounds
