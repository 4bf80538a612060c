"""A real Mosquitto with the parlour's deployed config (deploy/mosquitto/mjtable.conf):
accounts, the acl_file `mjtable broker-acl` writes, and the WebSocket listener, on free
localhost ports."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

from controller.mqtt.broker_acl import render_acl
from controller.process.local_ports import free_local_port
from tests.controller.mosquitto import Mosquitto, mosquitto_passwd_binary

DEPLOY_CONF = Path(__file__).parents[2] / "deploy" / "mosquitto" / "mjtable.conf"


def password(user: str) -> str:
    return f"pw of {user} 密"


def parlour_broker(
    factory: Callable[..., Mosquitto],
    workdir: Path,
    *,
    parlour: str,
    tables: Iterable[str],
    users: Iterable[str],
) -> tuple[Mosquitto, int]:
    """The started broker and its WebSocket port; each user's password is ``password(user)``."""
    passwd = workdir / "mjtable.passwd"
    for i, user in enumerate(users):
        create = ["-c"] if i == 0 else []
        subprocess.run(
            [mosquitto_passwd_binary(), *create, "-b", str(passwd), user, password(user)],
            check=True,
        )
    passwd.chmod(0o600)
    (workdir / "mjtable.acl").write_text(render_acl(parlour, tables))
    broker = factory(start=False)
    ws_port = free_local_port()
    # The deployed file as is, but for the paths and the ports; the test's own user and log.
    conf = DEPLOY_CONF.read_text().replace("/etc/mosquitto/", f"{workdir}/")
    conf = conf.replace("listener 1883", f"listener {broker.port} 127.0.0.1")
    conf = conf.replace("listener 9001", f"listener {ws_port} 127.0.0.1")
    kept = [
        line
        for line in broker.conf.read_text().splitlines()
        if line.split(" ", 1)[0] in ("user", "log_dest", "log_type", "persistence")
    ]
    broker.conf.write_text(conf + "\n".join(kept) + "\n")
    broker.start()
    return broker, ws_port
