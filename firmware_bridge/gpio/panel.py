"""The table's small panel: the dealer's dice button, link and fault LEDs, a buzzer."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any, Self

from gpiozero import LED, Button, Buzzer  # type: ignore[import-untyped]

from firmware_bridge.gpio.board import make_pin_factory
from firmware_bridge.gpio.config import GpioConfig

DiceCallback = Callable[[float], None]


class TablePanel:
    """Owns the panel's gpiozero devices.

    Dice presses are debounced twice: gpiozero's ``bounce_time`` (done by lgpio on the Pi 5)
    and a software quiet period — a press counts only if no edge, press or release, came
    within ``bounce_time`` before it. The second guard is there because the mock pins do no
    debouncing at all and RPi.GPIO's is unreliable on release bounce.

    Press callbacks run in gpiozero's thread; use :meth:`dice_queue` from asyncio code.
    """

    def __init__(
        self,
        config: GpioConfig | None = None,
        pin_factory: Any = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config or GpioConfig()
        self.pin_factory = pin_factory if pin_factory is not None else make_pin_factory()
        self._clock = clock
        self._lock = threading.Lock()
        self._listeners: list[DiceCallback] = []
        self._last_edge: float | None = None
        self.presses = 0
        self.bounces_ignored = 0
        self._fault_on = False
        cfg = self.config
        factory = self.pin_factory
        self._devices: list[Any] = []
        self._button = self._own(
            Button(
                cfg.dice_button,
                pull_up=cfg.button_pull_up,
                bounce_time=cfg.bounce_time or None,
                pin_factory=factory,
            )
        )
        self._link = self._own(LED(cfg.link_led, pin_factory=factory))
        self._fault = self._own(LED(cfg.fault_led, pin_factory=factory))
        self._buzzer = self._own(
            Buzzer(cfg.buzzer, active_high=cfg.buzzer_active_high, pin_factory=factory)
        )
        self._button.when_pressed = self._pressed
        self._button.when_released = self._released

    def _own(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    # --- dice button ----------------------------------------------------------------
    def on_dice(self, callback: DiceCallback) -> Callable[[], None]:
        """Call ``callback(t)`` on every accepted press; returns a function that unsubscribes."""
        with self._lock:
            self._listeners.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return unsubscribe

    def dice_queue(
        self, loop: asyncio.AbstractEventLoop | None = None, maxsize: int = 16
    ) -> asyncio.Queue[float]:
        """An asyncio queue of press times, fed thread-safely. Call from the loop's thread
        (or pass ``loop``). A flood of presses beyond ``maxsize`` is dropped, never blocks."""
        target = loop or asyncio.get_running_loop()
        queue: asyncio.Queue[float] = asyncio.Queue(maxsize)

        def put(t: float) -> None:
            if not queue.full():
                queue.put_nowait(t)

        def from_gpio_thread(t: float) -> None:
            target.call_soon_threadsafe(put, t)

        self.on_dice(from_gpio_thread)
        return queue

    @property
    def dice_pressed(self) -> bool:
        return bool(self._button.is_pressed)

    def _edge(self) -> tuple[float, bool]:
        """Record an edge; True if the line had been quiet for the bounce time before it."""
        now = self._clock()
        with self._lock:
            last, self._last_edge = self._last_edge, now
        quiet = last is None or now - last >= self.config.bounce_time
        return now, quiet

    def _pressed(self) -> None:
        now, quiet = self._edge()
        if not quiet:
            self.bounces_ignored += 1
            return
        self.presses += 1
        with self._lock:
            listeners = list(self._listeners)
        for callback in listeners:
            callback(now)

    def _released(self) -> None:
        self._edge()

    # --- LEDs and buzzer ------------------------------------------------------------
    def set_link(self, up: bool) -> None:
        self._link.value = bool(up)

    @property
    def link_up(self) -> bool:
        return bool(self._link.is_lit)

    def set_fault(self, fault: bool, *, blink: bool = False) -> None:
        self._fault_on = bool(fault)
        if fault and blink:
            self._fault.blink(on_time=0.25, off_time=0.25, background=True)
        elif fault:
            self._fault.on()
        else:
            self._fault.off()

    @property
    def fault(self) -> bool:
        """True while the fault LED is on or blinking."""
        return self._fault_on

    def buzz(self, on: bool) -> None:
        if on:
            self._buzzer.on()
        else:
            self._buzzer.off()

    @property
    def buzzing(self) -> bool:
        return bool(self._buzzer.is_active)

    def beep(
        self, on_time: float = 0.1, off_time: float = 0.1, n: int = 1, *, wait: bool = False
    ) -> None:
        """``n`` short beeps, in the background unless ``wait``."""
        self._buzzer.beep(on_time=on_time, off_time=off_time, n=n, background=not wait)

    # --- lifetime -------------------------------------------------------------------
    def close(self) -> None:
        for device in reversed(self._devices):
            device.close()
        self._devices.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
