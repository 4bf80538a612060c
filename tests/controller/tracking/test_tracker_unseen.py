"""Moves no reader saw: a tile moved on before the antenna where it lay read it.

An antenna misses a tile a few rounds running now and then (an edge, a stack, a
metal-backed tile), and players move fast: a drawn tile discarded at once, a discard
claimed as soon as it lands. The tracker applies what must have happened in between, and
nothing that need not have (bench/readers.py counts both over whole hands).
"""

from __future__ import annotations

from controller.table.dealer_guide import due_roll
from engine.round.state import Phase
from engine.tiles import kind_of
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.rfid.zones import Zone, ZoneKind
from tests.controller.tracking.test_tracker import GRACE, Table, _claim_wall, discards, hand


def melds(seat: int) -> Zone:
    return Zone(ZoneKind.MELDS, seat)


def _head(t: Table) -> int:
    assert t.state.wall is not None
    head = t.state.wall.peek_head()
    assert head is not None and head.tile is not None
    return head.tile


def test_a_discard_claimed_before_the_discards_antenna_read_it_was_the_discard() -> None:
    t, tile, pair = _claim_wall(2)
    t.press(2, SeatButton.PUNG)
    t.move(pair[0], hand(2), melds(2))
    t.move(pair[1], hand(2), melds(2))
    t.move(tile, hand(0), melds(2))  # straight from the dealer's hand, as the readers say
    assert "discarded" in [e.type for e in t.port.log]
    assert t.port.log[-1].type == "punged"
    assert t.state.discards[0] == [] and t.state.phase is Phase.TURN and t.state.turn == 2
    assert sorted(t.state.melds[2][0].tiles) == sorted([*pair, tile])
    t.wait(GRACE + 1)
    assert t.alerts == []


def test_a_drawn_tile_discarded_before_the_hand_read_it_was_drawn_then_discarded() -> None:
    t = Table()
    t.to_play()
    t.move(t.state.hands[0][0], hand(0), discards(0))
    drawn = _head(t)
    t.move(drawn, None, discards(1))  # seat 1 drew it and threw it: read only there
    assert [e.type for e in t.port.log[-3:]] == ["claims_resolved", "drew", "discarded"]
    assert t.state.discards[1] == [drawn] and t.state.phase is Phase.CLAIM
    t.wait(GRACE + 1)
    assert t.alerts == []


def test_a_drawn_tile_discarded_and_claimed_unread_was_drawn_discarded_and_claimed() -> None:
    for seed in range(1, 400):
        t = Table(wall_seed=seed)
        t.to_play()
        t.move(t.state.hands[0][0], hand(0), discards(0))
        drawn = _head(t)
        pair = [x for x in t.state.hands[2] if kind_of(x) == kind_of(drawn)]
        if len(pair) == 2 and kind_of(drawn) not in t.state.wild:
            break
    else:
        raise AssertionError("no wall lets seat 2 pung seat 1's next draw")
    t.press(2, SeatButton.PUNG)
    for x in pair:
        t.move(x, hand(2), melds(2))
    t.move(drawn, None, melds(2))
    assert [e.type for e in t.port.log].count("drew") == 1
    assert t.port.log[-1].type == "punged" and t.state.discards[1] == []
    assert sorted(t.state.melds[2][0].tiles) == sorted([*pair, drawn])
    assert t.state.turn == 2 and t.state.phase is Phase.TURN


def test_a_dealt_tile_discarded_before_the_hand_read_it_was_dealt() -> None:
    t = Table()
    while (due := due_roll(t.state)) is not None and t.state.phase is not Phase.FLIP:
        t.tracker.press_dice(due[1], t.at())
        if t.state.phase is Phase.DEAL:
            break
    assert t.state.phase is Phase.DEAL and t.state.wall is not None
    deal = t.state.wall.copy().deal()
    thrown = deal.tiles(0)[-1]
    assert thrown is not None
    for s in range(4):
        for x in deal.tiles(s):
            assert x is not None
            if x != thrown:
                t.tag_in(hand(s), x)
    assert t.state.phase is Phase.DEAL
    t.tag_in(discards(0), thrown)  # the dealer threw it before its hand's antenna read it
    assert t.state.phase is Phase.FLIP
    t.tracker.press_dice(0, t.at())  # the 精
    assert t.state.discards[0] == [thrown] and t.state.phase is Phase.CLAIM


def test_a_tile_of_another_hand_in_the_melds_is_no_discard() -> None:
    # During seat 0's turn a tile of seat 1's hand read in seat 2's melds cannot be seat
    # 0's discard: nothing is applied, and it is alerted once the grace time is over.
    t = Table()
    t.to_play()
    before = len(t.port.log)
    t.move(t.state.hands[1][0], hand(1), melds(2))
    assert len(t.port.log) == before and t.state.phase is Phase.TURN
    t.wait(GRACE + 1)
    assert "tile_misplaced" in t.kinds()


def test_the_next_draw_in_another_seats_discards_is_no_draw() -> None:
    t = Table()
    t.to_play()
    t.move(t.state.hands[0][0], hand(0), discards(0))
    before = len(t.port.log)
    t.tag_in(discards(2), _head(t))  # seat 2 cannot have drawn it: seat 1 draws next
    assert len(t.port.log) == before and t.state.phase is Phase.CLAIM


def _pung_on_seat_1() -> tuple[Table, int, list[int], int]:
    """Seat 0 has discarded; seat 1's next draw (not read yet), a tile of seat 1's hand
    that seat 2 holds a pair of, and the pair."""
    for seed in range(1, 2000):
        t = Table(wall_seed=seed)
        t.to_play()
        t.move(t.state.hands[0][0], hand(0), discards(0))
        for tile in t.state.hands[1]:
            pair = [x for x in t.state.hands[2] if kind_of(x) == kind_of(tile)]
            if len(pair) == 2 and kind_of(tile) not in t.state.wild:
                return t, tile, pair, _head(t)
    raise AssertionError("no wall lets seat 2 pung a tile of seat 1's")


def test_a_claim_button_for_the_next_discard_does_not_hold_the_window_open() -> None:
    # Seat 1 drew (its hand's antenna has not read the tile yet), discarded, and seat 2
    # pressed pung and laid the meld: the button is for seat 1's discard, not seat 0's.
    t, tile, pair, drawn = _pung_on_seat_1()
    t.move(tile, hand(1), discards(1))
    t.press(2, SeatButton.PUNG)
    for x in (tile, *pair):
        t.move(x, hand(2) if x in pair else discards(1), melds(2))
    t.tag_in(hand(1), drawn)  # read at last
    assert t.state.phase is Phase.TURN and t.state.turn == 2
    assert t.state.hands[1].count(drawn) == 1 and t.state.discards[1] == []
    assert sorted(t.state.melds[2][0].tiles) == sorted([*pair, tile])


def test_of_two_tiles_thrown_unseen_the_first_to_arrive_was_the_discard() -> None:
    # Seat 1's discard went straight to seat 2's melds; seat 1's draw, never read in its
    # hand, shows up in its discards later (its next turn's discard): the claimed tile was
    # the discard of this turn.
    t, tile, pair, drawn = _pung_on_seat_1()
    t.move(tile, hand(1), melds(2))
    for x in pair:
        t.move(x, hand(2), melds(2))
    t.wait(2.0)  # (the meld lies still)
    t.tag_in(discards(1), drawn)
    assert t.state.phase is Phase.TURN and t.state.turn == 2
    assert t.state.discards[1] == [] and drawn in t.state.hands[1]  # (thrown next turn)
    assert sorted(t.state.melds[2][0].tiles) == sorted([*pair, tile])
