"""The hand in progress, kept in the store: the tracker's ``HandPort``. Its session is
``self.sessions`` (``controller.table.sessions``).

``execute(command)``, for a player's move and a person's act alike: the engine checks it
(``apply``); the events, every message they cause, the hand's row and the answer kept
for the request's key are stored in one transaction (event log + outbox), and only then
folded, woken for MQTT and shown on the live hub. A batch that ends the hand carries the
settlement and the new scores too; the hand is then closed in the store and its log sent
for the hub.

``resume()`` after a restart: the open session carried on (``Sessions.carry_on``), the open
hand folded from its log (closing it if its log already holds the settlement); between
hands, the last finished hand as it ended (what the display showed).
"""

from __future__ import annotations

import contextlib
import copy
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import structlog

from controller.process.wall_clock import clock_synced
from controller.store import EventStore, HandRecord, HandSettled, OutboxMessage
from controller.store.members import hand_seat_acts
from controller.store.owners import CashoutTerms
from controller.store.request_keys import KeptAnswer, RequestKey
from controller.table.cashout import public_cashout
from controller.table.dice import DiceRoller
from controller.table.handlog import handlog_of
from controller.table.house_choice import HouseChoice, RulesInForce
from controller.table.publication import Message, Outlet, event_messages, number
from controller.table.screens import TableView, settlement_payload
from controller.table.sessions import Sessions, log_of
from controller.table.staff_notice import WAITING, StaffNotice, stored_notice
from controller.table.unit_of_work import UnitOfWork
from engine.errors import EngineError
from engine.round.actions import Rejection, Shuffle
from engine.round.commands import STAFF_COMMANDS, Audit, CloseSession, Command, StaffInputError
from engine.round.events import (
    Chowed,
    ClaimDeclared,
    ClaimsResolved,
    DiceCommitted,
    DiceRolled,
    DiceSeedRevealed,
    Discarded,
    Drew,
    EnteredResult,
    Event,
    HandStarted,
    Konged,
    Passed,
    Punged,
    ReplacementDrawn,
    SessionClosed,
    Settled,
    Shuffled,
    settlement_from_dict,
)
from engine.round.fold import advance, fold
from engine.round.rules import apply
from engine.round.staff import extras_net, hand_net
from engine.round.state import Phase, RoundState
from engine.session import Session
from engine.settlement import Settlement
from engine.settlement.ledger import Amount, plain

log = structlog.get_logger(__name__)
T = TypeVar("T")

# Events the table shows again after a power cut: tiles that moved lie where they went, and
# the readers see them there; the tracker takes them as moves made while the service was
# down. A batch of only these is published without waiting for its fsync (an SD card's
# tens of ms); the store syncs it within ``store.sync_delay``. Anything else (dice, the
# walls' order, the 精, a win and its settlement) cannot be seen again, so it is synced
# before it is published (docs/service.md, "Durability").
# A hand with only these has not been played: closing the session aborts it.
UNPLAYED = (HandStarted, DiceCommitted, Shuffled, DiceRolled)
WITNESSED = (
    Drew,
    ReplacementDrawn,
    Discarded,
    ClaimDeclared,
    Passed,
    ClaimsResolved,
    Chowed,
    Punged,
    Konged,
)


def hand_result(state: RoundState) -> tuple[str, int | None, int | None]:
    """(result, winner, discarder) for the store's filters: a voided hand is ``void``."""
    if state.voided:
        return "void", None, None
    act = state.staff_settle
    if isinstance(act, EnteredResult):
        if not act.winners:
            return "draw", None, None
        seat, frm = act.winners[0]["seat"], act.winners[0]["from"]
        if frm in ("self", "kong_replacement"):
            return "self_draw", seat, None
        robbed = str(frm).removeprefix("rob_kong:")
        return "win", seat, int(robbed) if str(robbed).isdigit() else None
    if not state.wins:
        return "draw", None, None
    first = state.wins[0]
    result = "self_draw" if first.source in ("self", "kong_replacement") else "win"
    return result, first.seat, first.discarder


REOPEN = "correct or void it"
Replier = Callable[[list[Event], str, int, RoundState], dict[str, Any]]
"""The answer to a request: from the events its command made, the hand's id, the
number of the hand's events and the hand's state once they are stored (what a page saw
after it)."""


@dataclass(slots=True)
class Reply:
    """How the sender of a command is answered (``make``) and, if it came with an
    ``Idempotency-Key``, the key its answer is kept under, in the transaction that stores
    the act: a crash stores both or neither. ``answer``: the answer, once made."""

    make: Replier
    key: RequestKey | None = None
    answer: dict[str, Any] | None = None

    def kept(
        self, events: list[Event], hand_id: str, seen: int, after: RoundState
    ) -> KeptAnswer | None:
        self.answer = self.make(events, hand_id, seen, after)
        return None if self.key is None else KeptAnswer(self.key, self.answer)


class HandKeeper:
    def __init__(
        self,
        store: EventStore,
        outlet: Outlet,
        *,
        parlour: str,
        table: str,
        ruleset: str,
        options: dict[str, Any] | None = None,
        roller: DiceRoller | None = None,
    ) -> None:
        self.store = store
        self.roller = roller or DiceRoller()
        """Draws each hand's dice seed (``controller.table.dice``)."""
        self.outlet = outlet
        self.work = UnitOfWork(outlet)
        """Every write with its outbox, then its publication (``controller.table.unit_of_work``)."""
        self.parlour = parlour
        self.table = table
        self.sessions = Sessions(
            store, parlour=parlour, table=table, ruleset=ruleset, options=options
        )
        """The session the hands are played in (``controller.table.sessions``)."""
        self.hand_id: str | None = None
        self.state: RoundState | None = None
        self.log: list[Event] = []
        self.last_order: tuple[int, ...] | None = None
        """The wall order of the latest hand (to tell its walls from a new build)."""
        self.played = 0
        """Hands this keeper has seen to their end."""
        self._started_at: float | None = None  # time.monotonic() at this hand's start
        self.last_finished: bool = False
        """Whether any hand was played before (a fresh table may start at once)."""
        self._batch: list[Event] | None = None
        self._awaiting: tuple[Reply, type[Event]] | None = None  # (``answering``)
        self._last_settlement: dict[str, Any] | None = None  # the latest settled hand's
        self._cashout: dict[str, Any] | None = None  # the public cash-out shown ({}: none)
        self.notice: StaffNotice | None = None
        """The latest hand held for staff, as stored (``controller.table.staff_notice``)."""

    # --- the session (``Sessions``) ------------------------------------------------------------

    @property
    def session(self) -> Session:
        return self.sessions.session

    @session.setter
    def session(self, session: Session) -> None:
        self.sessions.session = session

    @property
    def session_id(self) -> str | None:
        return self.sessions.session_id

    @property
    def ruleset(self) -> str:
        return self.sessions.ruleset

    @property
    def options(self) -> dict[str, Any]:
        return self.sessions.options

    @property
    def house(self) -> dict[str, Any] | None:
        return self.sessions.house

    @property
    def rules_choice(self) -> HouseChoice | None:
        return self.sessions.rules_choice

    @rules_choice.setter
    def rules_choice(self, choice: HouseChoice | None) -> None:
        self.sessions.rules_choice = choice

    def rules_in_force(self) -> RulesInForce:
        return self.sessions.rules_in_force()

    def new_session(self, why: str = "a new session started") -> None:
        """End whatever was open and start afresh (a new virtual table knows no history);
        a hand still open is closed as aborted with ``why``."""
        self.sessions.end_open()
        hand = self.store.open_hand()
        if hand is not None:
            self._abort(hand.hand.id, why)
        self._start_session()

    def _start_session(self) -> None:
        self.sessions.start()
        self.hand_id, self.state, self.log = None, None, []
        self.last_order, self.last_finished = None, False

    def resume(self) -> None:
        """Carry on from the store: the open session (``Sessions.carry_on``), and the open
        hand if there is one."""
        last, fresh = self.sessions.carry_on()
        self.hand_id, self.state, self.log = None, None, []
        if fresh:
            self.last_order, self.last_finished = None, False
        elif last is not None:
            shuffled = next((e for e in last[1] if isinstance(e, Shuffled)), None)
            self.last_order = None if shuffled is None else shuffled.order
            self.last_finished = True
        self._last_settlement, self._cashout = self.sessions.latest_screens()
        hand = self.store.open_hand()
        if hand is None:
            self._between_hands(last)
            return
        if hand.hand.session_id != self.session_id:
            self.store.abort_hand(hand.hand.id, "its session is over")
            self._between_hands(last)
            return
        try:
            events = log_of(hand)
            state = fold(events)
        except EngineError as err:  # (CorruptLog)
            # a log this engine cannot read back (a damaged row): the table must not stop
            # on it at every start. Its events stay stored; the hand is closed with why.
            self._abort(hand.hand.id, f"its log cannot be replayed: {err}")
            self._between_hands(last)
            return
        self.hand_id, self.log, self.state = hand.hand.id, events, state
        self.notice = stored_notice(self.store, hand.hand.id)
        self.last_order = self.state.order
        self.session.add(extras_net(state))  # (its settlement, if logged: ``_close``)
        log.info(
            "hand resumed", hand_id=self.hand_id, events=len(events), phase=self.state.phase.value
        )
        settled = next((e for e in events if isinstance(e, Settled)), None)
        if settled is not None:
            self._close(settled)  # the settlement was logged, the hand not yet closed

    def view(
        self,
        hand_id: str | None = None,
        state: RoundState | None = None,
        *,
        totals: list[Amount] | None = None,
        session_id: str | None = None,
        cashout: dict[str, Any] | None = None,
    ) -> TableView:
        """The table as the store holds it (``hand_id``, ``state``, ``totals``: as they will
        be once the write in hand is committed)."""
        return TableView(
            hand_id=self.hand_id if hand_id is None else hand_id,
            state=self.state if state is None else state,
            session_id=self.session_id if session_id is None else session_id,
            totals=list(self.session.totals if totals is None else totals),
            last_settlement=self._last_settlement,
            cashout=self._cashout if cashout is None else cashout,
            house=None if self.house is None else str(self.house.get("name")),
            notice=self.notice,
        )

    def _commit_work(
        self, write: Callable[[list[OutboxMessage]], T], messages: list[Message], view: TableView
    ) -> T:
        """One write (``UnitOfWork.commit``) and the screens' memory after it."""
        result = self.work.commit(write, messages, view)
        if view.state is not None and view.hand_id is not None:
            self._last_settlement = settlement_payload(view.hand_id, view.state) or (
                self._last_settlement
            )
        self._cashout = None if view.cashout is None else dict(view.cashout)
        return result

    def hold(self, why_zh: str, why_en: str) -> StaffNotice:
        """The hand in progress waits for staff, ``why``: stored with it, then said on the
        status topic (a screen: ``controller.table.screens.status_extra``). Held in memory
        even if the store refuses (a full disk: the error is the caller's to say)."""
        hand_id = self.hand_id
        assert hand_id is not None and self.in_progress
        self.notice = notice = StaffNotice(hand_id, why_zh, why_en)
        self.work.commit(
            lambda outbox: self.store.record_alert(
                hand_id, WAITING, None, why_zh, why_en, outbox=outbox
            ),
            [],
            self.view(),
        )
        return notice

    @property
    def waiting(self) -> StaffNotice | None:
        """The hand in progress waits for staff: its notice."""
        notice = self.notice
        if notice is None or not self.in_progress or notice.hand_id != self.hand_id:
            return None
        return notice

    def show_screens(self) -> None:
        """Every screen as the store holds it, said again (at start-up)."""
        self.work.republish(self.store.enqueue, self.view())

    def _abort(self, hand_id: str, why: str) -> None:
        log.error("open hand aborted", hand_id=hand_id, why=why)
        self.store.abort_hand(hand_id, why)

    def _between_hands(self, last: tuple[str, list[Event]] | None) -> None:
        """No hand open: the session's last finished hand stands as the state, as it did
        before the restart. The display then shows its result until new walls come (the
        players wait for that before they let the table shuffle); without it a restart
        between hands showed only "waiting for the first walls"."""
        if last is None:
            return
        hand_id, events = last
        try:
            state = fold(events)
        except EngineError as err:  # (its settlement read back, its log does not fold)
            log.error("the last hand cannot be shown", hand_id=hand_id, why=str(err))
            return
        self.hand_id, self.log, self.state = hand_id, events, state
        log.info("between hands: the last hand stands", hand_id=hand_id, events=len(events))

    # --- hands --------------------------------------------------------------------------------

    @property
    def in_progress(self) -> bool:
        return self.state is not None and not self.state.finished

    @property
    def unplayed(self) -> bool:
        """A hand is in progress, but nothing of it played yet (walls up, dice at most)."""
        return self.in_progress and all(isinstance(e, UNPLAYED) for e in self.log)

    @property
    def playing(self) -> bool:
        """A hand is on its walls (in progress, past waiting for them)."""
        return self.in_progress and not self.awaiting_walls

    @property
    def awaiting_walls(self) -> bool:
        """A hand is open, its dice committed, and waits for its walls (``Shuffle``)."""
        return self.state is not None and self.state.phase is Phase.SHUFFLE

    def open_hand(self, *, before_walls: bool = True) -> str:
        """A new hand, before its walls are known: ``HandStarted`` and the dice commitment
        (a fresh seed, ``controller.table.dice``) are stored, then the commitment is published.
        ``before_walls`` False: the table already knew the walls (said in the event)."""
        assert not self.in_progress, "a hand is in progress"
        if self.session_id is None:
            self._start_session()
        assert self.session_id is not None
        self.sessions.next_hand_rules()
        started = self.session.next_hand()
        state = RoundState(started)
        committed = self.roller.commit(
            table=self.table,
            session=self.session_id,
            hand_no=started.hand_no,
            before_walls=before_walls,
        )
        events: list[Event] = [started, committed]
        after = advance(state, [committed])
        hand_id = uuid.uuid4().hex
        messages = event_messages(hand_id, 0, events, after)
        session_id = self.session_id
        self._commit_work(
            lambda outbox: self.store.start_hand(
                ruleset=started.ruleset,
                hand_no=started.hand_no,
                session_id=session_id,
                dealer=started.dealer,
                hand_id=hand_id,
                events=[e.to_dict() for e in events],
                outbox=outbox,
                parlour=self.parlour,
                table_id=self.table,
                clock_synced=clock_synced(),
                house=self.house,
            ),
            messages,
            self.view(hand_id, after),
        )
        self._started_at = time.monotonic()
        self.hand_id, self.state, self.log = hand_id, after, events
        log.info(
            "hand opened, dice committed",
            hand_id=hand_id,
            hand_no=started.hand_no,
            dealer=started.dealer,
            commitment=committed.commitment,
        )
        return hand_id

    def start_hand(self, order: tuple[int, ...] | None, *, walls_known: bool = False) -> str:
        """The walls of the open hand (``order``: the lift order as tile ids, if known);
        opens the hand first when none waits for them (its commitment then says whether
        the walls were already known: ``walls_known`` or an order)."""
        if not self.awaiting_walls:
            self.open_hand(before_walls=order is None and not walls_known)
        state, hand_id = self.state, self.hand_id
        assert state is not None and hand_id is not None
        shuffled = apply(state, Shuffle(order))
        if isinstance(shuffled, Rejection):
            log.warning("lift order refused; wall order unknown", why=str(shuffled))
            shuffled = apply(state, Shuffle(None))
            assert not isinstance(shuffled, Rejection)
        self._started_at = time.monotonic()  # (the hand is played from its walls)
        self._commit(hand_id, state, list(shuffled))
        self.last_order = self.state.order if self.state is not None else None
        log.info("hand started", hand_id=hand_id, hand_no=state.started.hand_no)
        return hand_id

    def execute(self, command: Command, reply: Reply | None = None) -> list[Event] | Rejection:
        """The one way a hand changes: ``command`` (a player's move or a person's act) is
        applied (``apply``); its events, their messages, the screens they change, the
        hand's row and ``reply``'s answer with its key are stored in one transaction
        (``UnitOfWork``), then published and folded. A refusal is a ``Rejection``, nothing
        stored. Moves inside ``batch`` are stored together when it ends; an act of a
        person is refused there. The session's totals follow an act (a finish or a void
        closes the hand as a win would)."""
        state, hand_id = self.state, self.hand_id
        person = isinstance(command, STAFF_COMMANDS)
        if state is None or hand_id is None or (person and self._batch is not None):
            return Rejection("no_hand", "hand: no hand in progress (还没开局)")
        result = apply(state, command)
        if isinstance(result, Rejection):
            return result
        if self._batch is not None:
            self.state = advance(state, result)
            self._batch.extend(result)
        elif person and state.finished:
            if advance(state, result).settlement is None:
                return Rejection("bad_act", "undo: that would reopen a closed hand; " + REOPEN)
            self._amend(hand_id, state, result, reply)
        else:
            self._commit(hand_id, state, result, reply, person=person)
        if person:
            log.info("staff act", hand_id=hand_id, events=[e.type for e in result])
        return result

    def _amend(
        self, hand_id: str, state: RoundState, events: list[Event], reply: Reply | None
    ) -> None:
        """An act on the hand just settled (no hand has started since): stored with its
        new settlement, published, the session following it, its handlog sent again."""
        after = advance(state, events)
        session = self._following(state, after)
        messages = event_messages(hand_id, len(self.log), events, after)
        seen = len(self.log) + len(events)
        kept = None if reply is None else reply.kept(events, hand_id, seen, after)
        closed = next((e for e in events if isinstance(e, SessionClosed)), None)
        cashout = None if closed is None else public_cashout(self.sessions.cashout_at_close(closed))
        view = self.view(hand_id, after, totals=session.totals, cashout=cashout)
        record, stored = self._store_amended(hand_id, after, events, messages, view, kept)
        self.session = session
        self._send_handlog(record, stored)

    def _following(self, before: RoundState, after: RoundState) -> Session:
        """The session as it will be once an act of a person moving the hand from
        ``before`` to ``after`` is stored (it stays as it is if the store refuses)."""
        session = copy.deepcopy(self.session)
        session.follow(before, after)
        return session

    def _store_amended(
        self,
        hand_id: str,
        after: RoundState,
        events: list[Event],
        messages: list[Message],
        view: TableView,
        kept: KeptAnswer | None = None,
    ) -> tuple[HandRecord, dict[str, Any]]:
        """Append ``events`` to the settled hand with its standing settlement (``after``'s),
        ``messages`` and ``kept``, in one transaction; the record and the settlement as
        stored."""
        assert after.settlement is not None
        result, winner, discarder = hand_result(after)
        stored = after.settlement.as_dict()
        record = self._commit_work(
            lambda outbox: self.store.amend_finished(
                hand_id,
                [e.to_dict() for e in events],
                expected_seq=len(self.log),
                settlement=stored,
                result=result,
                winner=winner,
                discarder=discarder,
                hand_net=[plain(n) for n in hand_net(after)],
                outbox=outbox,
                kept=kept,
            ),
            messages,
            view,
        )
        self.state = after
        self.log.extend(events)
        return record, stored

    def close_session(
        self,
        audit: Audit,
        cause: Literal["staff", "cutoff"],
        terms: CashoutTerms,
        key: RequestKey | None = None,
    ) -> dict[str, Any]:
        """Close the session after its last hand, settled: the ``CloseSession`` command
        through the one entry (``execute``), its ``session_closed`` event appended to that
        hand with the cash-out's public message and ``key``'s answer in one transaction;
        then the session ends in the store and the hand's log goes to the hub again. The
        next hand starts a new session. Returns the cash-out (money and fee included)."""
        if self.session_id is None:
            raise StaffInputError("session: closed already; the next hand starts a new one")
        if self.session.hand_no == 0:
            raise StaffInputError("session: no hand played in it yet, nothing to cash out")
        if self.unplayed:
            self._back_to_last_hand()
        session_id = self.session_id
        if self.state is None or self.hand_id is None:
            raise StaffInputError("session: no hand played in it yet, nothing to cash out")
        command = CloseSession(audit, cause, terms.model_dump(exclude={"cutoff"}))
        reply = Reply(lambda events, *_: self.sessions.cashout_at_close(events[0]), key)
        done = self.execute(command, reply)
        if isinstance(done, Rejection):
            raise StaffInputError(done.reason)
        self.sessions.end()
        log.info("session closed", session_id=session_id, cause=cause, by=audit.by)
        assert reply.answer is not None
        return reply.answer

    def _back_to_last_hand(self) -> None:
        """A hand started but not played (walls up, dice at most; on a table without
        readers the dealer's roll starts it) when the session closes: it is aborted and
        the session's last finished hand is current again, to close on."""
        assert self.hand_id is not None
        self._abort(self.hand_id, "本场已结束 (the session closed before this hand was played)")
        self.hand_id, self.state, self.log = None, None, []
        last = self.sessions.last_finished_hand()
        if last is not None:
            self.hand_id, self.log, self.state = last[0], last[1], fold(last[1])

    @contextlib.contextmanager
    def answering(self, reply: Reply, made: type[Event]) -> Iterator[Reply]:
        """``reply``'s answer is kept in the transaction that stores the first ``made``
        event made inside (the dice button's, with the roll the tracker makes: a crash
        stores both or neither). Nothing such stored: ``reply.answer`` stays None."""
        self._awaiting = (reply, made)
        try:
            yield reply
        finally:
            self._awaiting = None

    def _awaited_reply(self, made: list[Event]) -> Reply | None:
        awaiting = self._awaiting
        if awaiting is None or not any(isinstance(e, awaiting[1]) for e in made):
            return None
        self._awaiting = None
        return awaiting[0]

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Actions submitted inside are stored (and published) together when it ends: one
        transaction for, say, three passes and the draw that implied them. The state moves
        on at each submit; nothing is published before the commit."""
        if self._batch is not None or self.state is None or self.hand_id is None:
            yield
            return
        before, hand_id = self.state, self.hand_id
        self._batch = []
        try:
            yield
        finally:
            events, self._batch = self._batch, None
            if events:
                self.state = before
                self._commit(hand_id, before, events)

    def _commit(
        self,
        hand_id: str,
        state: RoundState,
        made: list[Event],
        reply: Reply | None = None,
        *,
        person: bool = False,
    ) -> None:
        """Store ``made`` (with the dice seed's reveal if they settle the hand), then
        publish; ``person``: an act of a person, which the session's totals follow."""
        events = self._with_reveal(state, made)
        after = advance(state, events)
        seq = len(self.log)
        messages = event_messages(hand_id, seq, events, after)
        settled = next((e for e in events if isinstance(e, Settled)), None)
        reply = reply or self._awaited_reply(made)
        kept = None if reply is None else reply.kept(made, hand_id, seq + len(events), after)
        dicts = [e.to_dict() for e in events]
        if settled is None:
            session = self._following(state, after) if person else self.session
            self._commit_work(
                lambda outbox: self.store.append(
                    hand_id,
                    dicts,
                    expected_seq=seq,
                    outbox=outbox,
                    durable=not all(isinstance(e, WITNESSED) for e in events),
                    kept=kept,
                ),
                messages,
                self.view(hand_id, after, totals=session.totals),
            )
            self.session = session
            self.state = after
            self.log.extend(events)
            return
        # the events that end the hand, their messages and the hand's row: one transaction
        closing = self._closing(after, settled)
        record = self._commit_work(
            lambda outbox: self.store.append_and_settle(
                hand_id, dicts, closing, expected_seq=seq, outbox=outbox, kept=kept
            ),
            messages,
            self._settled_view(hand_id, after, settled),
        )
        self.state = after
        self.log.extend(events)
        self._closed(record, closing, settled)

    @staticmethod
    def _with_reveal(state: RoundState, events: list[Event]) -> list[Event]:
        """Events that settle the hand carry its dice seed out after them."""
        commit = state.dice_commit
        if commit is None or state.dice_seed is not None:
            return events
        if not any(isinstance(e, Settled) for e in events):
            return events
        return [*events, DiceSeedRevealed(commit.seed)]

    def _settled_view(self, hand_id: str, after: RoundState, settled: Settled | None) -> TableView:
        """The table once ``after`` is stored; a batch that settles the hand (``settled``)
        adds its settlement to the totals (recorded in the session by ``_close``)."""
        if settled is None:
            return self.view(hand_id, after)
        net = settlement_from_dict(settled.settlement).net
        totals = [a + b for a, b in zip(self.session.totals, net, strict=True)]
        # a new session's first result: the last session's cash-out goes from the display
        cashout: dict[str, Any] | None = {} if after.started.hand_no == 1 else None
        return self.view(hand_id, after, totals=totals, cashout=cashout)

    def _closing(self, state: RoundState, settled: Settled) -> HandSettled:
        """What finishes the hand in the store: its settlement, result and nets."""
        settlement: Settlement = settlement_from_dict(settled.settlement)
        result, winner, discarder = hand_result(state)
        moved = hand_net(state)
        played_s = None if self._started_at is None else time.monotonic() - self._started_at
        return HandSettled.checked(
            settlement.as_dict(),
            result,
            winner,
            discarder,
            None if moved == settlement.net else [plain(n) for n in moved],
            played_s,
        )

    def _close(self, settled: Settled) -> None:
        """Resumed after a crash between a hand's settlement and its close (a store that
        wrote them apart): settle it in the store now, the screens saying it."""
        state, hand_id = self.state, self.hand_id
        assert state is not None and hand_id is not None
        closing = self._closing(state, settled)
        record = self._commit_work(
            lambda outbox: self.store.record_settlement(
                hand_id,
                closing.settlement,
                result=closing.result,
                winner=closing.winner,
                discarder=closing.discarder,
                outbox=outbox,
                hand_net=closing.hand_net,
                played_s=closing.played_s,
            ),
            [],
            self._settled_view(hand_id, state, settled),
        )
        self._closed(record, closing, settled)

    def _closed(self, record: HandRecord, closing: HandSettled, settled: Settled) -> None:
        """The hand is settled in the store: the session moves on, its log goes out."""
        settlement = settlement_from_dict(settled.settlement)
        self._started_at = None
        self.session.record(settlement)
        self.played += 1
        self.last_finished = True
        log.info(
            "hand settled",
            hand_id=record.id,
            result=closing.result,
            net=[number(n) for n in settlement.net],
            totals=[number(t) for t in self.session.totals],
        )
        self._send_handlog(record, closing.settlement)

    def _send_handlog(self, hand: HandRecord, settlement: dict[str, Any]) -> None:
        # From the log in memory: it is what the store holds (appended before folding).
        events = [e.to_dict() for e in self.log]
        acts = hand_seat_acts(self.store.engine, hand.id)
        payload = handlog_of(
            hand, events, settlement, parlour=self.parlour, table=self.table, seat_acts=acts
        )
        self.work.commit(self.store.enqueue, [("handlog", payload)])
