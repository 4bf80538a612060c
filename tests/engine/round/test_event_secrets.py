"""Public event forms hide what the table does not show (docs/design.md: one public projection)."""

from __future__ import annotations

from engine.round.events import ClaimDeclared, Discarded, event_from_dict


def test_declined_win_is_not_public() -> None:
    e = Discarded(1, 40, declined_win=True)
    assert e.public_dict() == {"type": "discarded", "seat": 1, "tile": 40}
    assert event_from_dict(e.to_dict()) == e  # the log keeps it


def test_claim_tiles_are_not_public() -> None:
    e = ClaimDeclared(2, "pung", (12, 13))
    assert e.public_dict() == {"type": "claim_declared", "seat": 2, "claim": "pung"}
    assert event_from_dict(e.to_dict()) == e
