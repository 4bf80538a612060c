"""What the table service publishes for a hand, event by event (a stand-in for its wiring):
the tests push these through the live hub as the service will."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from engine.round import public_view
from engine.round.events import DiceRolled, Event, JingFlipped, Settled
from engine.round.fold import evolve
from engine.round.narration import texts
from engine.round.state import RoundState
from engine.tiles import kind_name, kind_of, successor
from engine.wall import wall_place

Message = tuple[str, Any]


def _dealer_break(state: RoundState, hand_id: str) -> dict[str, Any] | None:
    wall = state.wall
    if wall is None:
        return None
    br = wall.break_
    owner, n = wall_place(br.stack)
    return {
        "hand_id": hand_id,
        "dealer": state.dealer,
        "step": "break",
        "dice": [{"seat": br.dealer, "a": br.first.a, "b": br.first.b}]
        + (
            [{"seat": br.second_roller, "a": br.second.a, "b": br.second.b}]
            if br.second is not None
            else []
        ),
        "wall_seat": br.wall_owner,
        "stack": br.count,
        "count_from": "right",
        "start": br.start.value,
        "place": {"wall_seat": owner, "stack": n},
    }


def hand_messages(
    hand_id: str, log: Sequence[Event], totals_before: Sequence[float], session_id: str = "s1"
) -> Iterator[list[Message]]:
    """For each event of ``log``, the (topic, payload) pairs published after it."""
    first = log[0]
    state = RoundState(first)  # type: ignore[arg-type]
    for seq, event in enumerate(log):
        if seq:
            evolve(state, event)
        text = texts(event, public=True)
        out: list[Message] = [
            ("events", event.public_dict() | {"hand_id": hand_id, "seq": seq, "text": text})
        ]
        if isinstance(event, DiceRolled):
            out.append(
                (
                    "dice",
                    {
                        "hand_id": hand_id,
                        "seat": event.seat,
                        "purpose": event.purpose,
                        "a": event.a,
                        "b": event.b,
                    },
                )
            )
            if event.purpose in ("break", "break_second"):
                instruction = _dealer_break(state, hand_id)
                if instruction is not None:
                    out.append(("dealer", instruction))
            elif event.purpose == "jing":
                out.append(
                    (
                        "dealer",
                        {
                            "hand_id": hand_id,
                            "dealer": state.dealer,
                            "step": "flip",
                            "dice": {"seat": event.seat, "a": event.a, "b": event.b},
                            "stack": event.a + event.b,
                            "count_from": "tail",
                        },
                    )
                )
        if isinstance(event, JingFlipped) and event.purpose != "xia_jing":
            indicator = kind_of(event.tile)
            if event.purpose == "caishen":
                jing = {
                    "hand_id": hand_id,
                    "indicator": kind_name(indicator),
                    "caishen": kind_name(successor(indicator)),
                }
            else:
                jing = {
                    "hand_id": hand_id,
                    "indicator": kind_name(indicator),
                    "zheng_jing": kind_name(indicator),
                    "fu_jing": kind_name(successor(indicator)),
                }
            out.append(("jing", jing))
            wall_seat, n = wall_place(event.position // 2)
            if event.purpose == "caishen":
                instruction = {
                    "step": "caishen",
                    "wall_seat": wall_seat,
                    "stack": 18 - n,
                    "count_from": "left",
                    "dice": None,
                }
            else:
                d = state.dice[-1]
                instruction = {
                    "step": "flip",
                    "stack": d.a + d.b,
                    "count_from": "tail",
                    "dice": {"seat": d.seat, "a": d.a, "b": d.b},
                }
            out.append(
                (
                    "dealer",
                    instruction
                    | {
                        "hand_id": hand_id,
                        "dealer": state.dealer,
                        "place": {"wall_seat": wall_seat, "stack": n},
                    },
                )
            )
        out.append(("hand", public_view(state) | {"hand_id": hand_id}))
        if isinstance(event, Settled):
            out.append(("settlement", dict(event.settlement) | {"hand_id": hand_id}))
            net = event.settlement["net"]
            out.append(
                (
                    "scores",
                    {
                        "session_id": session_id,
                        "hand_no": first.hand_no,  # type: ignore[attr-defined]
                        "totals": [a + b for a, b in zip(totals_before, net, strict=True)],
                    },
                )
            )
        yield out
