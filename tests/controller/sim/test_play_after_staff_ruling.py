"""The virtual players accept the staff's ruling: on the real service (the virtual table
over ptys, a real Mosquitto, the web app over HTTP) staff finish hand 1 by hand and void
hand 2 while the bots are playing them; the players let each go, take the next deal as
the service decides it (a void deals the next hand as the voided one was dealt), and play
hand 3 to its settlement by themselves. The session ends at ``--hands 3``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from controller.process.local_ports import free_local_port
from controller.runtime import running
from controller.sim.virtual_players import VirtualPlayers
from controller.store.owners import OwnerAccounts
from controller.web.passwords import hash_password
from engine.round.events import HandStarted
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    log_of,
    options,
    refold,
    until,
    with_web,
)

PASSWORD = "long enough password"
Act = Callable[[httpx.AsyncClient, dict[str, Any]], Awaitable[httpx.Response]]


async def _finish(http: httpx.AsyncClient, seen: dict[str, Any]) -> httpx.Response:
    body = {"hand_id": seen["hand_id"], "seen": seen["seen"], "result": "exhausted"}
    return await http.post("/api/v1/staff/hands/current/finish", json=body | {"reason": "dispute"})


async def _void(http: httpx.AsyncClient, seen: dict[str, Any]) -> httpx.Response:
    body = {"seen": seen["seen"], "reason": "tiles fell off the table"}
    return await http.post(f"/api/v1/staff/hands/{seen['hand_id']}/void", json=body)


async def _mid_hand(
    http: httpx.AsyncClient, players: VirtualPlayers, hand_no: int, act: Act
) -> None:
    """Once hand ``hand_no`` is well under way, the players sit still (they called staff
    over) and staff act on it; then the players go on."""
    players.hold = lambda hand, events: hand == hand_no and events > 30
    await until(lambda: players.held, f"hand {hand_no} under way")
    seen = (await http.get("/api/v1/staff/hands/current")).json()
    assert seen.get("in_progress") and seen.get("hand_no") == hand_no, seen
    r = await act(http, seen)
    assert r.status_code == 200, r.text
    players.hold = None


@pytest.mark.timeout(240)
def test_after_staff_finish_and_void_the_bots_play_the_next_hand_to_its_end(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    port = free_local_port()
    config = with_web(config_for(data_dir(tmp_path), "xingguo", mosquitto.url), port)
    run_options = options(23, 3)

    async def main() -> tuple[Any, ...]:
        async with running(config, run_options) as run:
            OwnerAccounts(run.store).add("ann", hash_password(PASSWORD), "staff", ("t1",))
            service = asyncio.create_task(run.service.run(asyncio.Event()))
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{port}", timeout=GUARD
            ) as http:
                login = await http.post(
                    "/api/v1/auth/login", json={"name": "ann", "password": PASSWORD}
                )
                http.headers["Authorization"] = f"Bearer {login.json()['token']}"
                assert run.players is not None
                await _mid_hand(http, run.players, 1, _finish)
                await _mid_hand(http, run.players, 2, _void)
            await asyncio.wait_for(service, 3 * GUARD)  # (--hands 3: then it stops)
            await until(lambda: run.players is not None and run.players.finished, "hand 3")
            assert run.players is not None
            return finished_hands(run.store), run.players.ruled, len(run.players.finished)

    hands, ruled, played = asyncio.run(main())
    assert [h.hand.hand_no for h in hands] == [1, 2, 3]
    logs = [log_of(h) for h in hands]
    kinds = [{e.type for e in log} for log in logs]
    assert "finished_by_staff" in kinds[0] and "hand_voided" in kinds[1]
    assert not {"finished_by_staff", "hand_voided"} & kinds[2]  # the bots' own win or draw
    assert (ruled, played) == (2, 1)
    starts = [log[0] for log in logs]
    assert all(isinstance(s, HandStarted) for s in starts)
    states = [refold(h) for h in hands]
    # each next hand dealt as the standing settlement says (a void: as the voided hand was)
    for state, nxt in zip(states, starts[1:], strict=False):
        assert state.settlement is not None
        assert isinstance(nxt, HandStarted)
        assert nxt.dealer == state.settlement.next_dealer
        assert nxt.dealer_streak == state.settlement.dealer_streak
    assert isinstance(starts[2], HandStarted) and isinstance(starts[1], HandStarted)
    assert starts[2].dealer == starts[1].dealer  # voided: dealt again as it was
    voided = next(e.to_dict() for e in logs[1] if e.type == "hand_voided")
    assert (voided["by"], voided["reason"]) == ("ann", "tiles fell off the table")
