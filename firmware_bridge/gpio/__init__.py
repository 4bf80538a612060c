"""GPIO: the dealer's dice button, status LEDs and buzzer through gpiozero.

The pin factory follows the board (lgpio on a Pi 5, RPi.GPIO on older Pis, the mock
factory elsewhere); see :mod:`firmware_bridge.gpio.board`.

The panel (and gpiozero with it) is imported on first use of ``TablePanel``: a table with
GPIO off reads its ``GpioConfig`` without paying for gpiozero.
"""

from typing import TYPE_CHECKING, Any

from firmware_bridge.gpio.board import (
    Board,
    FactoryName,
    GpioUnavailableError,
    choose_factory_name,
    detect_board,
    make_pin_factory,
)
from firmware_bridge.gpio.config import GpioConfig

if TYPE_CHECKING:
    from firmware_bridge.gpio.panel import TablePanel

__all__ = [
    "Board",
    "FactoryName",
    "GpioConfig",
    "GpioUnavailableError",
    "TablePanel",
    "choose_factory_name",
    "detect_board",
    "make_pin_factory",
]


def __getattr__(name: str) -> Any:
    if name == "TablePanel":
        from firmware_bridge.gpio.panel import TablePanel

        return TablePanel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
