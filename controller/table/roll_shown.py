"""When a dice press is one already answered: a press counts once until its roll is shown.

A roll is shown once the board has acknowledged the first centre-display text that
carries it: the board puts a text up as it receives it, and every frame it sends after
acknowledges it (``Link.acknowledged``). A dice press the board sent before that (the
same press repeated, or a second press while the service was still answering the first:
nobody at the table had seen the roll yet) rolls nothing new: the roll already made is
its answer, and stays on the display. A press after the roll was shown rolls as ever.
Where the board cannot tell (no board, its link not up, the text refused), every press
rolls as ever. docs/service.md, "Dice".
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class RollShown:
    """The hand's latest roll on the centre display, and the number of the first text
    that carried it (None: nothing the board will acknowledge)."""

    hand_id: str | None = None
    index: int = -1
    text: int | None = None

    def displayed(self, hand_id: str, index: int, text: int | None) -> None:
        """A text carrying roll ``index`` of ``hand_id`` went to the display."""
        if (hand_id, index) != (self.hand_id, self.index):
            self.hand_id, self.index, self.text = hand_id, index, text

    def unseen(self, acked: int | None) -> int | None:
        """The index of the roll a press had not seen when it was sent, with ``acked`` of
        the service's messages acknowledged by then (None: it had seen the latest roll,
        or that cannot be known)."""
        if self.text is None or acked is None or acked >= self.text:
            return None
        return self.index
