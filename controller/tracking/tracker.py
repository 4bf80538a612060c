"""From what the readers and buttons report to engine actions: the table tracker.

The tracker keeps two pictures of the table: where each tile *is* (the latest zone a
reader saw it enter, from TagIn/TagOut), and where the engine *says* it is (the folded
hand). Whenever they differ it looks for the one legal action that explains the
difference in the hand's current phase, and executes it:

    DEAL      every hand holds the tiles the deal gives it          -> Deal
    FLIP      the 财神 (or, without a lift order, the 精) on the spot -> FlipCaishen / RollDice
    TURN      a tile of the seat's hand lies in its discards         -> Discard
              (or in another seat's melds: claimed before it was read)
              four of a kind (or a pung's fourth) in its melds       -> Kong
    DRAW      the wall's next tile is in the seat's hand             -> Draw
              (or already in its discards or in melds: moved on before it was read)
    CLAIM     the discard and two or three of a seat's tiles in its melds
                                                      -> Chow / Pung / Kong, the others pass
              the next seat drew: everybody who said nothing passed  -> Pass ...
    ROB       the konger drew the replacement                        -> Pass ...

Buttons add what tiles cannot say: 胡 (DeclareWin), 过 (Pass), and the dice (the seat
due to roll presses confirm, or the dealer's GPIO button). A claim button waits for its
tiles. Because moves are found from the difference and not from the order of reports,
the same code resumes a hand after a power cut: the log gives the engine's picture, the
readers' first scans the table's.

Nothing here raises on bad input. An observation no rule explains waits; if it is still
unexplained after ``grace`` seconds it becomes an alert (a tile in two zones, a tile where
it should not be or missing, a seat with the wrong count: 相公). Unknown tags, fifth
copies, 诈胡 and silent readers are alerted at once. While the hand waits for staff
(``held``) nothing more is applied to it and its discrepancies are not alerted
(``controller.tracking.problems.HAND_KINDS``). Sans-IO: time comes in as ``now``.

The parts live in ``controller.tracking``: the table's picture, the button queue, the
moves, the alerts. This class feeds them the reports and runs one reconciling step at a
time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Protocol

import structlog

from controller.config import TrackerSettings
from controller.table.alerts import Alert, AlertKind, PublicAlert
from controller.table.dealer_guide import Roll, due_roll
from controller.table.dice import DiceRoller
from controller.table.tags import BadTag, Card, TagBook
from controller.tracking.buttons import ButtonQueue
from controller.tracking.moves import Moves
from controller.tracking.picture import JING_ZONE, TablePicture
from controller.tracking.problems import QUIET_PHASES, TrackerAlerts
from controller.tracking.window import in_window
from engine.round.actions import Action, Rejection, RollDice
from engine.round.events import Event
from engine.round.state import Phase, RoundState
from firmware_bridge.protocol.messages import SeatButton
from firmware_bridge.rfid.inventory import TagIn, TagOut
from firmware_bridge.rfid.zones import Zone, ZoneKind, ZoneMap
from firmware_bridge.table_events import (
    BOARD,
    BridgeEvent,
    ButtonPressed,
    DeviceState,
    ReaderAlert,
    ReaderBack,
    ReaderSilent,
)

__all__ = ["Alert", "HandPort", "Tracker"]

log = structlog.get_logger(__name__)


class HandPort(Protocol):
    """The hand in progress: its folded state, and the way actions become stored events."""

    @property
    def state(self) -> RoundState | None: ...

    def execute(self, command: Action) -> list[Event] | Rejection: ...

    def batch(self) -> contextlib.AbstractContextManager[None]:
        """Submits inside are stored together when it ends."""
        ...


class Tracker:
    def __init__(
        self,
        port: HandPort,
        book: TagBook,
        zones: ZoneMap,
        *,
        roller: DiceRoller,
        alert: Callable[[Alert], None],
        settings: TrackerSettings | None = None,
    ) -> None:
        self.port = port
        self.book = book
        self.roller = roller
        self.settings = settings or TrackerSettings()
        self.picture = TablePicture(book, zones)
        self.alerts = TrackerAlerts(alert, self.settings.grace)
        self.buttons = ButtonQueue(self.picture, self.settings.button_ttl)
        self.moves = Moves(
            self.picture,
            self.buttons,
            current=lambda: self.port.state,
            submit=self._submit,
            meld_settle=self.settings.meld_settle,
        )
        self._window: tuple[object, ...] | None = None
        self._window_since = 0.0
        self._board_down = False
        self.on_card: Callable[[int | None, Card], None] | None = None
        """A member's card read on a seat's hand zone (``controller.table.seating``)."""

    @property
    def held(self) -> bool:
        """The hand waits for staff (``TableService``: unexplained too long): the picture
        is still kept, but no move, button, timeout or roll is applied to the hand (what
        the readers saw since may be wrong, staff decide), and its discrepancies are not
        alerted (``TrackerAlerts.held``). Released (staff ended it): the next hand starts
        with no alert memory of this one."""
        return self.alerts.held

    @held.setter
    def held(self, held: bool) -> None:
        self.alerts.held = held

    @property
    def observed(self) -> frozenset[Zone]:
        return self.picture.observed

    @property
    def pending_roll(self) -> Roll | None:
        return self.moves.pending_roll

    # --- what the table shows -------------------------------------------------------------

    def reset_table(self) -> None:
        """The tiles went back into the machine (a new wall): forget the old hand's buttons,
        rolls and alerts. Where tags lie the bridge has already said: every tag out when the
        board started the build (``TableBridge._tiles_in_machine``)."""
        self.alerts.reset()
        self.buttons.clear()
        self.moves.pending_roll = None
        self._window = None

    def zone_of(self, tile: int) -> Zone | None:
        return self.picture.zone_of(tile)

    def tiles_in(self, zone: Zone) -> list[int]:
        """Tiles whose latest zone is ``zone``, in the order they arrived."""
        return self.picture.tiles_in(zone)

    def expected_zones(self, st: RoundState) -> dict[int, Zone | None]:
        """Where the engine puts each tile it knows out of the wall (None: unread zone)."""
        return self.picture.expected_zones(st)

    # --- input ------------------------------------------------------------------------------

    def observe(self, event: BridgeEvent, now: float) -> None:
        if isinstance(event, TagIn):
            bad = self.picture.tag_in(event.zone, event.uid, now)
            if isinstance(bad, Card):
                if event.zone.kind is ZoneKind.HAND and self.on_card is not None:
                    self.on_card(event.zone.seat, bad)  # (never a tile, never an alert)
                return
            if bad is not None:
                self._bad_tag(bad, event.zone)
        elif isinstance(event, TagOut):
            self.picture.tag_out(event.zone, event.uid)
        elif isinstance(event, ButtonPressed):
            if event.button is SeatButton.CONFIRM:
                self.press_dice(event.seat, now)
                return
            self.buttons.push(event.seat, event.button, now)
        elif isinstance(event, ReaderSilent):
            public = PublicAlert(
                AlertKind.READER_SILENT, zones=(event.zone,), reader=event.reader_id
            )
            self.alerts.now(Alert(public, f"reader {event.reader_id} ({event.zone}) is silent"))
            self.picture.reader_silent(event.reader_id, event.zone)
        elif isinstance(event, ReaderBack):
            self.picture.reader_back(event.reader_id, event.zone)
            log.info("reader back", reader=event.reader_id, zone=str(event.zone))
        elif isinstance(event, ReaderAlert):
            public = PublicAlert(
                AlertKind.READER_FAULT,
                reader=event.antenna,
                device=event.reader,
                problem=event.code,
            )
            self.alerts.now(Alert(public, event.message))  # the message may name a tag
            return
        elif isinstance(event, DeviceState) and event.device == BOARD:
            down = event.state in ("disconnected", "failed")
            if down and not self._board_down:
                self.alerts.now(
                    Alert(PublicAlert(AlertKind.BOARD_SILENT), f"the table board is {event.state}")
                )
            self._board_down = down
            return
        else:
            return
        self.reconcile(now)

    def _bad_tag(self, bad: BadTag, zone: Zone) -> None:
        public = PublicAlert(AlertKind(bad.problem.value), zones=(zone,))
        self.alerts.once(
            ("tag", bad.uid), Alert(public, f"tag {bad.uid.hex()} in {zone}: {bad.detail}")
        )

    def press_dice(self, seat: int | None, now: float) -> None:
        """The dice button (``seat`` None: the panel's GPIO button, for whoever is due)."""
        st = self.port.state
        if self.held:
            log.info("dice button ignored: the hand waits for staff", seat=seat)
            return
        due = None if st is None else due_roll(st)
        if st is None or due is None or self.pending_roll is not None:
            log.info("dice button ignored: no roll is due", seat=seat)
            return
        purpose, roller = due
        if seat is not None and seat != roller:
            log.info("dice button ignored: another seat rolls", seat=seat, roller=roller)
            return
        index = len(st.dice)
        a, b = self.roller.roll(st.dice_commit, index, purpose=purpose, seat=roller)
        roll = Roll(purpose, roller, a, b, index)
        if purpose in ("jing", "xia_jing") and st.order is None and JING_ZONE in self.observed:
            # Without a lift order the turned-up tile is known only once it lies on the spot.
            self.moves.pending_roll = roll
        else:
            self._submit(RollDice(purpose, roller, a, b), now)
        self.reconcile(now)

    # --- reconciling ------------------------------------------------------------------------

    def reconcile(self, now: float) -> None:
        """Apply every action the table's picture explains, one at a time (stored as one
        batch: what one report explains is durable, and published, together). Nothing
        while the hand is held for staff."""
        if self.held:
            return
        with self.port.batch():
            for _ in range(200):  # a hand has fewer actions than this between two reports
                if not self._step(now):
                    return

    def _step(self, now: float) -> bool:
        st = self.port.state
        if st is None or st.phase in QUIET_PHASES:
            return False
        window = in_window(st)
        moved = self._try_buttons(st, now) or self.moves.step(st, now)
        if moved and window and not in_window(self.port.state):
            self.buttons.drop_claims()  # the window closed: claims announced for it are spent
        return moved

    def _try_buttons(self, st: RoundState, now: float) -> bool:
        events = self.buttons.apply(st, now, self.port.execute)
        if events is None:
            return False
        self.alerts.win_rejections(events)
        return True

    def _submit(self, action: Action, now: float) -> bool:
        result = self.port.execute(action)
        if isinstance(result, Rejection):
            seat = getattr(action, "seat", None)
            public = PublicAlert(AlertKind.REFUSED, seat)
            self.alerts.once(
                ("refused", repr(action)), Alert(public, f"{action!r}: {result.reason}")
            )
            return False
        self.alerts.win_rejections(result)
        return True

    # --- time ----------------------------------------------------------------------------------

    def tick(self, now: float) -> None:
        """Claim-window timeouts, then alerts for what stayed unexplained too long."""
        st = self.port.state
        if st is not None and in_window(st) and not self.held:
            self._window_timeout(st, now)
        self.reconcile(now)
        self.alerts.check(self.port.state, self.picture, now)

    def _window_timeout(self, st: RoundState, now: float) -> None:
        key = (st.started.hand_no, st.discards_total, st.phase, st.last_tile, len(st.wins))
        if key != self._window:
            self._window, self._window_since = key, now
            return
        timeout = self.settings.claim_timeout
        if timeout is None or now - self._window_since < timeout:
            return
        won = any(r is not None and r.claim == "win" for r in st.responses.values())
        last = st.phase is Phase.CLAIM and st.wall is not None and st.wall.is_exhausted
        if won or last:
            log.info("claim window timed out: the silent seats pass", phase=st.phase.value)
            self.moves.pass_all(st, now)
