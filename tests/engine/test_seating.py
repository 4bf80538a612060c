"""Who sits where as commands: ``apply_seat`` makes the seat acts a command causes (a member
sitting elsewhere leaves that seat first), none when the seat is so already, a
``Rejection`` for a seat that is not one or an act without its audit; ``seats_after`` folds
them."""

from __future__ import annotations

from engine.round.actions import Rejection
from engine.round.commands import Audit
from engine.seating import FreeSeat, Sitter, TakeSeat, apply_seat, seats_after

AT = "2026-12-07T09:00:00+00:00"
ANN = Audit("ann", "staff", AT)
WANG, LI = Sitter("a" * 32, "王五"), Sitter("b" * 32, "李四")


def test_a_member_moving_leaves_their_seat_in_the_same_act() -> None:
    seats = [WANG, None, LI, None]
    events = apply_seat(seats, TakeSeat(ANN, 3, WANG))
    assert isinstance(events, list)
    assert [e.as_dict() for e in events] == [
        {"seat": 0, "member_id": None, "name": None, "by": "staff:ann", "at": AT},
        {"seat": 3, "member_id": WANG.member_id, "name": "王五", "by": "staff:ann", "at": AT},
    ]
    assert seats_after(seats, events) == [None, None, LI, WANG]


def test_a_seat_already_so_makes_no_act() -> None:
    assert apply_seat([WANG, None, None, None], TakeSeat(ANN, 0, WANG)) == []
    assert apply_seat([WANG, None, None, None], FreeSeat(ANN, 1)) == []


def test_a_seat_freed_is_a_guests_and_a_card_is_the_players_own_act() -> None:
    card = Audit("card", "player", AT)
    events = apply_seat([None, LI, None, None], FreeSeat(card, 1))
    assert isinstance(events, list) and [(e.seat, e.member, e.by) for e in events] == [
        (1, None, "card")
    ]


def test_no_such_seat_or_no_audit_is_refused() -> None:
    refused = apply_seat([None] * 4, TakeSeat(ANN, 4, WANG))
    assert isinstance(refused, Rejection) and refused.code == "bad_seat"
    refused = apply_seat([None] * 4, FreeSeat(Audit("ann", "staff", ""), 0))
    assert isinstance(refused, Rejection) and refused.reason.startswith("at:")
