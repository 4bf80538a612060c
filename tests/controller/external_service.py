"""The service as its own process (``mjtable run``) against a virtual table that lives in
the test's process, configured exactly as for real hardware (board and reader URLs, zone
maps, registry). It can be killed (-9) and restarted while the table plays on."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import shutil
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.sim.virtual_players import VirtualPlayers
from controller.store import EventStore, StoredHand
from engine.settlement import Settlement
from engine.tiles import KIND_LABELS
from firmware_bridge.rfid.zones import ZoneMap
from firmware_bridge.sim import EndHand, Move, SimSettings, TableView, VirtualTable
from firmware_bridge.sim.readers import ReportMode
from tests.controller import fsync_shim
from tests.controller.pi_cpu import at_pi_speed
from tests.controller.service_helpers import FAST_SIM, finished_hands, refold

ROOT = Path(__file__).resolve().parents[2]


def hang_report(guard: float, players: VirtualPlayers, table: VirtualTable, log_path: Path) -> str:
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
    board_url: str | None = None,
    readers_on_board: bool = False,
) -> Path:
    """The service's settings for the virtual table's devices, as for real hardware (also
    bench/latency.py's). ``board_url``: the board is reached there (a rig between the
    service and the board), not at the table's own URL; ``readers_on_board``: the readers
    are wired to the board's reader line, and the service opens no reader port."""
    zones = table.config.zones
    readers = []
    board = f'url = "{board_url or table.board_url}"\n'
    if readers_on_board:
        zone_file = work / "zones-board.json"
        ZoneMap({r: zones[r] for p in table.readers for r in p.reader_ids}).save(zone_file)
        board += f'zone_map = "{zone_file}"\n'
    for port in table.readers if not readers_on_board else ():
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
{board}[mqtt]
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


@contextlib.asynccontextmanager
async def _until_still(seconds: float, progress: Callable[[], object]) -> AsyncIterator[None]:
    """TimeoutError in the block once ``progress()`` has stood still for ``seconds``: a
    hang, however long the session takes (a limit on the whole session failed sessions
    that were still playing on a busy machine, the service at a Pi's share of a core)."""
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(seconds) as limit:

        async def watch() -> None:
            last = progress()
            while True:
                await asyncio.sleep(min(1.0, seconds / 10))
                if (now := progress()) != last:
                    last = now
                    limit.reschedule(loop.time() + seconds)

        watcher = asyncio.create_task(watch())
        try:
            yield
        finally:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher


async def _until_moved(
    proc: asyncio.subprocess.Process,
    players: VirtualPlayers,
    to: int,
    seconds: float,
    now: Callable[[], bool] | None = None,
) -> None:
    """Until the players' events reach ``to``, the service ends, ``seconds`` pass, or
    ``now()`` says so."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while proc.returncode is None and players.moved < to and loop.time() < deadline:
        if now is not None and now():
            return
        await asyncio.sleep(0.005)


@dataclass
class Outcome:
    hands: list[StoredHand]
    statuses: list[str]
    players: list[Settlement]
    kills: int
    killed_mid_hand: int
    lost_events: int = 0  # by power cuts: written, not yet synced
    stalls: int = 0

    @property
    def nets(self) -> list[tuple[Any, ...]]:
        return [tuple(h.hand.net or ()) for h in self.hands]

    @property
    def hand_nos(self) -> list[int]:
        return [h.hand.hand_no for h in self.hands]


class _Mains:
    """The table's power supply. A power cut darkens the board's displays and stops the
    players (the table is off) until the service shows something again; a kill alone
    leaves the table on, and the players play on.

    ``trip_at``: the power fails as the players are about to make their move of that
    count, so no move is made on a display whose state the cut then takes back (a person
    needs far longer to move a tile than the disk to sync the move shown)."""

    def __init__(self, players: VirtualPlayers, table: VirtualTable) -> None:
        self.players, self.table = players, table
        self.on = True
        self.trip_at: int | None = None
        self.tripped = False

    async def next_moves(self, view: TableView) -> Sequence[Move]:
        if self.trip_at is not None and self.players.moved >= self.trip_at:
            self.tripped = True
        if self.tripped or not self.on:
            return ()
        return await self.players.next_moves(view)

    def cut(self) -> None:
        self.on, self.trip_at, self.tripped = False, None, False
        self.table.board.texts.clear()

    async def restore_when_shown(self, proc: asyncio.subprocess.Process) -> None:
        """Until the service shows something, or ends: restarted after the session's last
        settlement it has nothing to play and may end before its board link is up (on a
        busy machine it did, and the table waited for it for good)."""
        while not self.table.board.texts and proc.returncode is None:
            await asyncio.sleep(0.01)
        self.on = True


class _Stalls:
    """A Pi under load (an SD card's sync, another process): the service stops (SIGSTOP) for
    ``seconds`` while the table plays on, its ports filling, then reads every port's
    backlog at once, in no fixed order. Once as each hand ends (the players let the table
    collect the tiles: the moment a late reading of the last hand can stand into the
    next), and at random moments 0.3–2.5 s apart."""

    def __init__(self, rng: random.Random, seconds: tuple[float, float]) -> None:
        self.rng, self.seconds = rng, seconds
        self.proc: asyncio.subprocess.Process | None = None
        self.count = 0
        self._lock = asyncio.Lock()

    async def stall(self) -> None:
        async with self._lock:
            proc = self.proc
            if proc is None or proc.returncode is not None:
                return
            try:
                proc.send_signal(signal.SIGSTOP)
            except ProcessLookupError:
                return  # (it has ended)
            self.count += 1
            try:
                await asyncio.sleep(self.rng.uniform(*self.seconds))
            finally:
                # only the signal's error is ignored (the service ended meanwhile): a
                # cancellation of the sleep goes on (swallowed with it, the play waited
                # for good on a stall task that went on stalling a service long gone)
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGCONT)

    async def at_random(self) -> None:
        while True:
            await asyncio.sleep(self.rng.uniform(0.3, 2.5))
            await self.stall()


class _StallAtHandEnd:
    """The players' driver, with a stall of the service as each hand ends."""

    def __init__(self, driver: _Mains, stalls: _Stalls) -> None:
        self.driver, self.stalls = driver, stalls
        self._tasks: set[asyncio.Task[None]] = set()

    async def next_moves(self, view: TableView) -> Sequence[Move]:
        moves = await self.driver.next_moves(view)
        if any(isinstance(m, EndHand) for m in moves):
            task = asyncio.get_running_loop().create_task(self.stalls.stall())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return moves


def _events_stored(data: Path) -> int:
    if not (data / "mjtable.db").exists():
        return 0
    with contextlib.closing(sqlite3.connect(data / "mjtable.db")) as db:
        try:
            return int(db.execute("SELECT count(*) FROM events").fetchone()[0])
        except sqlite3.OperationalError:  # cut before the schema was synced
            return 0


def _cut_power(data: Path, synced: Path) -> int:
    """Leave the database as a power cut would: as of its last fsync (the shim's copy).
    Returns how many stored events that lost."""
    before = _events_stored(data)
    for name in ("mjtable.db", "mjtable.db-wal", "mjtable.db-shm"):
        (data / name).unlink(missing_ok=True)
    for copy in synced.iterdir():
        if not copy.name.startswith("."):
            shutil.copyfile(copy, data / copy.name)
    return before - _events_stored(data)


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
    power_cut: Callable[[Path], None] | None = None,
    cut_now: Callable[[], bool] | None = None,
    kill_after: tuple[float, float] = (1.5, 4.0),
    think: float = 0.0,
    service_env: Mapping[str, str] | None = None,
    report: ReportMode = "scan",
    stalls: tuple[float, float] | None = None,
    pi: str | None = None,
) -> Outcome:
    """Run ``mjtable run`` until the session has ``hands`` hands, killing it ``kills``
    times at random moments: each after a random number (1–80) of the players' events
    since its start or a random 1.5–4 s (``kill_after``), whichever comes first. Counted in
    events, the kills land mid-deal, mid-turn or mid-claim however fast the service plays
    (and the session cannot end before them); counted in seconds, some land between hands.

    ``power_cut``: each kill is a power cut too, as the players are about to make a move
    (or when ``cut_now()``). The service runs with the fsync shim, and after the kill the
    database goes back to its last fsync (what was written but not synced is lost); then
    ``power_cut(data)`` may look at it before the restart.

    ``guard``: the session hangs once neither the players moved nor the centre display
    changed for this long (``_until_still``). ``report``: the readers' report mode.
    ``stalls``: the service is stopped for a random time in this range as each hand ends
    and every 0.3–2.5 s (``_Stalls``). ``pi``: the service (only) at that Pi's CPU speed
    (``pi_cpu.PI_SHARES``)."""
    rng = rng or random.Random(0)
    work.mkdir(parents=True, exist_ok=True)
    fast = dict(FAST_SIM)
    if scan_interval is not None:
        fast["scan_interval"] = scan_interval
    sim = SimSettings(
        seed=seed,
        kinds=KIND_LABELS,
        registry_path=work / "tags.json",
        misread_rate=misread_rate,
        report=report,
        **fast,
    )
    table = VirtualTable(sim)
    players = VirtualPlayers(
        ruleset, table.tiles.uids, zones=sim.zones, retry_after=1.0, think=think
    )
    mains = _Mains(players, table)
    table.driver = mains
    stalling = None if stalls is None else _Stalls(rng, stalls)
    if stalling is not None:
        table.driver = _StallAtHandEnd(mains, stalling)
    killed = mid_hand = lost = 0
    proc: asyncio.subprocess.Process | None = None
    background: asyncio.Task[None] | None = None
    async with table, contextlib.AsyncExitStack() as stack:
        config = table_toml(table, work, data, mqtt_url, ruleset, grace=grace)
        command = [sys.executable, "-m", "controller.cli", "run", "--config", str(config)]
        command += ["--seed", str(seed), "--hands", str(hands)]
        if (quota := stack.enter_context(at_pi_speed(pi))) is not None:
            command = quota.command(command)
        env = os.environ | {"PYTHONPATH": str(ROOT)}
        synced = work / "synced"
        if power_cut is not None:
            synced.mkdir(exist_ok=True)
            env |= fsync_shim.environment(snapshot=synced)
        env |= service_env or {}
        log_path = work / "service.log"
        with log_path.open("ab") as log:
            try:
                # progress: the players' moves, and what the service shows them
                async with _until_still(guard, lambda: (players.moved, table.board.texts.get(0))):
                    while True:
                        proc = await asyncio.create_subprocess_exec(
                            *command, cwd=work, env=env, stdout=log, stderr=log
                        )
                        if stalling is not None:
                            stalling.proc = proc
                            if background is None:
                                background = asyncio.create_task(stalling.at_random())
                        if not mains.on:
                            await mains.restore_when_shown(proc)
                        if killed < kills:
                            to = players.moved + rng.randint(1, 80)
                            seconds = rng.uniform(*kill_after)
                            if power_cut is None:
                                await _until_moved(proc, players, to, seconds, cut_now)
                            else:
                                mains.trip_at = to

                                def tripped() -> bool:
                                    return mains.tripped or (cut_now is not None and cut_now())

                                await _until_moved(proc, players, 1 << 30, seconds, tripped)
                            if proc.returncode is None:
                                proc.send_signal(signal.SIGKILL)
                                await proc.wait()
                                killed += 1
                                if power_cut is not None:
                                    mains.cut()
                                    lost += _cut_power(data, synced)
                                    power_cut(data)
                                shadow = players.shadow
                                mid_hand += shadow is not None and not shadow.state.finished
                                continue
                        code = await proc.wait()
                        assert code == 0, log_path.read_text()[-3000:]
                        break
            except TimeoutError:
                raise AssertionError(hang_report(guard, players, table, log_path)) from None
            finally:
                if background is not None:
                    background.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await background
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
        lost_events=lost,
        stalls=0 if stalling is None else stalling.count,
    )
