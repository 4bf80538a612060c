"""GPIO: the dealer's dice button, status LEDs and buzzer through gpiozero.

The pin factory follows the board (lgpio on a Pi 5, RPi.GPIO on older Pis, the mock
factory elsewhere); see :mod:`firmware_bridge.gpio.board`.
"""

from firmware_bridge.gpio.board import (
    Board,
    FactoryName,
    GpioUnavailableError,
    choose_factory_name,
    detect_board,
    make_pin_factory,
)
from firmware_bridge.gpio.config import GpioConfig
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
