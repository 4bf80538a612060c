"""The table's sessions, beside its hands (``controller.table.hand_keeper`` keeps the hand):
which session is open and with which rules, its totals as replayed from its finished
hands, started and ended in the store, and its cash-out.

``carry_on()`` at start-up: the open session again when it plays the rules in force (its
totals replayed, the last finished hand returned for the keeper to show), else a new one.
``start()``: a new session (a house ruleset assigned "from the next session" is taken).
``next_hand_rules()``: a house ruleset assigned "from the next hand", taken between hands.
``cashout_at_close(closed)``: the session's cash-out as its ``session_closed`` ends it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import structlog

from controller.store import EventStore, StoredHand
from controller.store.owners import CashoutTerms
from controller.table.cashout import MAX_HANDS, cashout, public_cashout, stored_cashout
from controller.table.house_choice import HouseChoice, RulesInForce
from engine.errors import EngineError
from engine.round.events import (
    STAFF_ACT_TYPES,
    Event,
    SessionClosed,
    Settled,
    event_from_dict,
    settlement_from_dict,
)
from engine.round.fold import fold
from engine.round.staff import extras_net
from engine.session import Session

log = structlog.get_logger(__name__)

LastHand = tuple[str, list[Event]]
"""A session's last finished hand: its id and its log."""


def log_of(stored: StoredHand) -> list[Event]:
    return [event_from_dict(d) for d in stored.event_dicts()]


class Sessions:
    def __init__(
        self,
        store: EventStore,
        *,
        parlour: str,
        table: str,
        ruleset: str,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.parlour = parlour
        self.table = table
        self.ruleset = ruleset
        self.options = dict(options or {})
        self.house: dict[str, Any] | None = None
        """The house ruleset played ({"name", "version"}; None: table.toml's)."""
        self.rules_choice: HouseChoice | None = None
        """Where an owner's house ruleset comes from (None: table.toml's [ruleset] alone)."""
        self.session = Session(ruleset, dict(self.options))
        self.session_id: str | None = None

    def rules_in_force(self) -> RulesInForce:
        return RulesInForce(self.ruleset, dict(self.options), self.house)

    def take_rules(self, rules: RulesInForce) -> None:
        self.ruleset, self.options, self.house = rules.ruleset, dict(rules.options), rules.house

    def start(self) -> str:
        """A new session in the store, with the rules in force (an assigned house
        ruleset taken now); its id."""
        if self.rules_choice is not None:  # a session starts: an assigned house ruleset
            self.take_rules(self.rules_choice.for_session(self.rules_in_force()))
        self.session = Session(self.ruleset, dict(self.options))
        self.session_id = session_id = self.store.start_session(
            ruleset=self.ruleset,
            parlour=self.parlour,
            table_id=self.table,
            options=self.options,
            house=self.house,
        )
        log.info("session started", session_id=session_id, ruleset=self.ruleset)
        return session_id

    def end_open(self) -> None:
        """End the session open in the store, if any."""
        old = self.store.open_session()
        if old is not None:
            self.store.end_session(old.id)

    def end(self) -> None:
        """The current session ends in the store (closed: the next hand starts a new one)."""
        if self.session_id is not None:
            self.store.end_session(self.session_id)
        self.session_id = None

    def carry_on(self) -> tuple[LastHand | None, bool]:
        """The open session again if it plays the rules in force, its totals replayed
        (``replay``), else a new one (``start``): the session's last finished hand, if
        one is to be shown, and whether a new session started. A session whose last hand
        closed it (the power went before its end was stored) or whose finished hand cannot
        be read back ends, and a new one starts; every hand stays stored as it is."""
        found = self.store.open_session()
        if found is not None and found.house is not None and self.rules_choice is not None:
            # a session plays its house ruleset to its end, a restart or not
            self.take_rules(RulesInForce(found.ruleset, dict(found.options), found.house))
        if found is None or found.ruleset != self.ruleset or found.options != self.options:
            if found is not None:
                self.store.end_session(found.id)
            self.start()
            return None, True
        self.session_id = found.id
        try:
            last = self.replay()
        except EngineError as err:  # (CorruptLog: event_from_dict, settlement_from_dict)
            why = f"a finished hand's log cannot be read: {err}"
            log.error("session cannot be resumed; a new one starts", why=why)
            self.store.end_session(found.id)
            self.start()
            return None, True
        if last is not None and any(isinstance(e, SessionClosed) for e in last[1]):
            # closed, and the power went before the session's end was stored
            self.store.end_session(found.id)
            self.start()
            return last, True
        return last, False

    def replay(self) -> LastHand | None:
        """The session's totals from its finished hands; returns the last one."""
        self.session = Session(self.ruleset, dict(self.options))
        last = None
        hands = self.store.list_hands(session_id=self.session_id, status="finished", limit=100_000)
        for record in sorted(hands, key=lambda h: (h.hand_no, h.started_at)):
            events = log_of(self.store.load_hand(record.id))
            settled = next((e for e in events if isinstance(e, Settled)), None)
            if settled is None:
                continue
            self.session.record(settlement_from_dict(settled.settlement))
            if any(e.type in STAFF_ACT_TYPES for e in events):
                # what staff moved outside the settlement (penalties, adjustments, voids)
                self.session.add(extras_net(fold(events)))
            last = (record.id, events)
        return last

    def next_hand_rules(self) -> None:
        """An owner's house ruleset assigned "from the next hand": taken between hands."""
        if self.rules_choice is None or self.session_id is None:
            return
        chosen = self.rules_choice.for_next_hand(self.rules_in_force())
        if chosen is None:
            return
        self.take_rules(chosen)
        self.session.ruleset, self.session.options = self.ruleset, dict(self.options)
        self.store.set_session_rules(
            self.session_id, ruleset=self.ruleset, options=self.options, house=self.house
        )
        log.info("house ruleset from this hand", house=self.house)

    def latest_screens(self) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """What the screens showed before a restart, beside the hand: the latest
        settlement, and the cash-out of the session closed last while no hand of the next
        one is settled (None: nothing to show)."""
        latest = self.store.list_hands(status="finished", limit=1)
        if not latest:
            return None, None
        stored = self.store.load_hand(latest[0].id)
        settlement = None
        if stored.settlement is not None:
            settlement = dict(stored.settlement) | {"hand_id": latest[0].id}
        session_id = latest[0].session_id
        closed = any(e.get("type") == SessionClosed.type for e in stored.event_dicts())
        if closed and session_id is not None and session_id != self.session_id:
            now = datetime.now().astimezone()
            full = stored_cashout(self.store, session_id, CashoutTerms(), now)
            return settlement, public_cashout(full)
        return settlement, None

    def cashout_at_close(self, closed: Event) -> dict[str, Any]:
        """The open session's cash-out as ``closed`` (its ``session_closed``) ends it."""
        assert isinstance(closed, SessionClosed) and self.session_id is not None
        hands = self.store.list_hands(
            session_id=self.session_id, status="finished", limit=MAX_HANDS
        )
        return cashout(
            self.session_id,
            hands,
            terms=CashoutTerms.model_validate(closed.terms),
            started_at=self.store.get_session(self.session_id).started_at,
            ended_at=datetime.fromisoformat(closed.at),
            closed=closed.to_dict(),
        )

    def last_finished_hand(self) -> LastHand | None:
        """The session's last finished hand (id, log), if any."""
        hands = self.store.list_hands(session_id=self.session_id, status="finished", limit=1)
        if not hands:
            return None
        return hands[0].id, log_of(self.store.load_hand(hands[0].id))
