"""Hands with committed dice, as a table stores them, played by the engine's bots: the
hand's seed committed after ``hand_started``, every roll derived from it, the seed revealed
after ``settled`` (controller.table.dice). For the dice, hub and fairness tests."""

from __future__ import annotations

import random
from typing import Any

from controller.table.dice import DiceRoller, roll_of
from engine.round.events import DiceSeedRevealed
from engine.simulation import play_session


def committed_hands(
    n: int,
    *,
    seed: int = 0,
    ruleset: str = "xingguo",
    table: str = "t1",
    session: str = "s1",
    rigged: frozenset[int] = frozenset(),
) -> list[list[dict[str, Any]]]:
    """``n`` hands in a row of one session, each its list of event dicts. A hand whose
    number is in ``rigged`` is what a rigged table would log: a whole, playable hand whose
    rolls come from another seed than the one it committed to."""
    roller = DiceRoller(seed)
    commits = {}

    def rolls(hand_no: int, index: int) -> tuple[int, int]:
        if hand_no not in commits:
            commits[hand_no] = roller.commit(table=table, session=session, hand_no=hand_no)
        if hand_no in rigged:
            return roll_of(DiceRoller(seed + 1000).new_seed(hand_no), index)
        return roll_of(commits[hand_no].seed, index)

    out = []
    for result in play_session(ruleset, n, random.Random(seed), rolls=rolls):
        hand_no = result.state.started.hand_no
        commit = commits.get(hand_no) or roller.commit(
            table=table, session=session, hand_no=hand_no
        )
        log = [e.to_dict() for e in result.log]
        events = [log[0], commit.to_dict(), *log[1:], DiceSeedRevealed(commit.seed).to_dict()]
        out.append(events)
    return out
