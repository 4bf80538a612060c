"""One hand, event-sourced: actions in, validated events out, state as a fold.

    events = apply(state, action)      # list[Event] or a Rejection (nothing changed)
    state = advance(state, events)     # or fold(log) from the HandStarted event on

The engine stays pure: the wall order and the dice come in as actions.
"""

from engine.errors import CorruptLog
from engine.round.actions import (
    Action,
    Chow,
    Deal,
    DeclareWin,
    Discard,
    Draw,
    FlipCaishen,
    Kong,
    Pass,
    PassRest,
    Pung,
    Rejection,
    RollDice,
    Shuffle,
)
from engine.round.events import (
    Event,
    HandStarted,
    event_from_dict,
    settlement_from_dict,
    settlement_to_dict,
)
from engine.round.finish import finished_hand
from engine.round.fold import advance, evolve, fold
from engine.round.projection import public_view
from engine.round.rules import apply
from engine.round.state import HeldMeld, Phase, RoundState, Source

__all__ = [
    "Action",
    "Chow",
    "CorruptLog",
    "Deal",
    "DeclareWin",
    "Discard",
    "Draw",
    "Event",
    "FlipCaishen",
    "HandStarted",
    "HeldMeld",
    "Kong",
    "Pass",
    "PassRest",
    "Phase",
    "Pung",
    "Rejection",
    "RollDice",
    "RoundState",
    "Shuffle",
    "Source",
    "advance",
    "apply",
    "event_from_dict",
    "evolve",
    "finished_hand",
    "fold",
    "public_view",
    "settlement_from_dict",
    "settlement_to_dict",
]
