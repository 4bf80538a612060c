"""What the retained topics show, as a projection of the store: the hand, the 精, the
session's totals, the last settlement and the cash-out, each computed from the hand as
folded from its stored log and the session as summed from its stored hands
(``TableView``), never patched by the path that changed them.

Every write of the table adds to its own messages the screens whose value it changes
(``Screens.with_changes``), in the same outbox transaction; at start-up every screen is
said again (``Screens.everything``), so a restart, a broker that lost its retained
values or a page that opens later shows what the store holds.

The ``status`` topic is the connection's (online, its will offline: the publisher's), but
what it adds while a hand waits for staff is a screen too (``status_extra``: the hand's
stored hold, ``controller.table.staff_notice``), set after each commit that changes it
and at start-up.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.table.publication import Message, jing_payload, scores_payload
from controller.table.staff_notice import StaffNotice
from engine.round.projection import public_view
from engine.round.state import RoundState
from engine.settlement.ledger import Amount

_UNSAID = object()

# The retained topics that are screens of the store (``seats`` is the members' own:
# controller.table.seating; ``status`` the connection's: the publisher's).
SCREENS = ("hand", "jing", "scores", "settlement", "cashout")


@dataclass(frozen=True, slots=True)
class TableView:
    """The table as the store holds it, at one commit."""

    hand_id: str | None
    state: RoundState | None  # the current hand (in play, or the one just settled)
    session_id: str | None  # None: closed and cashed out until the next hand
    totals: Sequence[Amount]  # the session's, this hand's standing share included
    last_settlement: Mapping[str, Any] | None  # the latest settled hand's (with its id)
    cashout: Mapping[str, Any] | None  # the public cash-out shown ({}: none; None: unknown)
    house: str | None = None  # the name of the house ruleset played (None: table.toml's)
    notice: StaffNotice | None = None  # the current hand's stored hold for staff, if any


def status_extra(view: TableView) -> dict[str, Any] | None:
    """What ``status`` says beside online: the hand in progress waits for staff (its stored
    hold), or nothing (a hand ended, or never held)."""
    notice, state = view.notice, view.state
    if notice is None or state is None or state.finished or notice.hand_id != view.hand_id:
        return None
    return notice.status()


def settlement_payload(hand_id: str, state: RoundState) -> dict[str, Any] | None:
    return None if state.settlement is None else state.settlement.as_dict() | {"hand_id": hand_id}


def screen_messages(view: TableView, carried: Collection[str] = ()) -> list[Message]:
    """Every screen's value in ``view`` (a screen with nothing to show yet is left out),
    but those ``carried`` already (not computed again: the hand's view on every move)."""
    out: list[Message] = []
    state, hand_id = view.state, view.hand_id
    hand_no = 0
    if state is not None and hand_id is not None:
        hand_no = state.started.hand_no
        if "hand" not in carried:
            out.append(("hand", public_view(state) | {"hand_id": hand_id}))
        if "jing" not in carried:
            out.append(("jing", jing_payload(hand_id, state)))
    scores = scores_payload(view.session_id, hand_no, view.totals)
    out.append(("scores", scores | ({} if view.house is None else {"house": view.house})))
    settlement: Mapping[str, Any] | None = None
    if state is not None and hand_id is not None:
        settlement = settlement_payload(hand_id, state)
    settlement = settlement or view.last_settlement
    if settlement is not None:
        out.append(("settlement", dict(settlement)))
    if view.cashout is not None:
        out.append(("cashout", dict(view.cashout)))
    return out


class Screens:
    """The screens' values as last committed to the outbox, to send only what changed."""

    def __init__(self) -> None:
        self._sent: dict[str, Any] = {}
        self._pending: dict[str, Any] = {}
        self._status: object = _UNSAID  # the status extra last said

    def status_change(self, view: TableView | None, *, again: bool = False) -> list[Any]:
        """``[extra]`` when the status ``view`` projects differs from the one said (or
        ``again``: at start-up), else ``[]``; remembered as said."""
        if view is None:
            return []
        extra = status_extra(view)
        if not again and extra == self._status:
            return []
        self._status = extra
        return [extra]

    def with_changes(self, messages: Sequence[Message], view: TableView) -> list[Message]:
        """``messages`` (one write's) and, after them, each screen of ``view`` whose value
        they do not carry and the broker does not hold already."""
        out = list(messages)
        carried = {name: payload for name, payload in messages if name in SCREENS}
        self._pending = dict(carried)
        for name, payload in screen_messages(view, carried):
            if name in carried or self._sent.get(name) == payload:
                continue
            out.append((name, payload))
            self._pending[name] = payload
        return out

    def everything(self, view: TableView) -> list[Message]:
        """Every screen again (at start-up)."""
        out = screen_messages(view)
        self._pending = dict(out)
        return out

    def sent(self) -> None:
        """The last write is committed: its screens are what the broker holds."""
        self._sent |= self._pending
        self._pending = {}
