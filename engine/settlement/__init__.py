"""Finished hands in, itemised settlements out."""

from engine.settlement.finished_hand import (
    FinishedHand,
    SeatEnd,
    SettleInputError,
    Win,
    WinSource,
    parse_finished_hand,
)
from engine.settlement.ledger import Amount, Ledger, Line, Settlement

__all__ = [
    "Amount",
    "FinishedHand",
    "Ledger",
    "Line",
    "SeatEnd",
    "SettleInputError",
    "Settlement",
    "Win",
    "WinSource",
    "parse_finished_hand",
]
