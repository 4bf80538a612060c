"""``mjtable hub`` as systemd runs it: READY=1 once subscribed, hands stored and acked, the
owners' web app listing every table; SIGTERM stops it cleanly."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import aiomqtt
import httpx
import pytest

from controller.mqtt import Topics, encode
from controller.process.local_ports import free_local_port
from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.table.handlog import build_handlog, parse_ack
from controller.web.passwords import hash_password
from tests.controller.hub.hands import played_hands, record_hand
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt.test_mqtt_security import make_ca
from tests.controller.mqtt_helpers import guarded

pytestmark = pytest.mark.timeout(180)
GUARD = 60.0  # seconds: a hang guard only


def mjtable() -> str:
    return str(Path(sys.executable).with_name("mjtable"))


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_hub_command(mosquitto: Mosquitto, pg_url: str, tmp_path: Path, tls: bool) -> None:
    """Over HTTPS (uvicorn's own TLS, --tls-cert/--tls-key) the login cookie is Secure."""
    https: list[str] = []
    verify: bool | ssl.SSLContext = True
    if tls:
        certs = tmp_path / "certs"
        certs.mkdir()
        ca, cert, key = make_ca(certs)
        https = ["--tls-cert", str(cert), "--tls-key", str(key)]
        verify = ssl.create_default_context(cafile=str(ca))
    # An owner in the hub's database, so that the web app can be asked for the tables.
    hub_store = EventStore.open(pg_url)
    OwnerAccounts(hub_store).add("boss", hash_password("a long enough secret"))
    hub_store.close()
    table_store = EventStore.open(f"sqlite:///{tmp_path / 'table.db'}")
    payloads = {}
    for i, table in enumerate(("t1", "t2")):
        sid = table_store.start_session(ruleset="xingguo", parlour="p1", table_id=table)
        hid = record_hand(table_store, played_hands(1, seed=i)[0], session_id=sid)
        payloads[table] = build_handlog(table_store.load_hand(hid), parlour="p1", table=table)
    table_store.close()

    notify = tmp_path / "notify"
    web_port = free_local_port()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as systemd:
        systemd.bind(str(notify))
        systemd.settimeout(GUARD)
        # the settings as ``run`` takes them: a file, its [hub] section, MJTABLE_HUB__* over it
        config = tmp_path / "hub.toml"
        config.write_text(
            f'parlour = "p1"\ndata_dir = "{tmp_path / "hub"}"\n[hub]\nmqtt = "{mosquitto.url}"\n'
            f'host = "127.0.0.1"\nport = 1\n',
            encoding="utf-8",
        )
        env = os.environ | {
            "NOTIFY_SOCKET": str(notify),
            "MJTABLE_HUB__STORE": pg_url,
            "MJTABLE_HUB__PORT": str(web_port),
        }
        # its output goes to a file: a pipe nobody reads until the end would block the hub
        # once it had written a pipe's worth (64 KiB), before it could say READY
        out_path = tmp_path / "hub.out"
        out = out_path.open("wb")
        proc = subprocess.Popen(
            [
                mjtable(),
                "hub",
                "--config",
                str(config),
                *https,
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            try:
                ready = systemd.recv(4096)
            except TimeoutError:
                said = out_path.read_text(errors="replace")[-3000:]
                raise AssertionError(f"no READY in {GUARD:.0f} s; the hub wrote:\n{said}") from None
            assert ready == b"READY=1\nSTATUS=subscribed to mahjong/p1/+/handlog"

            async def tables_send() -> list[str]:
                acked = []
                async with aiomqtt.Client("127.0.0.1", mosquitto.port) as c:
                    online = b'{"state": "online"}'
                    await c.publish(Topics("p1", "t1").status, online, qos=1, retain=True)
                    for table in payloads:
                        await c.subscribe(Topics("p1", table).prefix + "handlog_ack", qos=1)
                    for table, payload in payloads.items():
                        await c.publish(
                            Topics("p1", table).topic("handlog"), encode(payload), qos=1
                        )
                    async for m in c.messages:
                        assert isinstance(m.payload, bytes)
                        acked.append(parse_ack(m.payload))
                        if len(acked) == len(payloads):
                            return acked
                return acked

            acked = asyncio.run(guarded(tables_send(), "the acks"))
            assert sorted(acked) == sorted(p["hand_id"] for p in payloads.values())

            base = f"{'https' if tls else 'http'}://127.0.0.1:{web_port}"
            deadline = time.monotonic() + GUARD
            while True:  # the web server may still be binding
                try:
                    login = httpx.post(
                        f"{base}/api/v1/auth/login",
                        json={"name": "boss", "password": "a long enough secret"},
                        verify=verify,
                    )
                    break
                except httpx.ConnectError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            assert login.status_code == 200, login.text
            assert ("secure" in login.headers["set-cookie"].lower()) == tls
            token = login.json()["token"]
            tables = httpx.get(
                f"{base}/api/v1/tables",
                headers={"Authorization": f"Bearer {token}"},
                verify=verify,
            ).json()
            counts = {t["table_id"]: t["hands"] for t in tables}
            # No phantom "hub" table; t1 said it is online (its retained status), t2 nothing.
            assert counts == {"t1": 1, "t2": 1}, json.dumps(tables)
            status = {t["table_id"]: t["status"] for t in tables}
            assert status == {"t1": "online", "t2": "unknown"}, json.dumps(tables)

            proc.send_signal(signal.SIGTERM)
            assert proc.wait(GUARD) == 0
            assert systemd.recv(4096) == b"STOPPING=1"
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(GUARD)
            out.close()
        output = out_path.read_text(errors="replace")
        assert "Traceback" not in output, output
        assert "hands stored" in output  # at info level, each stored batch
