"""A simulated hand's messages as the service publishes them, built by
controller.table.publication (as HandKeeper does), for tests that play a table's side: one
batch per event, but for the hand's opening (``hand_started`` with its dice commitment)
and its end (``settled`` with the seed revealed), stored together as the keeper stores
them."""

from __future__ import annotations

import random

from controller.table.dice import DiceRoller, roll_of
from controller.table.publication import Message, event_messages, settlement_messages
from engine.round.events import DiceSeedRevealed, Event, Settled, settlement_from_dict
from engine.round.fold import evolve
from engine.round.state import RoundState
from engine.session import Session
from engine.simulation import play_hand


def hand_batches(
    hand_id: str, seed: int, ruleset: str = "xingguo"
) -> tuple[list[list[Message]], RoundState]:
    """Each stored batch's messages of the session's first hand (its rolls derived from its
    committed seed), and the hand's final state."""
    started = Session(ruleset).next_hand()
    commit = DiceRoller(seed).commit(table="t1", session="s1", hand_no=started.hand_no)
    _, log = play_hand(
        started, random.Random(seed), rolls=lambda _no, index: roll_of(commit.seed, index)
    )
    stored: list[list[Event]] = [[log[0], commit], *([e] for e in log[1:])]
    stored[-1].append(DiceSeedRevealed(commit.seed))
    assert isinstance(log[-1], Settled)
    state = RoundState(log[0])  # type: ignore[arg-type]
    batches = []
    seq = 0
    for events in stored:
        for event in events:
            if seq:
                evolve(state, event)
            seq += 1
        messages = event_messages(hand_id, seq - len(events), events, state)
        settled = next((e for e in events if isinstance(e, Settled)), None)
        if settled is not None:
            settlement = settlement_from_dict(settled.settlement)
            messages += settlement_messages(
                hand_id, settlement, session_id="s1", hand_no=1, totals=settlement.net
            )
        batches.append(messages)
    return batches, state
