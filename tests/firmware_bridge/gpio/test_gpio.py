"""GPIO panel on gpiozero's MockFactory: button debounce, LEDs, buzzer, factory choice."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

from firmware_bridge.gpio import (
    Board,
    FactoryName,
    GpioConfig,
    TablePanel,
    choose_factory_name,
    detect_board,
    make_pin_factory,
)
from firmware_bridge.gpio.board import board_of


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def panel(factory: MockFactory, clock: FakeClock) -> Iterator[TablePanel]:
    with TablePanel(GpioConfig(), factory, clock=clock) as p:
        yield p


def press(factory: MockFactory, clock: FakeClock, at: float, pin: int = 17) -> None:
    clock.now = at
    factory.pin(pin).drive_low()


def release(factory: MockFactory, clock: FakeClock, at: float, pin: int = 17) -> None:
    clock.now = at
    factory.pin(pin).drive_high()


def test_a_press_is_reported_with_its_time(
    panel: TablePanel, factory: MockFactory, clock: FakeClock
) -> None:
    got: list[float] = []
    panel.on_dice(got.append)
    assert not panel.dice_pressed
    press(factory, clock, 100.0)
    assert panel.dice_pressed
    release(factory, clock, 100.2)
    assert got == [100.0]


def test_bounces_are_ignored(panel: TablePanel, factory: MockFactory, clock: FakeClock) -> None:
    got: list[float] = []
    panel.on_dice(got.append)
    # Contact bounce on press: low, high, low within a few ms.
    press(factory, clock, 100.000)
    release(factory, clock, 100.002)
    press(factory, clock, 100.004)
    # Bounce on release too.
    release(factory, clock, 100.300)
    press(factory, clock, 100.301)
    release(factory, clock, 100.303)
    # A real second press, long after.
    press(factory, clock, 101.000)
    release(factory, clock, 101.2)
    assert got == [100.0, 101.0]
    assert panel.presses == 2 and panel.bounces_ignored == 2


def test_bounce_time_is_handed_to_gpiozero(factory: MockFactory) -> None:
    with TablePanel(GpioConfig(bounce_time=0.03), factory):
        assert factory.pin(17).bounce == pytest.approx(0.03)


def test_unsubscribe(panel: TablePanel, factory: MockFactory, clock: FakeClock) -> None:
    got: list[float] = []
    stop = panel.on_dice(got.append)
    stop()
    press(factory, clock, 100.0)
    release(factory, clock, 100.1)  # a held button would keep gpiozero's hold thread busy
    assert got == [] and panel.presses == 1


def test_dice_queue_for_asyncio(panel: TablePanel, factory: MockFactory, clock: FakeClock) -> None:
    async def main() -> list[float]:
        queue = panel.dice_queue()
        loop = asyncio.get_running_loop()

        def pressing() -> None:  # from another thread, as gpiozero does
            press(factory, clock, 100.0)
            release(factory, clock, 100.1)
            press(factory, clock, 100.5)
            release(factory, clock, 100.6)

        await loop.run_in_executor(None, pressing)
        return [await asyncio.wait_for(queue.get(), 1.0) for _ in range(2)]

    assert asyncio.run(main()) == [100.0, 100.5]


def test_leds(panel: TablePanel, factory: MockFactory) -> None:
    link, fault = factory.pin(27), factory.pin(22)
    assert not link.state and not fault.state
    panel.set_link(True)
    assert link.state and panel.link_up
    panel.set_link(False)
    assert not link.state and not panel.link_up
    panel.set_fault(True)
    assert fault.state and panel.fault
    panel.set_fault(True, blink=True)
    assert panel.fault
    panel.set_fault(False)
    assert not fault.state and not panel.fault


def test_buzzer(panel: TablePanel, factory: MockFactory) -> None:
    pin = factory.pin(18)
    panel.buzz(True)
    assert pin.state and panel.buzzing
    panel.buzz(False)
    assert not pin.state
    pin.clear_states()
    panel.beep(on_time=0.01, off_time=0.01, n=2, wait=True)
    assert [s.state for s in pin.states] == [False, True, False, True, False]


def test_custom_pins(factory: MockFactory, clock: FakeClock) -> None:
    cfg = GpioConfig(dice_button=5, link_led=6, fault_led=13, buzzer=19)
    got: list[float] = []
    with TablePanel(cfg, factory, clock=clock) as p:
        p.on_dice(got.append)
        press(factory, clock, 100.0, pin=5)
        p.set_link(True)
        assert factory.pin(6).state
    assert got == [100.0]


def test_config_rejects_clashing_pins() -> None:
    with pytest.raises(ValueError):
        GpioConfig(dice_button=18)
    with pytest.raises(ValueError):
        GpioConfig(buzzer=40)


@pytest.mark.parametrize(
    ("model", "board"),
    [
        ("Raspberry Pi 5 Model B Rev 1.0", Board.PI5),
        ("Raspberry Pi Compute Module 5 Rev 1.0", Board.PI5),
        ("Raspberry Pi 4 Model B Rev 1.4", Board.PI),
        ("Raspberry Pi 3 Model B Plus Rev 1.3", Board.PI),
        ("Raspberry Pi Zero 2 W Rev 1.0", Board.PI),
        ("Raspberry Pi 500 Rev 1.0", Board.PI5),
        ("Generic x86 PC", Board.OTHER),
        (None, Board.OTHER),
    ],
)
def test_board_from_model(model: str | None, board: Board) -> None:
    assert board_of(model) == board


def test_factory_choice(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\x00")
    assert detect_board([model]) is Board.PI5
    assert choose_factory_name(paths=[model]) is FactoryName.LGPIO
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\x00")
    assert choose_factory_name(paths=[model]) is FactoryName.RPIGPIO
    assert choose_factory_name(paths=[tmp_path / "absent"]) is FactoryName.MOCK
    assert choose_factory_name("mock", paths=[model]) is FactoryName.MOCK  # override wins
    with pytest.raises(ValueError, match="unknown pin factory"):
        choose_factory_name("wiringpi")
    assert isinstance(make_pin_factory(paths=[tmp_path / "absent"]), MockFactory)
