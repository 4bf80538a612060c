"""Which pins the table's panel uses. BCM numbers (GPIO17, not header pin 11)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GpioConfig:
    dice_button: int = 17
    """Dealer's dice button, to ground (internal pull-up)."""
    link_led: int = 27
    """Lit while the link to the table board is up."""
    fault_led: int = 22
    buzzer: int = 18
    button_pull_up: bool = True
    bounce_time: float = 0.05
    """Seconds; passed to gpiozero and also enforced in software (see panel.py)."""
    buzzer_active_high: bool = True

    def __post_init__(self) -> None:
        pins = (self.dice_button, self.link_led, self.fault_led, self.buzzer)
        if len(set(pins)) != len(pins):
            raise ValueError(f"GPIO pins must be distinct, got {pins}")
        if any(not 0 <= p <= 27 for p in pins):
            raise ValueError(f"GPIO pins are BCM 0–27, got {pins}")
        if self.bounce_time < 0:
            raise ValueError("bounce_time must not be negative")
