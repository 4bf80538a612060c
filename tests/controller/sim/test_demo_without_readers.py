"""``mjtable demo --readers none``: a table without readers, the bots' results entered by
the demo's staff account through the staff API over HTTP, settled by the service and
published over a real Mosquitto. Each settlement is ``mjtable settle`` on the request kept
in the hand's log, and no concealed tile reaches a public topic."""

from __future__ import annotations

import asyncio
import itertools
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt

from controller.cli.settle import settle_data
from controller.process.local_ports import free_local_port
from controller.store import EventStore
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import TOPICS, guarded

HANDS = 3
DEMO_GUARD = 240.0  # seconds: a hang guard, never a measured expectation


def _settlements(seen: list[Any]) -> int:
    """The hands whose settlement the broker carried."""
    return len({p["hand_id"] for t, p in seen if t == TOPICS.topic("settlement") and p})


async def _until(done: Callable[[], bool]) -> None:
    while not done():
        await asyncio.sleep(0.05)  # (polling a condition, guarded by the caller)


async def _play_and_listen(
    broker: Mosquitto, data: Path, *extra: str
) -> tuple[int, str, list[Any]]:
    """Subscribe first, then run the demo (``extra``: more options) to its end; what the
    broker carried meanwhile."""
    seen: list[Any] = []
    async with aiomqtt.Client("127.0.0.1", broker.port) as client:
        await client.subscribe(TOPICS.all)

        async def listen() -> None:
            async for m in client.messages:
                topic = str(m.topic)
                if "/flat/" in topic or not m.payload:  # (plain text for microcontrollers)
                    continue
                seen.append((topic, json.loads(bytes(m.payload))))

        listener = asyncio.create_task(listen())
        cmd = [sys.executable, "-m", "controller.cli", "demo", "--readers", "none"]
        cmd += ["--hands", str(HANDS), "--mqtt", broker.url, "--data-dir", str(data)]
        cmd += ["--table", "t1"]  # (TOPICS: a demo on a shared broker takes an id of its own)
        cmd += ["--port", str(free_local_port()), "--seed", "11", "--json", *extra]
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        try:  # a hang guard for the whole demo, long enough for a loaded machine
            out, err = await asyncio.wait_for(proc.communicate(), DEMO_GUARD)
        except TimeoutError:
            proc.kill()
            raise AssertionError("gave up waiting for the demo to play its hands") from None
        if proc.returncode == 0:  # its last settlement may still be on its way to us
            await guarded(_until(lambda: _settlements(seen) >= HANDS), "the last settlement")
        listener.cancel()
    assert proc.returncode is not None
    return proc.returncode, (out + err).decode(errors="replace"), seen


def test_the_demo_without_readers_settles_its_hands_through_the_staff_api(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    code, output, seen = asyncio.run(_play_and_listen(mosquitto, data))
    assert code == 0, output

    settled = {p["hand_id"]: p for t, p in seen if t == TOPICS.topic("settlement") and p}
    assert len(settled) == HANDS, output

    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        hands = store.list_hands(status="finished", limit=100)
        assert len(hands) == HANDS
        for record in hands:
            events = store.load_hand(record.id).event_dicts()
            act = next(e for e in events if e["type"] == "finished_by_staff")
            assert act["by"] == "demo-staff" and act["role"] == "staff"
            published = settled[record.id]
            # the very settlement ``mjtable settle`` gives on the request the hand keeps
            assert published["lines"] == settle_data(act["request"])["lines"]
            assert published["notes"][-1] == "工作人员录入 (entered by staff demo-staff)"
    finally:
        store.close()

    # what staff entered went out in its public form: the winners laid face up, never the
    # request with the other seats' concealed hands
    events = [p["event"] for t, p in seen if t == TOPICS.topic("events")]
    acts = [e for e in events if e["type"] == "finished_by_staff"]
    assert len(acts) == HANDS
    assert all("request" not in e for e in acts)


BETWEEN = 1.5  # s: --between-hands


async def _pace_then_stop(broker: Mosquitto, data: Path) -> tuple[list[float], int, str]:
    """A demo with no end: when each settlement arrived, then SIGTERM; its exit and output."""
    arrived: list[float] = []
    loop = asyncio.get_running_loop()
    async with aiomqtt.Client("127.0.0.1", broker.port) as client:
        await client.subscribe(TOPICS.topic("settlement"))
        cmd = [sys.executable, "-m", "controller.cli", "demo", "--readers", "none"]
        cmd += ["--between-hands", str(BETWEEN), "--mqtt", broker.url, "--data-dir", str(data)]
        cmd += ["--table", "t1"]  # (TOPICS: a demo on a shared broker takes an id of its own)
        cmd += ["--port", str(free_local_port()), "--seed", "11", "--json"]
        proc = await asyncio.create_subprocess_exec(
            *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )

        async def three() -> None:
            async for m in client.messages:
                if m.payload and not m.retain:
                    arrived.append(loop.time())
                    if len(arrived) == 3:
                        return

        await guarded(three(), "three settlements")
        proc.send_signal(signal.SIGTERM)
        _out, err = await guarded(proc.communicate(), "the demo to stop")
    assert proc.returncode is not None
    return arrived, proc.returncode, err.decode(errors="replace")


def test_the_demo_without_readers_keeps_each_settlement_up_then_stops_quietly(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    arrived, code, err = asyncio.run(_pace_then_stop(mosquitto, tmp_path / "data"))
    gaps = [b - a for a, b in itertools.pairwise(arrived)]
    assert all(g >= BETWEEN for g in gaps), gaps  # a person can read it and work the console
    assert code == 0, err
    assert "Traceback" not in err and "CancelledError" not in err, err
    said = [ln for ln in err.splitlines() if "mjtable demo" in ln]
    assert said == [said[-1]] and said[-1].startswith("mjtable demo: 已停止"), err


async def _one_hand_by_hand(broker: Mosquitto, data: Path) -> tuple[dict[str, Any], int, str]:
    """``--manual --hands 1``: the hand as the demo leaves it, then its result entered as a
    person at the console would (the demo's account, the staff API); the demo's exit."""
    from controller.sim.demo_results import ACCOUNT, ResultDesk, _call

    cmd = [sys.executable, "-m", "controller.cli", "demo", "--readers", "none", "--manual"]
    cmd += ["--hands", "1", "--mqtt", broker.url, "--data-dir", str(data)]
    cmd += ["--table", "t1"]  # (TOPICS: a demo on a shared broker takes an id of its own)
    cmd += ["--port", str(free_local_port()), "--seed", "11", "--json"]
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert proc.stdout is not None
    info = json.loads(await guarded(proc.stdout.readline(), "the demo to say where to look"))
    assert info["staff"]["name"] == ACCOUNT
    api = info["web"].rstrip("/") + "/api/v1"
    login = {"name": ACCOUNT, "password": info["staff"]["password"]}
    token = (await asyncio.to_thread(_call, f"{api}/auth/login", login))["token"]

    async def hand_one() -> dict[str, Any]:
        while True:
            view = await asyncio.to_thread(_call, f"{api}/staff/hands/current", None, token)
            if view.get("hand_no") == 1:
                return dict(view)
            await asyncio.sleep(0.05)

    waiting = await guarded(hand_one(), "hand 1")
    person = ResultDesk(info["staff"]["password"], "xingguo", {}, 11, 1)
    await guarded(person.run(info["web"]), "the result entered at the console")
    _out, err = await guarded(proc.communicate(), "the demo to end after its one hand")
    assert proc.returncode is not None
    return waiting, proc.returncode, err.decode(errors="replace")


def test_the_manual_demo_leaves_each_result_to_the_console(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    waiting, code, err = asyncio.run(_one_hand_by_hand(mosquitto, data))
    assert waiting["in_progress"], waiting  # nobody but the person entered it
    assert code == 0, err
    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        (hand,) = store.list_hands(status="finished", limit=10)
        acts = [e for e in store.load_hand(hand.id).event_dicts() if "by" in e]
        assert [a["type"] for a in acts] == ["finished_by_staff"]
    finally:
        store.close()
