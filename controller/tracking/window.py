"""The claim window (after a discard, or a kong that may be robbed): one home for its tests."""

from __future__ import annotations

from engine.round.state import SEATS, Phase, RoundState

WINDOW_PHASES = (Phase.CLAIM, Phase.ROB)


def in_window(st: RoundState | None) -> bool:
    """Whether seats may answer the last tile now (claim it, rob the kong, or pass)."""
    return st is not None and st.phase in WINDOW_PHASES


def unanswered(st: RoundState) -> list[int]:
    """The seats after the one whose tile it is that have not answered yet, in turn order."""
    return [s for s in ((st.turn + k) % SEATS for k in (1, 2, 3)) if s not in st.responses]
