"""The service on a table without readers (``[hardware] readers = "none"``): a hand
starts at once, with no walls to wait for and no tiles to read; the dice button rolls as
ever; its result can only come from staff, who must give every seat (the readers saw
none); the settled hand stays the current one, for staff to correct or void, until the
dealer rolls for the next."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from controller.config import TableSettings
from controller.runtime import running
from controller.store import request_keys
from controller.store.request_keys import RequestKey
from controller.table.staff_acts import StaleRequest, desk, handle
from controller.table.staff_requests import DiceButton, HandAct, Keyed, Look
from controller.table.table_inputs import DicePress
from engine.round.commands import Audit, Finish, StaffInputError, Void
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import config_for, data_dir, options, until

AUDIT = Audit("ann", "staff", "2026-12-03T21:00:00+00:00", "")
FOUR_SEATS = [
    {"seat": 0, "hand": "19m19p19s1234567z", "melds": [], "discards": "2m"},
    {"seat": 1, "hand": "2223334445556m", "melds": [], "discards": "5p"},
    {"seat": 2, "hand": "2223334445556p", "melds": [], "discards": "5s"},
    {"seat": 3, "hand": "2223334445556s", "melds": [], "discards": "6m"},
]


def _without_readers(mosquitto: Mosquitto, tmp_path: Path) -> TableSettings:
    plain = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
    hardware = plain.hardware.model_validate({"virtual": True, "readers": "none"})
    return plain.model_copy(update={"hardware": hardware})


@pytest.mark.timeout(120)
def test_a_table_without_readers_starts_each_hand_and_takes_its_result_from_staff(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    config = _without_readers(mosquitto, tmp_path)
    assert config.hardware.readerless

    async def scenario() -> None:
        stop = asyncio.Event()
        async with running(config, options(3, 2, stop=stop)) as run:
            assert run.table is None and not run.bridge.readers and run.bridge.board is None
            loop = asyncio.create_task(run.service.run(stop))
            keeper = run.keeper
            await until(lambda: keeper.in_progress, "the first hand to start")
            assert keeper.state is not None and keeper.state.order is None
            run.inputs.put(DicePress())
            await until(lambda: keeper.state is not None and keeper.state.dice, "the break roll")
            first = keeper.hand_id
            view = handle(keeper, Look())
            # the readers saw no seat: a result without the others' hands is refused
            with pytest.raises(StaffInputError, match=r"^seat 0 \(as the readers saw it"):
                handle(keeper, HandAct(Finish(AUDIT), first or "", view["seen"]))
            entered = Finish.of(AUDIT, [], FOUR_SEATS, indicator="1m")
            answer = handle(keeper, HandAct(entered, first or "", view["seen"]))
            assert answer["settlement"]["lines"] is not None
            run.service.act(DicePress(), 0.0)  # what follows any act: the next hand starts
            assert keeper.in_progress and keeper.hand_id != first
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await loop

    asyncio.run(scenario())


@pytest.mark.timeout(120)
def test_without_readers_the_settled_hand_waits_for_the_dealers_roll_and_can_be_voided(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    config = _without_readers(mosquitto, tmp_path)

    async def scenario() -> None:
        stop = asyncio.Event()
        async with running(config, options(3, 3, stop=stop)) as run:
            loop = asyncio.create_task(run.service.run(stop))
            keeper, act = run.keeper, desk(run.inputs)  # through the table loop, as the API
            await until(lambda: keeper.in_progress, "the first hand to start")
            view = await act(Look())
            first = view["hand_id"]
            entered = Finish.of(AUDIT, [], FOUR_SEATS, indicator="1m")
            await act(HandAct(entered, first, view["seen"]))
            await asyncio.sleep(0.5)  # the loop ticks: no next hand by itself
            view = await act(Look())
            assert view["hand_id"] == first and not view["in_progress"]
            # the hand just settled can still be voided (or corrected) as the current one
            void = Audit("ann", "staff", AUDIT.at, "wrong seats entered")
            voided = await act(HandAct(Void(void), first, view["seen"]))
            assert voided["events"][0]["type"] == "hand_voided"
            view = await act(Look())
            assert view["hand_id"] == first and view["totals"] == [0, 0, 0, 0]
            # the dealer rolls (the console's dice button): the next hand starts and rolls
            rolled = await act(DiceButton(first, view["seen"]))
            assert rolled["in_progress"] and rolled["hand_id"] != first
            assert rolled["public"]["dice"], rolled["public"]
            with pytest.raises(StaleRequest):  # the same press again rolls nothing
                await act(DiceButton(first, view["seen"]))
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await loop

    asyncio.run(scenario())


@pytest.mark.timeout(120)
def test_the_dice_buttons_roll_is_stored_with_its_keys_answer_or_neither(
    mosquitto: Mosquitto, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The power goes as the key's answer is written: the roll is not stored either (one
    transaction), so the retry with the same key rolls once."""
    config = _without_readers(mosquitto, tmp_path)
    key = RequestKey("ann", "dice-0123456789", "the press")

    def power_cut() -> None:
        raise OSError("the power went")

    async def scenario() -> None:
        stop = asyncio.Event()
        async with running(config, options(3, 3, stop=stop)) as run:
            loop = asyncio.create_task(run.service.run(stop))
            keeper, act = run.keeper, desk(run.inputs)
            await until(lambda: keeper.in_progress, "the first hand to start")
            view = await act(Look())
            hand_id = view["hand_id"]

            def rolls() -> int:
                stored = keeper.store.load_hand(hand_id).event_dicts()
                return sum(1 for e in stored if e["type"] == "dice_rolled")

            press = Keyed(DiceButton(hand_id, view["seen"]), key)
            monkeypatch.setattr(request_keys, "utcnow", power_cut)
            with pytest.raises(OSError, match="the power went"):
                await act(press)
            monkeypatch.undo()
            assert rolls() == 0  # neither the roll nor its key's answer
            first = await act(press)  # the retry: rolls once
            assert first["public"]["dice"] and first["seen"] == view["seen"] + 1
            assert await act(press) == first  # the same key again: the first answer
            assert rolls() == 1
            stop.set()
            with contextlib.suppress(asyncio.CancelledError):
                await loop

    asyncio.run(scenario())
