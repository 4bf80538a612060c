"""The tracker with scripted reader reports and buttons (no ports, no clock: ``now`` is given).

Moves become engine actions whatever order the reports come in; what no rule explains
waits, and becomes an alert only if it is still unexplained after the grace time.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from controller.config import TrackerSettings
from controller.table.dealer_guide import due_roll
from controller.table.dice import DiceRoller
from controller.table.tags import TagBook
from controller.tracking.engine_port import EnginePort
from controller.tracking.tracker import Alert, Tracker
from engine.round.actions import Rejection, Shuffle
from engine.round.events import HandStarted
from engine.round.state import Phase, RoundState
from engine.tiles import KIND_LABELS, kind_of
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.registry import TagRegistry
from firmware_bridge.rfid.inventory import TagIn, TagOut
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.sim import TileSet
from firmware_bridge.table_events import ButtonPressed, ReaderBack, ReaderSilent

GRACE = 3.0
UIDS = TileSet(0, KIND_LABELS).uids


def hand(seat: int) -> Zone:
    return Zone(ZoneKind.HAND, seat)


def discards(seat: int) -> Zone:
    return Zone(ZoneKind.DISCARDS, seat)


def shuffled(wall_seed: int) -> EnginePort:
    """A xingguo hand, seat 0 the dealer, on a wall shuffled by ``wall_seed``."""
    port = EnginePort(RoundState(HandStarted("xingguo", dealer=0)))
    order = list(range(136))
    random.Random(wall_seed).shuffle(order)
    assert not isinstance(port.execute(Shuffle(tuple(order))), Rejection)
    return port


class Table:
    """A tracker on a xingguo hand with a known wall, and helpers to report moves."""

    def __init__(
        self,
        registry: TagRegistry | None = None,
        wall_seed: int = 1,
        sink: Callable[[Alert], None] | None = None,
    ) -> None:
        self.port = shuffled(wall_seed)
        self.alerts: list[Alert] = []
        book = TagBook(registry or TileSet(0, KIND_LABELS).registry())
        self.tracker = Tracker(
            self.port,
            book,
            ZoneMap.standard(),
            roller=DiceRoller(seed=1),
            alert=self.alerts.append
            if sink is None
            else lambda a: (self.alerts.append(a), sink(a)),
            settings=TrackerSettings(grace=GRACE, claim_timeout=5.0),
        )
        self.now = 0.0

    def new_wall(self, wall_seed: int) -> None:
        """The tiles go back into the machine (the bridge lets every tag go) and the next
        hand starts on a new wall, as the service has it on a new build."""
        self.port = self.tracker.port = shuffled(wall_seed)
        for tile in range(len(UIDS)):
            for zone in self.tracker.picture.zones_of(tile):
                self.tag_out(zone, tile)
        self.tracker.reset_table()

    @property
    def state(self) -> RoundState:
        return self.port.state

    def at(self, dt: float = 0.01) -> float:
        self.now += dt
        return self.now

    def tag_in(self, zone: Zone, tile: int) -> None:
        self.tracker.observe(TagIn(zone, UIDS[tile], self.now), self.at())

    def tag_out(self, zone: Zone, tile: int) -> None:
        self.tracker.observe(TagOut(zone, UIDS[tile], self.now, self.now), self.at())

    def press(self, seat: int, button: SeatButton) -> None:
        self.tracker.observe(ButtonPressed(seat, button, self.now), self.at())

    def move(self, tile: int, src: Zone | None, dst: Zone) -> None:
        """A tile moved: the new zone reports it first, the old one lets it go later."""
        self.tag_in(dst, tile)
        if src is not None:
            self.tag_out(src, tile)

    def wait(self, seconds: float) -> None:
        """Time passes; the service ticks the tracker a few times a second."""
        end = self.now + seconds
        while self.now < end:
            self.tracker.tick(self.at(min(0.25, end - self.now)))

    def kinds(self) -> list[str]:
        return [a.kind for a in self.alerts]

    def to_play(self) -> None:
        """Dice, the deal (every tile reported in its hand) and the 精: the dealer's turn."""
        while (due := due_roll(self.state)) is not None:
            self.tracker.press_dice(due[1], self.at())
            if self.state.phase is Phase.DEAL:
                assert self.state.wall is not None
                deal = self.state.wall.copy().deal()
                for s in range(4):
                    for t in deal.tiles(s):
                        assert t is not None
                        self.tag_in(hand(s), t)
        assert self.state.wall is not None and self.state.wall.flip is not None
        flip = self.state.wall.flip.tile
        assert flip is not None
        self.tag_in(Zone(ZoneKind.JING), flip)  # the dealer turns the 精 up on its spot
        assert self.state.phase is Phase.TURN and self.state.turn == 0


def test_moves_become_actions_and_the_next_draw_says_pass() -> None:
    t = Table()
    t.to_play()
    assert [e.type for e in t.port.log[:5]] == [
        "shuffled",
        "dice_rolled",
        "dice_rolled",
        "dealt",
        "dice_rolled",
    ]
    tile = t.state.hands[0][0]
    t.move(tile, hand(0), discards(0))
    assert t.state.phase is Phase.CLAIM and t.state.discards[0] == [tile]
    assert t.state.wall is not None
    head = t.state.wall.peek_head()
    assert head is not None and head.tile is not None
    t.move(head.tile, None, hand(1))  # seat 1 drew: nobody claimed the discard
    assert [e.type for e in t.port.log[-5:]] == [
        "passed",
        "passed",
        "passed",
        "claims_resolved",
        "drew",
    ]
    assert t.state.phase is Phase.TURN and t.state.turn == 1
    t.wait(GRACE + 1)
    assert t.alerts == []


def test_unknown_tag_is_alerted_at_once_and_changes_nothing() -> None:
    t = Table()
    t.to_play()
    before = len(t.port.log)
    stranger = b"\xe0\x04\x00\x00\x00\x00\x00\x01"
    t.tracker.observe(TagIn(discards(0), stranger, t.now), t.at())
    assert t.kinds() == ["unknown_tag"]
    assert len(t.port.log) == before
    t.tracker.observe(TagIn(discards(0), stranger, t.now), t.at())
    assert t.kinds() == ["unknown_tag"]  # once per tag


def test_a_fifth_copy_is_alerted() -> None:
    registry = TileSet(0, KIND_LABELS).registry()
    extra = b"\xe0\x04\x99\x99\x99\x99\x99\x99"
    registry.add(extra, "5m", 4)
    t = Table(registry)
    t.to_play()
    t.tracker.observe(TagIn(hand(2), extra, t.now), t.at())
    assert t.kinds() == ["fifth_copy"]


def test_a_tile_in_two_zones_waits_then_alerts() -> None:
    t = Table()
    t.to_play()
    tile = t.state.hands[2][0]
    t.tag_in(discards(3), tile)  # read in seat 3's discards but still in seat 2's hand
    t.wait(GRACE / 2)
    assert t.alerts == []
    t.wait(GRACE)
    assert "duplicate_tag" in t.kinds()
    assert t.state.hands[2][0] == tile  # nothing was made of it


def test_a_misread_that_resolves_itself_raises_nothing() -> None:
    t = Table()
    t.to_play()
    before = len(t.port.log)
    tile = t.state.hands[2][0]
    t.tag_in(discards(1), tile)  # an antenna caught a neighbour's tile for a moment
    t.wait(1.0)
    t.tag_out(discards(1), tile)
    t.tag_out(hand(2), tile)  # and a scan missed it in its own zone
    t.wait(1.0)
    t.tag_in(hand(2), tile)
    t.wait(GRACE + 1)
    assert t.alerts == [] and len(t.port.log) == before


def test_a_seat_with_one_tile_too_many_is_xianggong() -> None:
    t = Table()
    t.to_play()
    assert t.state.wall is not None
    head = t.state.wall.peek_head()
    assert head is not None and head.tile is not None
    t.move(head.tile, None, hand(2))  # seat 2 takes a tile out of turn
    t.wait(GRACE / 2)
    assert t.alerts == []
    t.wait(GRACE)
    assert t.kinds() == ["xianggong"]
    assert t.alerts[0].seat == 2
    assert t.state.phase is Phase.TURN and t.state.turn == 0  # play did not move on


def test_a_false_win_is_refused_and_alerted() -> None:
    t = Table()
    t.to_play()
    t.press(0, SeatButton.WIN)  # the dealer's fourteen tiles are not a win
    assert t.kinds() == ["false_win"]
    assert t.port.log[-1].type == "win_rejected"
    assert t.state.phase is Phase.TURN  # play goes on


def test_a_silent_reader_is_alerted() -> None:
    t = Table()
    t.to_play()
    t.tracker.observe(ReaderSilent(9, discards(0), None, t.now), t.at())
    t.tracker.observe(ReaderBack(9, discards(0), t.now), t.at())
    assert t.kinds() == ["reader_silent"]


def test_a_silent_hand_readers_last_tiles_are_read_nowhere() -> None:
    t = Table()
    t.to_play()
    tile = t.state.hands[0][0]
    t.tracker.observe(ReaderSilent(1, hand(0), t.now, t.now), t.at())  # seat 0's hand reader
    t.tag_in(discards(0), tile)  # the dealer discards; its hand reader says nothing
    t.wait(GRACE * 2)
    assert t.kinds() == ["reader_silent"]  # no tile in two zones, no count for seat 0's hand
    assert t.tracker.zone_of(tile) == discards(0)
    assert t.tracker.tiles_in(hand(0)) == []


def test_a_hand_reader_back_reports_its_zone_again() -> None:
    t = Table()
    t.to_play()
    t.tracker.observe(ReaderSilent(1, hand(0), t.now, t.now), t.at())
    t.tracker.observe(ReaderBack(1, hand(0), t.now), t.at())
    t.tag_in(hand(0), t.state.hands[0][0])  # its first scan again: one tile of fourteen
    t.wait(GRACE * 2)
    assert {"reader_silent", "xianggong"} <= set(t.kinds())  # the hand is judged again


def test_a_held_hand_alerts_none_of_its_discrepancies_and_released_starts_afresh() -> None:
    """Held (the service's stuck check), the hand's discrepancies stay quiet however long
    they stand, a silent reader does not; released (staff ended the hand: the service
    releases it as the next hand starts), the tracker remembers nothing of them: one still
    standing is alerted once it has stood for the grace time again."""
    t = Table()
    t.to_play()
    t.tracker.held = True
    t.tag_in(discards(3), t.state.hands[2][0])  # read in seat 3's discards and seat 2's hand
    t.move(t.state.hands[0][0], hand(0), discards(0))  # the dealer plays on: not applied
    t.wait(GRACE * 5)
    assert t.kinds() == []
    t.tracker.observe(ReaderSilent(9, discards(1), None, t.now), t.at())
    t.tracker.observe(ReaderBack(9, discards(1), t.now), t.at())
    assert t.kinds() == ["reader_silent"]

    t.tracker.held = False
    t.wait(GRACE / 2)
    assert t.kinds() == ["reader_silent"]
    t.wait(GRACE)
    assert "duplicate_tag" in t.kinds()


def _claim_wall(same: int) -> tuple[Table, int, list[int]]:
    """A hand where seat 2 holds ``same`` tiles (2: a pung to claim, 3: a kong) of a kind
    the dealer holds; the dealer's tile, and seat 2's."""
    for seed in range(1, 2000):
        t = Table(wall_seed=seed)
        t.to_play()
        st = t.state
        for tile in st.hands[0]:
            held = [x for x in st.hands[2] if kind_of(x) == kind_of(tile)]
            if len(held) == same and kind_of(tile) not in st.wild:
                return t, tile, held
    raise AssertionError(f"no wall gives seat 2 {same} of a dealer's kind")


def test_a_claim_by_button_and_tiles() -> None:
    t, tile, pair = _claim_wall(2)
    t.move(tile, hand(0), discards(0))
    melds = Zone(ZoneKind.MELDS, 2)
    t.press(2, SeatButton.PUNG)
    t.move(pair[0], hand(2), melds)
    t.move(tile, discards(0), melds)
    assert t.state.phase is Phase.CLAIM  # the button waits for the whole meld
    t.move(pair[1], hand(2), melds)
    assert [e.type for e in t.port.log[-2:]] == ["claims_resolved", "punged"]
    assert t.state.turn == 2 and t.state.phase is Phase.TURN
    assert t.state.melds[2][0].tiles == (*pair, tile)
    t.wait(GRACE + 1)
    assert t.alerts == []


def test_a_kong_laid_without_its_button_is_not_taken_for_a_pung() -> None:
    # After a restart the claim button is lost, and the reader may report the meld's
    # tiles in any order: two of a kind with the third still in the hand could be a kong
    # being laid, so the tiles alone decide only once the meld lies still.
    t, tile, three = _claim_wall(3)
    t.move(tile, hand(0), discards(0))
    melds = Zone(ZoneKind.MELDS, 2)
    t.move(tile, discards(0), melds)
    t.move(three[0], hand(2), melds)
    t.move(three[1], hand(2), melds)
    assert t.state.phase is Phase.CLAIM  # not a pung yet
    t.move(three[2], hand(2), melds)
    assert [e.type for e in t.port.log[-2:]] == ["claims_resolved", "konged"]
    assert sorted(t.state.melds[2][0].tiles) == sorted([*three, tile])


def test_a_pung_laid_by_a_seat_holding_three_stands_once_the_meld_lies_still() -> None:
    t, tile, three = _claim_wall(3)
    t.move(tile, hand(0), discards(0))
    melds = Zone(ZoneKind.MELDS, 2)
    t.move(three[0], hand(2), melds)
    t.move(three[1], hand(2), melds)
    t.move(tile, discards(0), melds)
    assert t.state.phase is Phase.CLAIM
    t.wait(TrackerSettings().meld_settle + 0.5)
    assert [e.type for e in t.port.log[-2:]] == ["claims_resolved", "punged"]
    assert t.state.turn == 2 and three[2] in t.state.hands[2]
    t.wait(GRACE + 1)
    assert t.alerts == []


def test_a_pung_button_decides_at_once_even_with_three_held() -> None:
    t, tile, three = _claim_wall(3)
    t.move(tile, hand(0), discards(0))
    melds = Zone(ZoneKind.MELDS, 2)
    t.press(2, SeatButton.PUNG)
    t.move(three[0], hand(2), melds)
    t.move(three[1], hand(2), melds)
    t.move(tile, discards(0), melds)
    assert [e.type for e in t.port.log[-2:]] == ["claims_resolved", "punged"]
