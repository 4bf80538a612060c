"""The seat buttons waiting to apply, and the action each one asks for.

Buttons say what tiles cannot: 胡 (DeclareWin), 过 (Pass), and which claim a seat means. A
button pressed before the readers saw its tile is kept ``ttl`` seconds; a claim button
waits for its tiles where a reader covers the seat's melds (``moves`` lays the claim).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import structlog

from controller.tracking.melds import blind_claim
from controller.tracking.picture import TablePicture
from controller.tracking.window import in_window, unanswered
from engine.round.actions import Action, DeclareWin, Pass, Rejection
from engine.round.events import Event
from engine.round.state import Phase, RoundState
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.rfid.zones import Zone, ZoneKind

log = structlog.get_logger("controller.tracking.tracker")

CLAIM_BUTTONS = (SeatButton.CHOW, SeatButton.PUNG, SeatButton.KONG)
_WAIT_CODES = ("wrong_phase", "not_your_turn")  # a button early: keep it a moment

Submit = Callable[[Action], "list[Event] | Rejection"]


@dataclass(slots=True)
class QueuedButton:
    seat: int
    button: SeatButton
    t: float


class ButtonQueue:
    def __init__(self, picture: TablePicture, ttl: float) -> None:
        self.picture = picture
        self.ttl = ttl
        self._queue: list[QueuedButton] = []

    def push(self, seat: int, button: SeatButton, now: float) -> None:
        self._queue.append(QueuedButton(seat, button, now))

    def clear(self) -> None:
        self._queue.clear()

    def claim_of(self, seat: int) -> SeatButton | None:
        """The claim the seat announced by button, if any."""
        return next(
            (b.button for b in self._queue if b.seat == seat and b.button in CLAIM_BUTTONS), None
        )

    def drop_claims(self, seat: int | None = None) -> None:
        """Claims announced for a window that closed (``seat``: only that seat's, taken)."""
        self._queue = [
            b
            for b in self._queue
            if not (b.button in CLAIM_BUTTONS and (seat is None or b.seat == seat))
        ]

    def apply(self, st: RoundState, now: float, submit: Submit) -> list[Event] | None:
        """Submit the first button that applies now; its events, or None if none did."""
        for b in list(self._queue):
            if now - b.t > self.ttl:
                self._queue.remove(b)
                log.info("button dropped", seat=b.seat, button=b.button.name, phase=st.phase.value)
                continue
            action = self._action(st, b)
            if action is None:
                continue
            result = submit(action)
            if isinstance(result, Rejection):
                if result.code not in _WAIT_CODES:
                    self._queue.remove(b)
                    log.info("button refused", seat=b.seat, button=b.button.name, why=str(result))
                continue
            self._queue.remove(b)
            return result
        return None

    def _action(self, st: RoundState, b: QueuedButton) -> Action | None:
        phase, seat = st.phase, b.seat
        answering = in_window(st) and seat != st.turn and seat not in st.responses
        if b.button is SeatButton.WIN:
            if phase is Phase.TURN and seat == st.turn:
                return DeclareWin(seat)
            return DeclareWin(seat) if answering else None
        if b.button is SeatButton.PASS:
            if not answering:
                return None
            others = [s for s in unanswered(st) if s != seat]
            if any(self.claim_of(s) is not None for s in others):
                return None  # a claim announced by button waits for its tiles: keep it open
            return Pass(seat)
        if b.button in CLAIM_BUTTONS and phase is Phase.TURN and seat == st.turn:
            self._queue.remove(b)  # a kong on one's own turn: the tiles say which
            return None
        if b.button in CLAIM_BUTTONS and answering and phase is Phase.CLAIM:
            if Zone(ZoneKind.MELDS, seat) in self.picture.observed:
                return None  # the tiles will say which (see moves.Moves.claim)
            return blind_claim(st, seat, b.button)
        return None
