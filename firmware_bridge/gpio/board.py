"""Pick gpiozero's pin factory for the board we run on.

- Raspberry Pi 5, 500 and Compute Module 5: ``lgpio`` (their GPIO sits on the RP1 chip,
  which RPi.GPIO cannot drive).
- Older Pis: ``rpigpio`` (RPi.GPIO).
- Anything else (a laptop, CI, the simulator): gpiozero's ``MockFactory``.

The board is read from ``/proc/device-tree/model`` (or
``/sys/firmware/devicetree/base/model``), e.g. ``"Raspberry Pi 5 Model B Rev 1.0"``.
An explicit ``override`` ("lgpio", "rpigpio", "mock") wins over detection.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

MODEL_PATHS = (
    Path("/proc/device-tree/model"),
    Path("/sys/firmware/devicetree/base/model"),
)


class Board(StrEnum):
    PI5 = "pi5"
    PI = "pi"
    """A Raspberry Pi older than the 5."""
    OTHER = "other"


class FactoryName(StrEnum):
    LGPIO = "lgpio"
    RPIGPIO = "rpigpio"
    MOCK = "mock"


class GpioUnavailableError(RuntimeError):
    """The chosen pin library is not installed or cannot open the GPIO chip."""


def read_model(paths: Sequence[Path] = MODEL_PATHS) -> str | None:
    for path in paths:
        try:
            return path.read_bytes().rstrip(b"\x00\n").decode("ascii", "replace")
        except OSError:
            continue
    return None


def board_of(model: str | None) -> Board:
    if not model or "Raspberry Pi" not in model:
        return Board.OTHER
    # RP1-based boards: "Raspberry Pi 5 …", "Raspberry Pi 500 …", "… Compute Module 5 …".
    words = model.replace("Raspberry Pi", "").split()
    if words[:1] in (["5"], ["500"], ["500+"]) or words[:3] == ["Compute", "Module", "5"]:
        return Board.PI5
    return Board.PI


def detect_board(paths: Sequence[Path] = MODEL_PATHS) -> Board:
    return board_of(read_model(paths))


def factory_name_for(board: Board) -> FactoryName:
    return {
        Board.PI5: FactoryName.LGPIO,
        Board.PI: FactoryName.RPIGPIO,
        Board.OTHER: FactoryName.MOCK,
    }[board]


def choose_factory_name(
    override: str | None = None, paths: Sequence[Path] = MODEL_PATHS
) -> FactoryName:
    if override:
        try:
            return FactoryName(override.lower())
        except ValueError:
            known = ", ".join(f.value for f in FactoryName)
            raise ValueError(f"unknown pin factory {override!r} (choose {known})") from None
    return factory_name_for(detect_board(paths))


def make_pin_factory(
    override: str | None = None, paths: Sequence[Path] = MODEL_PATHS
) -> Any:  # a gpiozero Factory; gpiozero ships no type information
    name = choose_factory_name(override, paths)
    try:
        if name is FactoryName.MOCK:
            from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]

            return MockFactory()
        if name is FactoryName.LGPIO:
            from gpiozero.pins.lgpio import LGPIOFactory  # type: ignore[import-untyped]

            return LGPIOFactory()
        from gpiozero.pins.rpigpio import RPiGPIOFactory  # type: ignore[import-untyped]

        return RPiGPIOFactory()
    except ImportError as exc:
        raise GpioUnavailableError(
            f"pin factory {name}: {exc} (is the library installed?)"
        ) from exc
    except Exception as exc:  # gpiozero raises assorted errors when the chip cannot open
        raise GpioUnavailableError(f"pin factory {name}: {exc}") from exc
