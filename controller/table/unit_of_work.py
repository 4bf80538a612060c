"""One write of the table and what it publishes, as one unit: the outbox belongs to it.

    messages (+ the screens they change) ──> outbox rows ──> write(outbox) ──> commit
                                                                  │ (one transaction)
                                         MQTT (woken), live hub, voice <──┘ then, only then

``commit(write, messages, view)``: ``write`` is the store's method that stores the change
(events, the hand's row, an alert, a seat act …), called with the outbox rows of
``messages`` and of every screen ``view`` changes (``controller.table.screens``) to store in
the same transaction; only once it returns are they published. A write that raises
publishes nothing and leaves the screens as they were sent. No other code pairs
``Outlet.outbox`` with ``Outlet.committed``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from controller.store import OutboxMessage
from controller.table.publication import Message, Outlet
from controller.table.screens import Screens, TableView

T = TypeVar("T")


class UnitOfWork:
    def __init__(self, outlet: Outlet) -> None:
        self.outlet = outlet
        self.screens = Screens()

    def commit(
        self,
        write: Callable[[list[OutboxMessage]], T],
        messages: Sequence[Message],
        view: TableView | None = None,
        *,
        heard: bool = True,
    ) -> T:
        """Store ``write``'s change with the outbox rows of ``messages`` (and of the screens
        ``view`` changes) in one transaction, then publish them. ``heard`` False: not for
        the loudspeaker (the screens said again at start-up)."""
        out = list(messages) if view is None else self.screens.with_changes(messages, view)
        result = write(self.outlet.outbox(out))
        self.screens.sent()
        self.outlet.committed(out, heard=heard)
        for extra in self.screens.status_change(view):
            self.outlet.status(extra)
        return result

    def republish(self, write: Callable[[list[OutboxMessage]], T], view: TableView) -> T:
        """Every screen of ``view`` again (at start-up), stored by ``write`` and published,
        and the status it projects."""
        result = self.commit(write, self.screens.everything(view), heard=False)
        for extra in self.screens.status_change(view, again=True):
            self.outlet.status(extra)
        return result
