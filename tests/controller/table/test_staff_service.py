"""Staff finish a hand on the real service: the virtual table over ptys, four bot players,
a real Mosquitto, the web app over HTTP. A reader is unplugged mid-hand; staff log in,
look at the hand and finish it by hand through the API. The act goes through the table
inputs into the table loop, is stored before it is published, settles as ``mjtable
settle`` does on the same input, and is marked as entered by staff on MQTT. Before that,
the hand the table cannot explain says on the status topic that it waits for staff."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from controller.cli.settle import settle_data
from controller.process.local_ports import free_local_port
from controller.runtime import running
from controller.store.owners import OwnerAccounts
from controller.web.passwords import hash_password
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import ONLINE
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    log_of,
    options,
    recording,
    refold,
    until,
    with_web,
)

PASSWORD = "long enough password"


def _stuck(statuses: list[Any]) -> bool:
    text = "1号读卡器无响应：请工作人员手动结束或作废本局"
    return any(s.get("hand") == "waiting_for_staff" and s.get("text") == text for s in statuses)


def _taken_back(statuses: list[Any]) -> bool:
    """Online alone again after the notice (then offline as the service stops)."""
    stuck = [i for i, s in enumerate(statuses) if s.get("hand") == "waiting_for_staff"]
    return bool(stuck) and ONLINE in statuses[stuck[-1] :]


async def _finish_by_hand(web: str, token: str) -> dict[str, Any]:
    """Look, then finish (流局 by hand); the hand may move on between the two: look again."""
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=web, headers=auth, timeout=GUARD) as http:
        for _ in range(200):
            seen = (await http.get("/api/v1/staff/hands/current")).json()
            assert seen["winners_read"] is None or seen["public"]["phase"] in ("settle", "done")
            body = {
                "hand_id": seen["hand_id"],
                "seen": seen["seen"],
                "result": "exhausted",
                "reason": "reader 1 unplugged",
            }
            r = await http.post("/api/v1/staff/hands/current/finish", json=body)
            if r.status_code == 200:
                answer: dict[str, Any] = r.json()
                return answer
            assert r.status_code in (409, 422), r.text  # moved on, or mid-move: look again
            await asyncio.sleep(0.05)
    raise AssertionError("the hand never stood still for staff")


@pytest.mark.timeout(180)
def test_staff_finish_a_hand_whose_reader_was_unplugged(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    port = free_local_port()
    plain = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
    config = with_web(plain, port, reader_silent_after=0.5, stuck_after=1.0)

    async def main() -> None:
        async with recording(mosquitto.port) as rec:
            async with running(config, options(22, 1)) as run:
                OwnerAccounts(run.store).add("ann", hash_password(PASSWORD), "staff", ("t1",))
                stop = asyncio.Event()
                service = asyncio.create_task(run.service.run(stop))
                await until(lambda: len(run.keeper.log) >= 30, "a hand well under way")
                assert run.table is not None
                await run.table.unplug_reader(0)
                web = f"http://127.0.0.1:{port}"
                async with httpx.AsyncClient(base_url=web, timeout=GUARD) as http:
                    login = await http.post(
                        "/api/v1/auth/login", json={"name": "ann", "password": PASSWORD}
                    )
                    assert login.status_code == 200, login.text
                    token = login.json()["token"]
                    http.cookies.clear()  # no token at all: refused
                    assert (
                        await http.post("/api/v1/staff/hands/current/undo", json={})
                    ).status_code == 401
                # the hand cannot be explained without reader 0: it says it waits for staff
                await until(lambda: _stuck(rec.of("status")), "the status: waiting for staff")
                answer = await _finish_by_hand(web, token)
                await asyncio.wait_for(service, GUARD)
                await asyncio.wait_for(run.publisher.wait_drained(), GUARD)
                hands = finished_hands(run.store)
            await until(lambda: rec.of("settlement"), "the settlement at the subscriber")
            await until(lambda: _taken_back(rec.of("status")), "the notice taken back")

        (hand,) = hands
        state = refold(hand)  # the log, re-folded by the pure engine, checks out
        log = log_of(hand)
        finished = next(e.to_dict() for e in log if e.type == "finished_by_staff")
        assert finished["by"] == "ann" and finished["role"] == "staff"
        assert finished["reason"] == "reader 1 unplugged"
        assert settle_data(finished["request"])["lines"] == answer["settlement"]["lines"]
        assert state.settlement is not None
        (published,) = rec.of("settlement")
        assert "工作人员录入 (entered by staff ann)" in str(published)
        events = [p for p in rec.of("events")]
        staff_event = [e for e in str(events).split("finished_by_staff")]
        assert len(staff_event) > 1  # the act went out on the events topic
        assert "request" not in str([e for e in events if "finished_by_staff" in str(e)])

    asyncio.run(main())
