"""The one notice of a hand that waits for staff: why, and what to do, as the store holds it.

A hand the table cannot explain (its walls changed under it, a reader silent too long:
``controller.table.service``) is held for staff. The hold is stored with the hand (an
alert row of kind ``waiting_for_staff``: why, in Chinese and English) before it is said,
so it is a screen of the store like the scores (``controller.table.screens``): the
``status`` topic carries it while the hand is in progress, said again at start-up and
taken back by the commit that ends the hand (a finish, a void), put back by an undo that
reopens it. A restart does not wait to find the hand unexplained again.

Its words: Chinese and English apart (a page shows one, by its language), the Chinese
line alone for the board's display; what staff do, in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Protocol

WAITING: Final = "waiting_for_staff"
"""The alert kind the hold is stored as, and the ``status`` topic's ``hand`` value."""

TITLE: Final = {"zh": "等待工作人员", "en": "Waiting for staff"}
ADVICE: Final = {
    "zh": "牌桌已不再跟踪本局：请工作人员在控制台手动结束本局（录入结果）或作废本局。"
    "在此之前的牌数、少牌等提醒都由此而来，不必逐条处理。",
    "en": "The table no longer follows this hand: staff finish it on the console (enter the "
    "result) or void it. The tile-count and missing-tile alerts until then come from this; "
    "nothing to do about each of them.",
}
DEALER: Final = {
    "zh": "等待工作人员：本局请在控制台手动结束或作废",
    "en": "Waiting for staff: finish or void this hand on the console",
}


class AlertRows(Protocol):
    """The store's alerts (``controller.store.EventStore``)."""

    def alerts_of(self, hand_id: str) -> list[Any]: ...


@dataclass(frozen=True, slots=True)
class StaffNotice:
    """A hand held for staff, and why (the cause, in Chinese and English)."""

    hand_id: str
    why_zh: str
    why_en: str

    @property
    def line(self) -> str:
        """One line, Chinese only: the board's display, and ``text`` on the topic."""
        return f"{self.why_zh}：请工作人员手动结束或作废本局"

    def status(self) -> dict[str, Any]:
        """What the ``status`` topic adds to ``{"state": "online"}`` while it stands."""
        return {
            "hand": WAITING,
            "hand_id": self.hand_id,
            "text": self.line,
            "title": dict(TITLE),
            "why": {"zh": self.why_zh, "en": self.why_en},
            "advice": dict(ADVICE),
        }

    def dealer(self, dealer: int | None) -> dict[str, Any]:
        """The ``dealer`` payload while it stands: the dealer card says the same."""
        return {
            "hand_id": self.hand_id,
            "dealer": dealer,
            "step": "wait",
            "dice": None,
            "waiting_for_staff": True,
            "text": dict(DEALER),
        }


def stored_notice(store: AlertRows, hand_id: str) -> StaffNotice | None:
    """The hand's hold as stored (message: why in Chinese; detail: in English)."""
    for row in store.alerts_of(hand_id):
        if row.kind == WAITING:
            return StaffNotice(hand_id, row.message, row.detail)
    return None
