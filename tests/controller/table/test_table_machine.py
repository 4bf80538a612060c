"""The service (``mjtable run``, its own process) on a table without readers, with a real
Mosquitto, driven by a hypothesis state machine as staff and the broker's bad days would:
hands started by the dice and finished by staff, adjustments, penalties, undos, voids,
sessions closed, members seated between hands, acts sent twice with one
``Idempotency-Key``, clean restarts, kill -9,
the broker gone and back, a full disk (a real tmpfs) that clears. After every step every
retained public topic and ``/api/v1/public/state`` show what the store holds (the
projections recomputed here from its events), no act is stored twice, and nothing
concealed is on a public topic."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import aiomqtt
import httpx
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from controller.mqtt.flat import points
from controller.process.local_ports import free_local_port
from controller.store import EventStore, StoredHand
from controller.store.members import Members
from controller.store.owners import OwnerAccounts, StaffPolicy
from controller.table.publication import jing_payload
from controller.table.seating import seats_payload
from controller.web.live import SECRET_KEYS
from controller.web.passwords import hash_password
from engine.round.events import STAFF_ACT_TYPES, Event, HandStarted, event_from_dict
from engine.round.fold import fold
from engine.round.projection import public_view
from engine.round.staff import result_of, session_totals
from engine.settlement.ledger import plain
from engine.simulation import play_hand
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import retained_state
from tests.controller.process.test_disk_full import fill

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "long enough password"
GUARD = 45.0  # seconds a wait may take on a loaded machine: a hang guard, not a measure
RESTARTS = 1  # per run, the opening's kill included: each costs a service start
SCREENS = ("scores", "hand", "jing", "settlement")
DISK = 24 << 20  # the data directory's tmpfs, filled by the full-disk step
SEATS = "/api/v1/members/seats/"  # (a PUT)


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False))


def _until(check: Callable[[], str | None], what: str) -> None:
    """Until ``check()`` finds nothing wrong (None); its last complaint if it never does."""
    deadline = time.monotonic() + GUARD
    while True:
        problem = check()
        if problem is None:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: {problem}")
        time.sleep(0.05)


class Table:
    """``mjtable run`` on a reader-less virtual table, its web app, its store."""

    def __init__(self, work: Path, broker: Mosquitto) -> None:
        self.work, self.broker = work, broker
        data = self.disk = work / "data"
        data.mkdir(parents=True)
        mount = ["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(data)]
        subprocess.run(mount, check=True)
        self.url = f"sqlite:///{data / 'mjtable.db'}"
        self.port = free_local_port()
        self.config = work / "table.toml"
        self.config.write_text(
            f'data_dir = "{data}"\n[ruleset]\nid = "xingguo"\n'
            '[hardware]\nvirtual = true\nreaders = "none"\n'
            f'[mqtt]\nembedded = false\nurl = "{broker.url}"\n'
            "reconnect_min = 0.05\nreconnect_max = 0.3\n"
            f'[web]\nenabled = true\nhost = "127.0.0.1"\nport = {self.port}\n'
            "[store]\nmin_free_mb = 1\n"
            '[metrics]\nenabled = false\n[log]\nformat = "json"\n'
        )
        store = EventStore.open(self.url)
        owners = OwnerAccounts(store)
        owners.add("boss", hash_password(PASSWORD))
        owners.set_staff_policy(StaffPolicy(false_win_amount=5, xianggong_amount=3), "boss")
        registry = Members(store.engine, table_id="t1")
        self.members = [registry.add(name).member_id for name in ("王五", "<b>李四</b>")]
        store.close()
        self.proc: subprocess.Popen[bytes] | None = None
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=30.0)
        self.token = ""

    def start(self) -> None:
        command = [sys.executable, "-m", "controller.cli", "run", "--config", str(self.config)]
        env = os.environ | {"PYTHONPATH": str(ROOT)}
        with (self.work / "service.log").open("ab") as log:
            self.proc = subprocess.Popen(command, env=env, stdout=log, stderr=log)
        _until(self._ready, "the service to take acts")

    def _ready(self) -> str | None:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"the service exited {self.proc.returncode}: {self.log_tail()}")
        try:
            if not self.token:
                r = self.http.post(
                    "/api/v1/auth/login", json={"name": "boss", "password": PASSWORD}
                )
                if r.status_code != 200:
                    return f"login {r.status_code}"
                self.token = r.json()["token"]
            look = self.look()
        except httpx.HTTPError as err:
            return repr(err)
        return None if look.get("hand_id") else "no hand yet"

    def stop(self, how: signal.Signals = signal.SIGTERM) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(how)
            self.proc.wait(timeout=GUARD)
        self.proc, self.token = None, ""

    def log_tail(self) -> str:
        path = self.work / "service.log"
        lines = path.read_text(errors="replace").splitlines() if path.exists() else []
        return "\n".join(lines[-30:])

    def call(
        self, path: str, body: dict[str, Any] | None = None, key: str | None = None
    ) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.token}"}
        if key is not None:
            headers["Idempotency-Key"] = key
        if body is None:
            return self.http.get(path, headers=headers)
        send = self.http.put if path.startswith(SEATS) else self.http.post
        return send(path, json=body, headers=headers)

    def look(self) -> dict[str, Any]:
        r = self.call("/api/v1/staff/hands/current")
        assert r.status_code == 200, r.text
        found: dict[str, Any] = r.json()
        return found


# --- what the store holds, recomputed here ---------------------------------------------


def _events(stored: StoredHand) -> list[Event]:
    return [event_from_dict(d) for d in stored.event_dicts()]


def expected_screens(store: EventStore) -> dict[str, Any]:
    """The retained screens as the store's events make them."""
    hands = sorted(store.list_hands(limit=10_000), key=lambda h: h.table_seq or 0)
    session = store.open_session()
    out: dict[str, Any] = {"seats": seats_payload(Members(store.engine, table_id="t1").seating())}
    finished = [h for h in hands if h.status == "finished"]
    if finished:
        last = store.load_hand(finished[-1].id)
        out["settlement"] = _json(dict(last.settlement or {}) | {"hand_id": last.hand.id})
    if session is None:
        return out
    played = [h for h in hands if h.session_id == session.id and h.status != "aborted"]
    log: list[Event] = []
    for record in played:
        log += _events(store.load_hand(record.id))
    totals = [plain(t) for t in session_totals(log)]
    if played:
        current = store.load_hand(played[-1].id)
        state = fold(_events(current))
        hand_id = current.hand.id
        out["hand"] = _json(public_view(state) | {"hand_id": hand_id})
        out["jing"] = _json(jing_payload(hand_id, state))
        out["scores"] = {"session_id": session.id, "hand_no": state.started.hand_no}
    out.setdefault("scores", {"session_id": session.id, "hand_no": 0})
    out["scores"]["totals"] = _json(totals)
    for seat, total in enumerate(totals):
        out[f"flat/seat/{seat}/total"] = points(total)
    return out


def acts_stored(store: EventStore) -> int:
    return sum(
        1
        for record in store.list_hands(limit=10_000)
        for event in store.load_hand(record.id).event_dicts()
        if event["type"] in STAFF_ACT_TYPES
    )


def concealed_keys(value: Any, path: str = "") -> list[str]:
    """Fields of a public payload that name what is concealed (as the live hub's guard)."""
    found: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k in SECRET_KEYS or k == "request":
                found.append(f"{path}.{k}")
            found += concealed_keys(v, f"{path}.{k}")
    elif isinstance(value, list):
        for v in value:
            found += concealed_keys(v, f"{path}[]")
    return found


# --- the machine -----------------------------------------------------------------------


class StaffAndBadDays(RuleBasedStateMachine):
    work: Path
    broker: Mosquitto
    done: ClassVar[Counter[str]] = Counter()  # what the runs did, across examples (not vacuous)

    def __init__(self) -> None:
        super().__init__()
        self.table = Table(self.work / uuid.uuid4().hex[:8], self.broker)
        self.acts = 0  # acts the service said it did (a repeat of a key counted once)
        self.seat_acts = 0  # seat acts the service said it stored
        self.last: tuple[str, dict[str, Any], str, Any] | None = None  # path, body, key, answer
        self.restarts = 0
        self.rng = random.Random(0)

    @initialize(seats=st.permutations(range(4)).map(lambda p: p[:2]), points_=st.integers(1, 30))
    def start(self, seats: tuple[int, ...], points_: int) -> None:
        """The service started, staff move points on its first hand at once (before any
        settlement: a reader-less table's first screens of totals), the act is sent
        again with its key, and the service is killed (-9) and started again; the disk
        fills, the hand is finished, a member sits down and the session closes; then the
        rules, in any order."""
        self.table.start()
        self.adjust(seats, points_)
        self.screens_show_the_store()  # (each step of the opening checked as a rule is)
        self.the_same_act_again()  # a second tap
        self.screens_show_the_store()
        self.restart(kill=True)  # and the power goes
        self.screens_show_the_store()
        self.disk_full()
        self.screens_show_the_store()
        self.finish(0)
        self.screens_show_the_store()
        self.take_seat(2, 0)  # between hands: a member sits down
        self.screens_show_the_store()
        self.close_session()
        self.the_same_act_again()

    def teardown(self) -> None:
        self.table.stop()
        self.table.http.close()
        subprocess.run(["umount", "-l", str(self.table.disk)], check=False)

    # --- what staff do -----------------------------------------------------------------

    def _act(self, path: str, body: dict[str, Any], *, hand_id: bool = True) -> None:
        view = self.table.look()
        sent = body | {"seen": view["seen"]}
        if hand_id:
            sent["hand_id"] = view["hand_id"]
        key = uuid.uuid4().hex
        r = self.table.call(path, sent, key)
        assert r.status_code in (200, 403, 404, 409, 422), r.text
        name = "void" if path.endswith("/void") else path.rsplit("/", 1)[-1]
        self.done[f"{name} {r.status_code}"] += 1
        if r.status_code == 200:
            self.acts += 1
            self.last = (path, sent, key, r.json())

    @rule()
    def dice(self) -> None:
        """The dealer's roll: the next hand after a settled one, else whoever is due."""
        view = self.table.look()
        r = self.table.call(
            "/api/v1/staff/dice", {"hand_id": view["hand_id"], "seen": view["seen"]}
        )
        assert r.status_code in (200, 409), r.text

    @rule(seed=st.integers(0, 1000))
    def finish(self, seed: int) -> None:
        """The hand's result as played by bots, entered by hand (seats, 精 and all)."""
        view = self.table.look()
        if not view["in_progress"]:
            return
        store = EventStore.open(self.table.url, migrate=False)
        try:
            first = store.load_hand(view["hand_id"]).event_dicts()[0]
        finally:
            store.close()
        started = event_from_dict(first)
        assert isinstance(started, HandStarted)
        state, _ = play_hand(started, random.Random(seed))
        self._act("/api/v1/staff/hands/current/finish", result_of(state) | {"reason": "bots"})

    @rule(seats=st.permutations(range(4)).map(lambda p: p[:2]), points_=st.integers(1, 30))
    def adjust(self, seats: tuple[int, ...], points_: int) -> None:
        body = {"from_seat": seats[0], "to_seat": seats[1], "points": points_, "reason": "adj"}
        self._act("/api/v1/staff/adjustments", body)

    @rule(seat=st.integers(0, 3), kind=st.sampled_from(["false_win", "xianggong"]))
    def penalty(self, seat: int, kind: str) -> None:
        body = {"seat": seat, "penalty": kind, "reason": "pen"}
        self._act("/api/v1/staff/hands/current/penalties", body)

    @rule(seat=st.integers(0, 3), member=st.sampled_from([0, 1, None]))
    def take_seat(self, seat: int, member: int | None) -> None:
        """Staff seat a member (or leave the seat to a guest): between hands only."""
        member_id = None if member is None else self.table.members[member]
        path, body, key = f"{SEATS}{seat}", {"member_id": member_id}, uuid.uuid4().hex
        r = self.table.call(path, body, key)
        assert r.status_code in (200, 409), r.text
        self.done[f"seat {r.status_code}"] += 1
        if r.status_code == 200:
            self.seat_acts += len(r.json()["acts"])
            self.last = (path, body, key, r.json())

    @rule()
    def undo(self) -> None:
        self._act("/api/v1/staff/hands/current/undo", {"reason": ""})

    @rule()
    def void(self) -> None:
        view = self.table.look()
        path = f"/api/v1/staff/hands/{view['hand_id']}/void"
        self._act(path, {"reason": "void"}, hand_id=False)

    @rule()
    def close_session(self) -> None:
        """Staff close the session after its last hand: the cash-out."""
        path, body, key = "/api/v1/staff/session/close", {"reason": "closing"}, uuid.uuid4().hex
        r = self.table.call(path, body, key)
        assert r.status_code in (200, 409, 422), r.text
        self.done[f"close {r.status_code}"] += 1
        if r.status_code == 200:
            self.acts += 1
            self.last = (path, body, key, r.json())

    @rule()
    def the_same_act_again(self) -> None:
        """A second tap, a retry after a lost answer: the same key and body."""
        if self.last is None:  # (not a precondition: what the service did is not the data's)
            return
        path, sent, key, answer = self.last
        r = self.table.call(path, sent, key)
        assert r.status_code == 200, r.text
        assert r.json() == answer
        self.done["again"] += 1

    # --- bad days ----------------------------------------------------------------------

    @precondition(lambda self: self.restarts < RESTARTS)
    @rule(kill=st.booleans())
    def restart(self, kill: bool) -> None:
        self.restarts += 1
        self.table.stop(signal.SIGKILL if kill else signal.SIGTERM)
        self.table.start()
        self.done["kill" if kill else "restart"] += 1

    @rule()
    def broker_drop(self) -> None:
        """The broker restarts without persistence: it forgets every retained value."""
        self.broker.stop()
        self.broker.start()
        self.done["broker"] += 1

    @rule()
    def disk_full(self) -> None:
        """The disk fills while staff act, then clears: what was not stored is not shown,
        and the table goes on."""
        filler = fill(self.table.disk)
        try:
            view = self.table.look()
            body = {"from_seat": 0, "to_seat": 1, "points": 1, "reason": "disk full"}
            sent = body | {"hand_id": view["hand_id"], "seen": view["seen"]}
            r = self.table.call("/api/v1/staff/adjustments", sent, uuid.uuid4().hex)
            self.done[f"disk full {r.status_code}"] += 1
            if r.status_code == 200:  # (SQLite had the pages already)
                self.acts += 1
        finally:
            filler.unlink()
        self.done["disk"] += 1

    # --- what must hold after every step ------------------------------------------------

    @invariant()
    def screens_show_the_store(self) -> None:
        if self.table.proc is None:
            return
        store = EventStore.open(self.table.url, migrate=False)
        try:
            want = expected_screens(store)
            stored_acts = acts_stored(store)
            seat_acts = len(Members(store.engine, table_id="t1").acts(limit=10_000))
        finally:
            store.close()
        assert stored_acts == self.acts, f"{stored_acts} acts stored, {self.acts} done"
        assert seat_acts == self.seat_acts, f"{seat_acts} seat acts stored, {self.seat_acts} done"
        shown: dict[str, Any] = {}

        def retained() -> str | None:
            shown.clear()
            try:
                shown.update(asyncio.run(retained_state(self.broker.port)))
            except AssertionError as err:  # (the publisher says it again meanwhile)
                return str(err)
            except aiomqtt.MqttError as err:  # (the broker starting again)
                return repr(err)
            wrong = {k: (shown.get(k), v) for k, v in want.items() if shown.get(k) != v}
            return None if not wrong else f"(retained, store) differ: {wrong}"

        _until(retained, "the retained topics to show the store")
        for name, payload in shown.items():
            assert not concealed_keys(payload), (name, concealed_keys(payload))
        for seat in shown.get("hand", {}).get("seats", []):
            assert isinstance(seat["tiles"], int)  # how many, never which

        def live() -> str | None:
            state = self.table.http.get("/api/v1/public/state").json()
            wrong = {k: (state.get(k), want[k]) for k in ("scores", "settlement") if k in want} | {
                "hand_id": (state.get("hand", {}).get("hand_id"), want["hand"]["hand_id"])
            }
            wrong = {k: v for k, v in wrong.items() if v[0] != v[1]}
            return None if not wrong else f"(live, store) differ: {wrong}"

        if "hand" in want:
            _until(live, "/api/v1/public/state to show the store")


@pytest.mark.timeout(600)
def test_every_public_screen_shows_the_store_through_staff_acts_restarts_and_broker_drops(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    StaffAndBadDays.work = tmp_path
    StaffAndBadDays.broker = mosquitto
    run_state_machine_as_test(
        StaffAndBadDays,
        settings=settings(
            max_examples=2,
            stateful_step_count=8,
            deadline=None,
            derandomize=False,  # (the simplest runs are one rule over and over)
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        ),
    )
    done = StaffAndBadDays.done
    print("the runs did:", dict(done))
    assert done["adjustments 200"] and done["again"] and done["kill"], done
    assert done["disk"] and done["close 200"] and done["seat 200"], done
