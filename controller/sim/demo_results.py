"""The reader-less demo's staff: four engine bots play each hand on their own, and its
result goes to the service exactly as a person at a table without readers enters it, over
HTTP through the staff API (``POST /api/v1/staff/hands/current/finish``) with a staff
account made for the demo. The service validates, settles, stores and publishes it like
any hand, so the demo exercises the whole path: login, look, finish, MQTT.

The bots' session follows the service's: the same ruleset and options, each hand recorded
with the settlement the service answered, so the next hand's dealer and streak agree (a
mismatch is an error, not play).
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from controller.store import EventStore
from controller.store.owners import OwnerAccounts, OwnerExists
from controller.web.passwords import hash_password
from engine.round.events import settlement_from_dict
from engine.round.staff import result_of
from engine.session import Session
from engine.simulation import play_hand

log = structlog.get_logger(__name__)

ACCOUNT = "demo-staff"
POLL = 0.05  # s between looks at the hand in progress


class DemoDeskError(RuntimeError):
    """The service refused the bots' result, or its hand is not the bots' hand."""


def demo_staff(store: EventStore, table: str) -> str:
    """A staff account for the demo on ``table`` with a fresh password (returned)."""
    password = secrets.token_urlsafe(18)
    accounts = OwnerAccounts(store)
    try:
        accounts.add(ACCOUNT, hash_password(password), "staff", (table,))
    except OwnerExists:
        accounts.set_password(ACCOUNT, hash_password(password))
    return password


def _call(
    url: str,
    body: dict[str, Any] | None = None,
    token: str | None = None,
    seat_token: str | None = None,
) -> Any:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if seat_token is not None:  # a player's phone (docs/play.md)
        headers["X-Seat-Token"] = seat_token
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as err:
        detail = err.read().decode(errors="replace")[:500]
        raise DemoDeskError(f"{url}: {err.code} {detail}") from None


async def hand_after_hand(
    hands: int | None,
    entered: list[dict[str, Any]],
    one_hand: Callable[[], Awaitable[None]],
    between_hands: float,
) -> None:
    """``one_hand`` until ``hands`` results are ``entered`` (None: until stopped), each
    settlement left on the displays ``between_hands`` seconds before the next dice."""
    while hands is None or len(entered) < hands:
        await one_hand()
        if hands is None or len(entered) < hands:
            await asyncio.sleep(between_hands)


class ResultDesk:
    """Plays ``hands`` hands with bots and enters each result through the staff API of the
    web app at ``run``'s ``web`` (its base URL)."""

    def __init__(
        self,
        password: str,
        ruleset: str,
        options: dict[str, object],
        seed: int,
        hands: int | None,
        between_hands: float = 0.0,
    ) -> None:
        self.api = ""
        self.password = password
        self.session = Session(ruleset, dict(options))
        self.seed = seed
        self.hands = hands
        self.between_hands = between_hands
        """Seconds each settlement stays before the next dice (``--between-hands``)."""
        self.entered: list[dict[str, Any]] = []
        """The service's answer to each finish, in order."""

    async def run(self, web: str) -> None:
        self.api = web.rstrip("/") + "/api/v1"
        login = {"name": ACCOUNT, "password": self.password}
        token = (await asyncio.to_thread(_call, f"{self.api}/auth/login", login))["token"]
        await hand_after_hand(
            self.hands, self.entered, lambda: self._one_hand(token), self.between_hands
        )

    async def _current(self, token: str, hand_no: int) -> dict[str, Any]:
        """The service's hand ``hand_no`` once it is in progress; after a settled hand the
        dealer rolls (the console's dice button) to start it, as at a table."""
        while True:
            view = await asyncio.to_thread(_call, f"{self.api}/staff/hands/current", None, token)
            if view.get("in_progress") and view.get("hand_no") == hand_no:
                return dict(view)
            if not view.get("in_progress") and view.get("hand_id") is not None:
                press = {"hand_id": view["hand_id"], "seen": view["seen"]}
                try:
                    await asyncio.to_thread(_call, f"{self.api}/staff/dice", press, token)
                except DemoDeskError as err:  # (the service may stop: its last hand)
                    log.info("dice not rolled", why=str(err))
            await asyncio.sleep(POLL)

    async def _one_hand(self, token: str) -> None:
        started = self.session.next_hand()
        view = await self._current(token, started.hand_no)
        if view["public"]["dealer"] != started.dealer:
            raise DemoDeskError(
                f"hand {started.hand_no}: the service's dealer is {view['public']['dealer']}, "
                f"the bots' {started.dealer}"
            )
        rng = random.Random(self.seed * 100_003 + started.hand_no)
        state, _ = play_hand(started, rng)
        body = result_of(state) | {
            "hand_id": view["hand_id"],
            "seen": view["seen"],
            "reason": "demo: the bots' result",
        }
        answer = await asyncio.to_thread(
            _call, f"{self.api}/staff/hands/current/finish", body, token
        )
        settlement = settlement_from_dict(answer["settlement"])
        self.session.record(settlement)
        self.entered.append(answer)
        log.info("result entered", hand_no=started.hand_no, nets=list(settlement.net))
