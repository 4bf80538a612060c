"""The virtual players read the table as people do: from the centre display. A roll the
table made that they had not pressed for (a press repeated across a restart reaches the
service after the first, and rolls the next roll too when the same seat rolls both) is
taken off the display, not waited for for ever."""

from __future__ import annotations

import asyncio
import random

from controller.sim.virtual_players import VirtualPlayers, _Shadow
from engine.session import Session
from engine.simulation import play_hand
from engine.tiles import KIND_LABELS
from firmware_bridge.protocol.messages import SeatButton, TableState
from firmware_bridge.sim import TileSet
from firmware_bridge.sim.moves import EndHand, Pause, PressButton, TableView, TakeFromWall

UIDS = TileSet(0, KIND_LABELS).uids


def _view(text: str) -> TableView:
    wall = tuple(UIDS)  # the lift order: tile ids in order
    return TableView(
        hand=1, state=TableState.WALLS_UP, wall=wall, lift_order=wall, zones={}, texts={0: text}
    )


async def _moves(players: VirtualPlayers, text: str) -> list[object]:
    return list(await players.next_moves(_view(text)))


def test_a_roll_the_players_did_not_press_for_is_taken_off_the_display() -> None:
    async def main() -> None:
        players = VirtualPlayers("xingguo", UIDS)
        # the hand is shuffled (its log: started, dice committed, shuffled): the dealer
        # (seat 0) presses for the break
        assert await _moves(players, "第1局 #3 掷骰开牌") == [PressButton(0, SeatButton.CONFIRM)]
        # 1+4: the dealer rolls the second roll too (TWO_ROLLS_TOTAL_LEFT)
        assert await _moves(players, "第1局 #4 骰0:1+4 再掷骰") == []
        sh = players.shadow
        assert sh is not None and sh.events == 4 and sh.awaiting_roll is None
        # the press repeated across a restart rolled the second roll before they asked
        moves = await _moves(players, "第1局 #5 骰1:2+3 抓牌")
        assert sh.events == 5 and sh.state.phase.value == "deal"
        assert [d.a + d.b for d in sh.state.dice] == [5, 5]
        assert moves == []  # (a roll is taken on its own; the next look moves on)
        # and they carry on: the dealt tiles are taken from the wall
        moves = await _moves(players, "第1局 #5 骰1:2+3 抓牌")
        assert len(moves) == 53 and all(isinstance(m, TakeFromWall) for m in moves)

    asyncio.run(main())


def test_they_look_at_the_settlement_before_the_next_shuffle() -> None:
    """The settlement stays on screen: the players pause on a settled hand (the demo's
    --between-hands) before EndHand, rather than shuffling 0.33 s after it."""
    players = VirtualPlayers("xingguo", UIDS, between_hands=8.0)
    state, _ = play_hand(Session("xingguo").next_hand(), random.Random(4))
    sh = _Shadow(state, 1, 1)
    assert players._end_hand(sh) == [Pause(8.0), EndHand()]
    assert players._end_hand(sh) == [EndHand()]  # asked again: no second pause
    assert VirtualPlayers("xingguo", UIDS)._end_hand(sh) == [EndHand()]


def test_players_new_to_a_session_under_way_take_the_deal_the_display_shows() -> None:
    """After a restart the players' own session knows nothing; the service resumed hand 3
    (walls they never played on), staff voided it, and hand 4 starts on their walls, dealt
    by seat 2 with a streak of 1: they wait through the old hand, then take the table's."""

    async def main() -> None:
        players = VirtualPlayers("xingguo", UIDS)
        assert await _moves(players, "第3局 #25 东风圈 庄3 连1 骰2:3+4 1号位出牌") == []
        assert await _moves(players, "牌墙已换：请工作人员手动结束本局") == []
        # the voided hand is not theirs: the tiles on the table stay for the next hand
        assert await _moves(players, "第3局 #27 东风圈 庄3 连1 骰2:3+4 本局结束 +0 +0 +0 +0") == []
        assert players.ruled == 0
        moves = await _moves(players, "第4局 #3 东风圈 庄3 连1 掷骰开牌 | 请3号位掷骰")
        assert moves == [PressButton(2, SeatButton.CONFIRM)]  # the dealer presses for the break
        sh = players.shadow
        assert sh is not None and players.dealt_by_table == 1
        started = sh.state.started
        assert (started.hand_no, started.dealer, started.dealer_streak) == (4, 2, 1)

    asyncio.run(main())


def test_a_hand_staff_settled_under_the_players_is_over_for_them() -> None:
    async def main() -> None:
        players = VirtualPlayers("xingguo", UIDS)
        assert await _moves(players, "第1局 #3 东风圈 庄1 掷骰开牌") == [
            PressButton(0, SeatButton.CONFIRM)
        ]
        # staff finish it (流局 by hand) before the roll is even shown: the tiles go back in
        assert await _moves(players, "第1局 #6 东风圈 庄1 本局结束 +0 +0 +0 +0") == [EndHand()]
        assert players.ruled == 1 and players.finished == []
        assert await _moves(players, "第1局 #6 东风圈 庄1 本局结束 +0 +0 +0 +0") == []

    asyncio.run(main())
