"""The service as its own process (``mjtable run``) against a virtual table that lives in
the test's process, configured exactly as for real hardware (board and reader URLs, zone
maps, registry). It can be killed (-9) and restarted while the table plays on."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.runtime import KINDS
from controller.store import EventStore, StoredHand
from controller.virtual_players import VirtualPlayers
from engine.settlement import Settlement
from firmware_bridge.rfid.zones import ZoneMap
from firmware_bridge.sim import SimConfig, VirtualTable
from tests.controller.service_helpers import FAST_SIM, finished_hands, refold

ROOT = Path(__file__).resolve().parents[2]


def _hung(guard: float, players: VirtualPlayers, table: VirtualTable, log_path: Path) -> str:
    """What a hang leaves to go on: where the players' own round stands, what the centre
    display shows them, and the end of the service's log (its alerts say what it refused
    or could not place)."""
    shadow = players.shadow
    if shadow is None:
        where = "the players never saw a wall"
    else:
        st = shadow.state
        where = (
            f"the players are at hand {st.started.hand_no}, {st.phase.value}, seat {st.turn}, "
            f"event {shadow.events}, waiting for the display at {shadow.waiting_for}, "
            f"for the roll {shadow.awaiting_roll}; {players.stalls} presses repeated "
            f"({shadow.sent_buttons}); the display shows {table.board.texts.get(0)!r}"
        )
    tail = log_path.read_text(errors="replace").splitlines()[-40:]
    return f"the table hung for {guard:.0f} s: {where}; the service's log ends:\n" + "\n".join(tail)


def table_toml(
    table: VirtualTable,
    work: Path,
    data: Path,
    mqtt_url: str,
    ruleset: str,
    *,
    log_level: str = "info",
    grace: float | None = None,
) -> Path:
    """The service's settings for the virtual table's devices, as for real hardware (also
    bench/latency.py's)."""
    zones = table.config.zones
    readers = []
    for port in table.readers:
        zone_file = work / f"zones-{port.reader_ids[0]}.json"
        ZoneMap({r: zones[r] for r in port.reader_ids}).save(zone_file)
        readers.append(
            f'[[hardware.readers]]\nurl = "{port.port.url}"\ncodec = "{port.codec}"\n'
            f'zone_map = "{zone_file}"\n'
        )
    text = f"""
data_dir = "{data}"
[ruleset]
id = "{ruleset}"
[hardware]
virtual = false
registry = "{table.config.registry_path}"
[hardware.board]
url = "{table.board_url}"
[mqtt]
embedded = false
url = "{mqtt_url}"
reconnect_min = 0.05
reconnect_max = 0.5
[web]
enabled = false
[metrics]
enabled = false
[log]
level = "{log_level}"
format = "json"
"""
    if grace is not None:
        text += f"[tracker]\ngrace = {grace}\n"
    path = work / "table.toml"
    path.write_text(text + "\n".join(readers))
    return path


async def _until_moved(
    proc: asyncio.subprocess.Process, players: VirtualPlayers, to: int, seconds: float
) -> None:
    """Until the players' events reach ``to``, the service ends, or ``seconds`` pass."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while proc.returncode is None and players.moved < to and loop.time() < deadline:
        await asyncio.sleep(0.005)


@dataclass
class Outcome:
    hands: list[StoredHand]
    statuses: list[str]
    players: list[Settlement]
    kills: int
    killed_mid_hand: int

    @property
    def nets(self) -> list[tuple[Any, ...]]:
        return [tuple(h.hand.net or ()) for h in self.hands]

    @property
    def hand_nos(self) -> list[int]:
        return [h.hand.hand_no for h in self.hands]


async def play(
    work: Path,
    data: Path,
    mqtt_url: str,
    *,
    ruleset: str,
    hands: int,
    seed: int,
    kills: int = 0,
    rng: random.Random | None = None,
    guard: float = 300.0,
    scan_interval: float | None = None,
    misread_rate: float = 0.0,
    grace: float | None = None,
) -> Outcome:
    """Run ``mjtable run`` until the session has ``hands`` hands, killing it ``kills``
    times at random moments: each after a random number (1–80) of the players' events
    since its start or a random 1.5–4 s, whichever comes first. Counted in events, the
    kills land mid-deal, mid-turn or mid-claim however fast the service plays (and the
    session cannot end before them); counted in seconds, some land between hands."""
    rng = rng or random.Random(0)
    work.mkdir(parents=True, exist_ok=True)
    fast = dict(FAST_SIM)
    if scan_interval is not None:
        fast["scan_interval"] = scan_interval
    sim = SimConfig(
        seed=seed,
        kinds=KINDS,
        registry_path=work / "tags.json",
        misread_rate=misread_rate,
        **fast,
    )
    table = VirtualTable(sim)
    players = VirtualPlayers(ruleset, table.tiles.uids, zones=sim.zones, retry_after=1.0)
    table.driver = players
    killed = mid_hand = 0
    proc: asyncio.subprocess.Process | None = None
    async with table:
        config = table_toml(table, work, data, mqtt_url, ruleset, grace=grace)
        command = [sys.executable, "-m", "controller.cli", "run", "--config", str(config)]
        command += ["--seed", str(seed), "--hands", str(hands)]
        env = os.environ | {"PYTHONPATH": str(ROOT)}
        log_path = work / "service.log"
        with log_path.open("ab") as log:
            try:
                async with asyncio.timeout(guard):
                    while True:
                        proc = await asyncio.create_subprocess_exec(
                            *command, cwd=work, env=env, stdout=log, stderr=log
                        )
                        if killed < kills:
                            to = players.moved + rng.randint(1, 80)
                            await _until_moved(proc, players, to, rng.uniform(1.5, 4.0))
                            if proc.returncode is None:
                                proc.send_signal(signal.SIGKILL)
                                await proc.wait()
                                killed += 1
                                shadow = players.shadow
                                mid_hand += shadow is not None and not shadow.state.finished
                                continue
                        code = await proc.wait()
                        assert code == 0, log_path.read_text()[-3000:]
                        break
            except TimeoutError:
                raise AssertionError(_hung(guard, players, table, log_path)) from None
            finally:
                if proc is not None and proc.returncode is None:
                    proc.kill()
                    await proc.wait()
    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        stored = finished_hands(store)
        everything = store.list_hands(limit=100_000)
    finally:
        store.close()
    for hand in stored:
        refold(hand)
    return Outcome(
        hands=stored,
        statuses=sorted(h.status for h in everything),
        players=[s.settlement for s in players.finished if s.settlement is not None],
        kills=killed,
        killed_mid_hand=mid_hand,
    )
