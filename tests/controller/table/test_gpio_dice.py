"""The dealer's dice button on the Pi's GPIO panel, end to end: the real service built by
``running()`` with ``[gpio] enabled, pin_factory = "mock"``, the virtual table on ptys, four
bot players and a real Mosquitto.

The bots' own dice presses (seat confirm) are kept off the table, so the GPIO button is the
only way a roll can happen: a whole hand is played with it, every roll is stored, published
on ``dice`` and comes from the Pi's (seeded) roller, and presses when no roll is due (no
hand yet, mid-hand, hand over) change nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from controller.runtime import Running, running
from controller.sim.virtual_players import VirtualPlayers
from controller.table.dealer_guide import due_roll
from controller.table.dice import check_dice
from engine.round.events import DiceRolled
from firmware_bridge.gpio import TablePanel
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.sim.moves import Move, PressButton, TableView
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import retained_state
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    log_of,
    options,
    recording,
    refold,
    until,
)

SEED = 21
DICE_PIN = 17  # the default [gpio] dice_button (BCM)
BOUNCE = 0.05


class WithoutSeatDice:
    """The virtual players, minus their dice presses: they still ask for each roll (and
    wait for the display to show it) but only the dealer's GPIO button can roll.
    ``hold`` freezes them so the hand cannot move on while the test looks at it."""

    def __init__(self, players: VirtualPlayers) -> None:
        self.players = players
        self.hold = False
        self.dropped = 0

    async def next_moves(self, view: TableView) -> Sequence[Move]:
        if self.hold:
            return ()  # not asking the players: their own round must not run ahead
        moves = await self.players.next_moves(view)
        kept = [
            m for m in moves if not (isinstance(m, PressButton) and m.button is SeatButton.CONFIRM)
        ]
        self.dropped += len(moves) - len(kept)
        return kept


async def click(factory: MockFactory) -> None:
    """Press and release the button as a finger does. From another thread, as gpiozero's
    callbacks come; each edge is held past the panel's debounce so none is taken for a
    bounce. When this returns, the press the panel handed to the loop has been handled:
    call_soon_threadsafe is first in, first out, and it was queued before our wake-up."""

    def finger() -> None:
        pin = factory.pin(DICE_PIN)
        pin.drive_low()
        time.sleep(2 * BOUNCE)
        pin.drive_high()
        time.sleep(2 * BOUNCE)

    await asyncio.to_thread(finger)


def stored_events(run: Running) -> int:
    hand_id = run.keeper.hand_id
    return 0 if hand_id is None else run.store.load_hand(hand_id).next_seq


def roll_asked(run: Running, players: VirtualPlayers) -> bool:
    """The players wait for the roll the hand is due (the moment a dealer presses)."""
    st, sh = run.keeper.state, players.shadow
    if st is None or sh is None or sh.awaiting_roll is None:
        return False
    return (
        sh.state.started.hand_no == st.started.hand_no
        and len(sh.state.dice) == len(st.dice)
        and sh.awaiting_roll == due_roll(st)
    )


@pytest.mark.timeout(120)
def test_the_gpio_dice_button_rolls_a_whole_hand(mosquitto: Mosquitto, tmp_path: Path) -> None:
    config = config_for(
        data_dir(tmp_path),
        "xingguo",  # break, jing (and 下精) rolls: several presses per hand
        mosquitto.url,
        gpio={"enabled": True, "pin_factory": "mock", "bounce_time": BOUNCE},
    )

    async def main() -> None:
        async with recording(mosquitto.port) as rec:
            async with running(config, options(SEED, 1)) as run:
                panel = run.service.panel
                assert isinstance(panel, TablePanel), "the GPIO panel is not wired to the service"
                factory = panel.pin_factory
                assert isinstance(factory, MockFactory)
                assert run.players is not None and run.table is not None
                players = run.players
                bots = WithoutSeatDice(players)
                # The table asks its driver only once the service shows a hand: no move yet.
                run.table.driver = bots

                await click(factory)  # no hand yet: nothing to roll
                assert panel.presses == 1
                assert run.keeper.state is None

                stop = asyncio.Event()
                service = asyncio.create_task(run.service.run(stop))
                accepted = 0
                checked_mid_hand = False
                try:
                    # The same panel shows the board's link (a cheap check of its wiring).
                    await until(lambda: panel.link_up, "the link LED lit")
                    while True:
                        await until(
                            lambda: run.service.done.is_set() or roll_asked(run, players),
                            "the players to ask for a roll (or the hand to end)",
                        )
                        if run.service.done.is_set():
                            break
                        bots.hold = True
                        st = run.keeper.state
                        assert st is not None
                        dice, seq = len(st.dice), stored_events(run)
                        await click(factory)
                        accepted += 1
                        st = run.keeper.state
                        assert st is not None
                        assert len(st.dice) == dice + 1, "the GPIO press did not roll"
                        assert stored_events(run) > seq, "the roll was not stored"
                        if due_roll(st) is None and not checked_mid_hand:
                            # Nothing is due and the players are held: this press is spare.
                            checked_mid_hand = True
                            assert run.keeper.in_progress
                            seq = stored_events(run)
                            await click(factory)
                            after = run.keeper.state
                            assert after is not None and len(after.dice) == dice + 1
                            assert stored_events(run) == seq
                        bots.hold = False
                    await asyncio.wait_for(service, GUARD)
                finally:
                    stop.set()
                    if not service.done():
                        service.cancel()

                # The hand is over: a press rolls nothing more.
                seq = stored_events(run)
                await click(factory)
                assert stored_events(run) == seq

                await asyncio.wait_for(run.publisher.wait_drained(), GUARD)
                hands = finished_hands(run.store)
                presses, ignored = panel.presses, panel.bounces_ignored
            await until(lambda: len(rec.of("settlement")) == 1, "the settlement published")
            retained = await retained_state(mosquitto.port)

        assert checked_mid_hand
        assert bots.dropped >= accepted  # the players did ask: every roll was the button's
        assert ignored == 0 and presses == accepted + 3  # every click counted, none a bounce
        assert len(hands) == 1
        stored = hands[0]
        refold(stored)  # the pure engine agrees with the whole hand
        rolls = [e for e in log_of(stored) if isinstance(e, DiceRolled)]
        assert len(rolls) == accepted
        assert {"break", "jing"} <= {r.purpose for r in rolls}
        # The Pi rolled them (derived from the hand's committed seed), not the board's dice.
        verdict = check_dice(log_of(stored))
        assert verdict.ok is True and verdict.rolls == len(rolls), verdict.lines()

        hand_id = stored.hand.id
        expected = [
            {"hand_id": hand_id, "seat": r.seat, "purpose": r.purpose, "a": r.a, "b": r.b}
            for r in rolls
        ]
        sent = [p for p in rec.of("dice") if p["hand_id"] == hand_id]
        assert sent == expected  # each roll once, nothing for the spare presses
        assert retained["dice"] == expected[-1]
        published = [e for e in rec.of("events") if e["hand_id"] == hand_id]
        assert [e["seq"] for e in published] == list(range(len(stored.events)))
        assert [e["event"] for e in published] == [ev.public_dict() for ev in log_of(stored)]

    asyncio.run(main())
