"""A simulated hand's messages as the service publishes them: one batch per event, built
by controller.table.publication (as HandKeeper does), for tests that play a table's side."""

from __future__ import annotations

import random

from controller.table.publication import Message, event_messages, settlement_messages
from engine.round.events import Settled
from engine.round.finish import settlement_from_dict
from engine.round.fold import evolve
from engine.round.state import RoundState
from engine.session import Session
from engine.simulation import play_hand


def hand_batches(
    hand_id: str, seed: int, ruleset: str = "xingguo"
) -> tuple[list[list[Message]], RoundState]:
    """Each stored batch's messages (one event a batch) of the session's first hand, and
    the hand's final state."""
    started = Session(ruleset).next_hand()
    _, log = play_hand(started, random.Random(seed))
    state = RoundState(log[0])  # type: ignore[arg-type]
    batches = []
    for seq, event in enumerate(log):
        if seq:
            evolve(state, event)
        messages = event_messages(hand_id, seq, [event], state)
        if isinstance(event, Settled):
            settlement = settlement_from_dict(event.settlement)
            messages += settlement_messages(
                hand_id, settlement, session_id="s1", hand_no=1, totals=settlement.net
            )
        batches.append(messages)
    return batches, state
