"""The table service's loop: bridge events in, hands kept, the table's display kept current.

    TableBridge events ──> TableService ──> Tracker ──> HandKeeper ──> store + outbox
         (status, lift order)   │ starts hands                          └─> MQTT, live hub
    TableInputs ──> act() ──────┤ (the dice button; later staff acts on the live hand)
                                └─> board display (centre: hand, #seq, dice, instruction)
    tracker, service ──> AlertSink (gate, store + outbox, live hub, beep)

Everything is made before the service and passed in (``controller.runtime``): the alert
sink first, then the tracker that raises alerts into it, then the service.

The service itself decides only what no single hand decides: when new walls make a new
hand (a fresh build after a shuffle, never the walls of a hand already played), the lift
order, the table's display and the dealer's instructions, alerts, and when to stop.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import structlog

from controller.process import sd_notify
from controller.process.disk_space import DiskFloor, is_disk_full
from controller.process.gc_pauses import collect_and_freeze
from controller.store.owners import OwnerAccounts
from controller.table.alert_sink import AlertSink
from controller.table.alerts import Alert, AlertKind, PublicAlert
from controller.table.cashout import cutoff_due
from controller.table.dealer_guide import Roll, instruction, short_text
from controller.table.display import status_text
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet, number
from controller.table.roll_shown import RollShown
from controller.table.seating import Seating
from controller.table.staff_acts import handle as staff_handle
from controller.table.staff_requests import StaffItem
from controller.table.table_inputs import DicePress, StaffInput, TableInput, TableInputs
from controller.table.tags import Card, TagBook
from engine.round.commands import Audit
from engine.round.player_claims import stalled
from engine.round.state import Phase
from firmware_bridge.protocol.messages import SeatButton, TableState
from firmware_bridge.table import NoBoard
from firmware_bridge.table_events import (
    BOARD,
    BridgeEvent,
    ButtonPressed,
    DeviceState,
    DiceRolled,
    LiftOrder,
    ReaderBack,
    ReaderSilent,
    TableStatus,
)

log = structlog.get_logger(__name__)

CUTOFF_EVERY = 30.0  # seconds between looks at the owner's daily cut-off


def local_now() -> datetime:
    return datetime.now().astimezone()


DISK_FULL_TEXT = "存储已满 暂停 (disk full: play held)"


class HandTracker(Protocol):
    """What the service needs of the tracker (``controller.tracking.tracker.Tracker``,
    which reads the table's vocabulary: the table does not import it)."""

    on_card: Callable[[int | None, Card], None] | None
    held: bool

    @property
    def pending_roll(self) -> Roll | None: ...

    def observe(self, event: BridgeEvent, now: float) -> None: ...

    def press_dice(self, seat: int | None, now: float) -> None: ...

    def tick(self, now: float) -> None: ...

    def reset_table(self) -> None: ...


class Board(Protocol):
    """What the service needs of the bridge."""

    async def next_event(self) -> BridgeEvent: ...

    def show_text(self, target: int, text: str) -> int | None:
        """The text's number: it is shown once ``acknowledged()`` reaches it."""

    def acknowledged(self) -> int | None:
        """How many texts (and other messages) the board has acknowledged; None: unknown."""


class LinkLight(Protocol):
    """The panel's LED for the board's link (``firmware_bridge.gpio.TablePanel``)."""

    def set_link(self, up: bool) -> None: ...


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    hands: int | None = None
    """Stop once the session holds this many finished hands (None: run until stopped). A
    session resumed after a restart counts the hands played before it too."""
    lift_wait: float = 1.0
    """Seconds after walls-up to wait for the lift order before starting without one."""
    tick: float = 0.2
    """How often time-based checks run (alerts, claim timeouts, new hands)."""
    stuck_after: float = 2.0
    """Seconds a reader may stay silent (after the table reported it so) before the hand
    waits for staff (walls changed under a hand: at once)."""
    quiet_gc_after: float | None = 0.05
    """Seconds after a hand's settlement is shown (its messages out) to run the full GC pass
    (``controller.process.gc_pauses``) while the table shuffles; skipped if a new hand has begun by
    then (the next hand's end tries again). None: never."""
    claim_answer_time: float = 90.0
    """Seconds the paying seats have to answer a player's claim before staff are called."""
    readerless: bool = False
    """A table without readers: the first hand starts at once (no walls to wait for), the
    next ones when the dealer rolls; staff enter each result (a ``Finish`` command)."""


class TableService:
    def __init__(
        self,
        keeper: HandKeeper,
        board: Board,
        book: TagBook,
        outlet: Outlet,
        *,
        tracker: HandTracker,
        alerts: AlertSink,
        inputs: TableInputs | None = None,
        options: ServiceSettings | None = None,
        panel: LinkLight | None = None,
        clock: Callable[[], float] = time.monotonic,
        disk: DiskFloor | None = None,
        wall: Callable[[], datetime] = local_now,
    ) -> None:
        self.keeper = keeper
        self.board = board
        self.book = book
        self.outlet = outlet
        self.tracker = tracker
        self.alerts = alerts
        self.inputs = inputs or TableInputs()
        self.options = options or ServiceSettings()
        self.panel = panel
        self.clock = clock
        self.disk = disk
        self.held_for_disk = False
        self.done = asyncio.Event()
        self._table = TableState.IDLE
        self._walls_up_at: float | None = None
        self._lift: tuple[int, ...] | None = None
        self._fresh_build = False
        self._shown = ""
        self._instruction: dict[str, Any] | None = None
        self._scored: str | None = None
        self._quiet_gc_at: float | None = None
        self._walls_alerted: str | None = None
        # what the table cannot explain, and when the hand waits for staff for it:
        # key -> (due, why zh, why en)
        self._unexplained: dict[str, tuple[float, str, str]] = {}
        self._stuck: str | None = None  # the notice shown while a hand waits for staff
        self._roll_shown = RollShown()  # a dice press counts once until its roll is shown
        # Who sits where: cards read on a hand zone, staff on the console (between hands).
        self.seating = Seating(keeper)
        book.cards = self.seating.cards
        tracker.on_card = self.seating.card
        self.wall = wall
        self._cutoff_at: float | None = None  # when to look at the daily cut-off next

    # --- the loop ----------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        tick = self.options.tick
        next_tick = self.clock()
        self.seating.publish()
        try:  # what the store holds, on every screen, from the start
            self.keeper.show_screens()
        except Exception as err:  # (a full disk: said when play resumes)
            self._failed(err, "the screens at start-up")
        try:
            self._say_resumed()
        except Exception as err:  # (a full disk: held in memory, said when play resumes)
            self._failed(err, "the resumed hand's notice")
        for item in self.inputs.pending():  # put before the loop ran: taken as they came
            self._act_safely(item)
        self._after(self.clock())
        inputs = asyncio.create_task(self._serve_inputs())
        try:
            while not stop.is_set() and not self.done.is_set():
                due = next_tick if self._quiet_gc_at is None else min(next_tick, self._quiet_gc_at)
                wait = max(0.0, due - self.clock())
                event: BridgeEvent | None = None
                try:
                    async with asyncio.timeout(wait):
                        event = await self.board.next_event()
                except TimeoutError:
                    pass
                now = self.clock()
                try:
                    if event is not None:
                        self.handle(event, now)
                    if now >= next_tick:
                        next_tick = now + tick
                        self.tick(now)
                    self._after(now)
                    if self._quiet_gc_at is not None and now >= self._quiet_gc_at:
                        self._quiet_gc_at = None
                        if not self.keeper.playing:  # (a hand waiting for walls: shuffling)
                            collect_and_freeze()
                except Exception as err:
                    self._failed(err, event)
        finally:
            inputs.cancel()
            await asyncio.wait([inputs])

    def _failed(self, err: Exception, what: object) -> None:
        """E.g. the disk is full: say so, keep the table going. A full disk is said once
        as it fills (and once as space returns), not with a traceback for each of the
        readers' reports it refuses meanwhile (several a second)."""
        if is_disk_full(err):
            if self.held_for_disk:
                log.debug("refused for the full disk", what=repr(what))
            self._hold_for_disk(f"{type(err).__name__}: {err}")
            return
        log.exception("could not handle a table event", what=repr(what))
        self.alerts(Alert(PublicAlert(AlertKind.INTERNAL_ERROR), f"{type(err).__name__}: {err}"))

    async def _serve_inputs(self) -> None:
        while True:
            self._act_safely(await self.inputs.get())

    def _act_safely(self, item: TableInput) -> None:
        try:
            self.act(item, self.clock())
        except Exception as err:
            self._failed(err, item)

    def tick(self, now: float) -> None:
        """Time-based checks: the tracker's (timeouts, grace-timed alerts), then the alert
        summaries whose window ended, then the owner's daily cut-off."""
        self.tracker.tick(now)
        self.alerts.flush(now)
        self._check_stuck(now)
        if self._cutoff_at is None or now >= self._cutoff_at:
            self._cutoff_at = now + CUTOFF_EVERY
            self._check_cutoff()

    def _check_cutoff(self) -> None:
        """The owner's daily cut-off: the open session, started before the latest cut-off,
        closes once its hand in play is settled (closed by the owner who set the time)."""
        keeper = self.keeper
        state, session_id = keeper.state, keeper.session_id
        if session_id is None or state is None or keeper.session.hand_no == 0:
            return
        if state.settlement is None and not keeper.unplayed:
            return  # (after the hand in play)
        terms, by = OwnerAccounts(keeper.store).cashout_terms()
        if terms.cutoff is None:
            return
        wall = self.wall()
        if not cutoff_due(terms.cutoff, keeper.store.get_session(session_id).started_at, wall):
            return
        why = f"每日结算时间 {terms.cutoff} (the owner's daily cut-off)"
        audit = Audit(by or "owner", "owner", wall.isoformat(timespec="seconds"), why)
        keeper.close_session(audit, "cutoff", terms)

    def _say_resumed(self) -> None:
        """A table without readers started again in the middle of a hand (the hand found
        open in the store, past its dice): nothing will tell what was played meanwhile, so
        the hand waits for staff to enter its result, said at once as the one notice (a
        stored hold: ``_check_stuck`` then says it on the dealer card and the display)."""
        keeper, state = self.keeper, self.keeper.state
        if not self.options.readerless or not keeper.playing or keeper.waiting is not None:
            return
        if state is None or state.phase in (Phase.BREAK_DICE, Phase.SECOND_DICE):
            return  # (the console asks for the dice, as before the restart)
        n = state.started.hand_no
        keeper.hold(
            f"已恢复第{n}局，等待结果录入", f"hand {n} resumed after a restart: enter its result"
        )

    def _check_stuck(self, now: float) -> None:
        """A hand the table cannot explain waits for staff: its walls changed under it at
        once (no build of new walls turns back into the hand's), a silent reader after
        ``stuck_after`` seconds (it may come back at once). The hold is stored with the
        hand (``HandKeeper.hold``) and said by the status topic, the dealer card and the
        display (Chinese); the tracker applies nothing more to the hand. It waits until
        staff finish or void it: a reader back, or the walls explained, does not release
        it, because the readers' picture of what was played meanwhile may be wrong. A
        restart finds the hold in the store; a new hand is tracked as ever."""
        keeper = self.keeper
        if not keeper.playing or self._walls_alerted != keeper.hand_id:
            # the changed walls were the hand's: the next one, started on the walls up
            # as staff end it (before this check runs), is not held for them; a hand
            # waiting for its walls has nothing to explain
            self._unexplained.pop("walls", None)
        notice = keeper.waiting
        if notice is None and keeper.playing and keeper.hand_id is not None:
            due = [why for at, *why in self._unexplained.values() if now >= at]
            if due:
                zh, en = due[0]
                notice = keeper.hold(zh, en)
        hand_id, state = keeper.hand_id, keeper.state
        if notice is None and keeper.in_progress and hand_id and state is not None:
            # a player's claim disputed, or not answered in time (docs/play.md)
            why = stalled(state, self.wall(), self.options.claim_answer_time)
            if why is not None:
                notice = keeper.hold(*why)
        self.tracker.held = notice is not None
        stuck = None if notice is None else notice.line
        if stuck == self._stuck:
            return
        self._stuck = stuck
        if notice is None:
            self._shown = ""  # the hand's own text again
            self._show()
            return
        log.warning("hand waits for staff", why=notice.why_en, hand_id=notice.hand_id)
        self._instruction = guide = notice.dealer(keeper.state.dealer if keeper.state else None)
        self.outlet.to_live("dealer", guide)
        self._display(0, notice.line)

    def act(self, item: TableInput, now: float) -> None:
        """The one way an act of a person that is not a reader's or the board's report
        (``controller.table.table_inputs``) reaches the hand: on the table loop, between bridge
        events. What it becomes goes through the tracker or the ``HandKeeper``, so it is
        stored before it is published, as every move is."""
        if isinstance(item, DicePress):
            if not self._seen_before(None, self.board.acknowledged()):
                self._press_dice(now)
        elif isinstance(item, StaffInput):
            staff = item.item
            item.settle(lambda: self._staff_act(staff, now))
        self._after(now)

    def _staff_act(self, staff: StaffItem, now: float) -> dict[str, Any]:
        """An act from the web API: a seat, or an act on the hand (``staff_acts``)."""
        return staff_handle(self.keeper, staff, lambda: self._dice_rolled(now), self.seating.handle)

    def _press_dice(self, now: float) -> None:
        """The dice button: whoever is due rolls. On a table without readers, with the last
        hand settled, the dealer's roll starts the next hand (and is its break roll)."""
        if self.options.readerless and not self.keeper.in_progress and self._may_start():
            self.keeper.start_hand(None)
        self.tracker.press_dice(None, now)

    def _seen_before(self, seat: int | None, acked: int | None) -> bool:
        """A dice press sent before the latest roll was shown (``acked``: the messages the
        board had acknowledged by then) is the press that roll answered: it rolls nothing."""
        index = self._roll_shown.unseen(acked)
        if index is None:
            return False
        log.info(
            "dice press before its roll was shown: that roll answers it",
            seat=seat,
            roll=index,
        )
        return True

    def _dice_rolled(self, now: float) -> bool:
        """The console's dice button: as the panel's; whether a roll was due."""
        before = (self.keeper.hand_id, len(self.keeper.log))
        self._press_dice(now)
        moved = (self.keeper.hand_id, len(self.keeper.log)) != before
        return moved or self.tracker.pending_roll is not None

    def handle(self, event: BridgeEvent, now: float) -> None:
        if isinstance(event, TableStatus):
            self._status(event, now)
        elif isinstance(event, LiftOrder):
            self._lift_order(event)
        elif isinstance(event, DiceRolled):
            log.info("the board rolled its own dice (ignored: the Pi rolls)", values=event.values)
        elif (
            isinstance(event, ButtonPressed)
            and event.button is SeatButton.CONFIRM
            and self._seen_before(event.seat, event.acked)
        ):
            pass
        else:
            if isinstance(event, ReaderSilent):
                why = (f"{event.reader_id}号读卡器无响应", f"reader {event.reader_id} silent")
                due = now + self.options.stuck_after
                self._unexplained.setdefault(f"reader {event.reader_id}", (due, *why))
            elif isinstance(event, ReaderBack):
                self._unexplained.pop(f"reader {event.reader_id}", None)
            if isinstance(event, DeviceState) and event.device == BOARD and self.panel is not None:
                self.panel.set_link(event.state == "up")
            self.tracker.observe(event, now)

    def _status(self, event: TableStatus, now: float) -> None:
        state = event.state
        if state in (TableState.SHUFFLING, TableState.WALLS_RISING):
            if not self._fresh_build:
                self.tracker.reset_table()
            self._fresh_build, self._lift, self._walls_up_at = True, None, None
            self._open_hand()
        elif state is TableState.WALLS_UP:
            if self._walls_up_at is None:
                self._walls_up_at = now
        elif state is TableState.FAULT:
            faults = f"the table reports faults {list(event.faults)}"
            self.alerts(Alert(PublicAlert(AlertKind.TABLE_FAULT), faults))
        self._table = state

    def _lift_order(self, event: LiftOrder) -> None:
        tiles = self.book.tiles_of(event.uids)
        if tiles is None or len(set(tiles)) != len(tiles):
            self.alerts(
                Alert(PublicAlert(AlertKind.LIFT_ORDER), f"{len(event.uids)} tags, some not tiles")
            )
            tiles = None
        self._lift = tiles
        st = self.keeper.state
        hand_id = self.keeper.hand_id
        stale = st is not None and st.order is not None and tiles is not None and tiles != st.order
        if self.keeper.in_progress and stale and hand_id != self._walls_alerted:
            self._walls_alerted = hand_id
            self.alerts(Alert(PublicAlert(AlertKind.WALLS_CHANGED), f"hand {hand_id}"))
            self._unexplained["walls"] = (self.clock(), "牌墙已换", "the walls changed")
            self._check_stuck(self.clock())

    # --- after every event -------------------------------------------------------------------

    def _after(self, now: float) -> None:
        if self.held_for_disk:
            self._disk_room()
        self._maybe_start(now)
        if self._stuck is not None or self.keeper.waiting is not None:
            self._check_stuck(now)  # (a hand finished by staff, a new hand, resumed: at once)
        self._show()
        if self._enough() and not self.keeper.in_progress:
            self.done.set()

    def _enough(self) -> bool:
        limit = self.options.hands
        return limit is not None and self.keeper.session.hand_no >= limit

    def _may_start(self) -> bool:
        return not self.keeper.in_progress and not self._enough() and self._disk_room()

    def _open_hand(self) -> None:
        """A new build began: the next hand opens now, its dice committed before anything
        can tell its walls (a hand already waiting for walls keeps its commitment)."""
        if self._may_start():
            self.keeper.open_hand()

    def _maybe_start(self, now: float) -> None:
        keeper = self.keeper
        waiting = keeper.awaiting_walls  # opened at the build: counted by ``_enough`` already
        if (keeper.in_progress and not waiting) or (not waiting and self._enough()):
            return
        if self.options.readerless:
            # No walls to wait for: the first hand starts at once; after a hand the table
            # waits for the dealer's roll (``_press_dice``), so staff may still correct or
            # void the hand just settled, which stays the current hand until then.
            if keeper.state is None and self._disk_room():
                keeper.start_hand(None)
            return
        if self._table is not TableState.WALLS_UP:
            return
        if not self._disk_room():
            return
        lift = self._lift
        if lift is None and (
            self._walls_up_at is None or now - self._walls_up_at < self.options.lift_wait
        ):
            return
        # Never a second hand on the walls of one already played (a restart between hands
        # sees the old walls again): only a new build, or walls unlike the last hand's.
        new_walls = lift is not None and keeper.last_order is not None and lift != keeper.last_order
        if not (
            keeper.awaiting_walls or self._fresh_build or not keeper.last_finished or new_walls
        ):
            return
        # walls the table saw rise after the commitment, or (not opened: a start on standing
        # walls) walls it may know already
        keeper.start_hand(lift, walls_known=not keeper.awaiting_walls)
        self._fresh_build = False

    # --- a full disk: hold play, resume when there is room again ---------------------------

    def _disk_room(self) -> bool:
        disk = self.disk
        if disk is None:
            return True
        if disk.room():
            if self.held_for_disk:
                self.held_for_disk = False
                log.warning("disk space again: play resumes", free=disk.free())
                sd_notify.notify("STATUS=serving")
            return True
        self._hold_for_disk(f"{disk.free()} bytes free, under the floor of {disk.floor}")
        return False

    def _hold_for_disk(self, detail: str) -> None:
        if self.disk is not None:
            self.disk.refuse()
        if self.held_for_disk:
            return
        self.held_for_disk = True
        log.error("disk full: play held until space is freed", detail=detail)
        sd_notify.notify("STATUS=disk full: play held until space is freed")
        self.alerts(Alert(PublicAlert(AlertKind.DISK_FULL), detail))

    def _roll(self) -> tuple[Roll | None, Roll | None]:
        st = self.keeper.state
        assert st is not None
        last = None
        if st.dice:
            d = st.dice[-1]
            last = Roll(d.purpose, d.seat, d.a, d.b, len(st.dice) - 1)
        return last, self.tracker.pending_roll

    def _show(self) -> None:
        if self._stuck is not None and self.keeper.in_progress:
            return  # the notice stays up until the hand is over or explained
        keeper = self.keeper
        st = keeper.state
        hand_id = keeper.hand_id
        if self.held_for_disk:
            self._display(0, DISK_FULL_TEXT)
            return
        if st is None or hand_id is None:
            self._display(0, "等待开局 (waiting for the first walls)")
            return
        last, pending = self._roll()
        guide = instruction(st, hand_id, last, pending)
        if guide != self._instruction:
            self._instruction = guide
            self.outlet.to_live("dealer", guide)
        shown = pending or last
        roll = None if shown is None else (shown.index, shown.a, shown.b)
        nets = None
        if st.settlement is not None:
            nets = [f"{number(n):+}" for n in st.settlement.net]
            self._show_scores(hand_id, [number(n) for n in st.settlement.net])
        text = status_text(st, len(keeper.log), roll, short_text(guide), nets, self.seating.names)
        sent = self._display(0, text)
        if roll is not None:  # (a text already shown carried this roll before)
            self._roll_shown.displayed(hand_id, roll[0], sent)

    def _show_scores(self, hand_id: str, nets: list[int | float]) -> None:
        if self._scored == hand_id:
            return
        self._scored = hand_id
        if self.options.quiet_gc_after is not None:
            self._quiet_gc_at = self.clock() + self.options.quiet_gc_after
        st = self.keeper.state
        assert st is not None
        totals = [number(t) for t in self.keeper.session.totals]
        for seat in range(4):
            text = f"第{st.started.hand_no}局 {nets[seat]:+} 合计{totals[seat]}"
            self._display(seat + 1, text, remember=False)

    def _display(self, target: int, text: str, *, remember: bool = True) -> int | None:
        """The text's number on the board's link; None: not sent (shown already, no
        board, refused)."""
        if remember:
            if text == self._shown:
                return None
            self._shown = text
        try:
            return self.board.show_text(target, text)
        except NoBoard:
            return None  # a table without readers or a board: the displays are the web pages
        except Exception as err:  # no board, a full queue: the display waits, play goes on
            log.warning("display not updated", target=target, error=str(err))
            return None
