"""``mjtable run`` with SQLite, GPIO off and the web app on imports only what that table
uses: a Pi's RSS budget is mostly modules. The service plays a hand as
its own process (``python -X importtime``) against a virtual table in the test's process
configured as real hardware, and the modules it imported are checked, as
``test_cli_startup`` does for the engine commands. The RSS itself is measured by
``bench/latency.py``; this checks the causes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from controller.process.local_ports import free_local_port
from tests.controller.external_service import play
from tests.controller.mosquitto import Mosquitto

# module prefix -> why a table with SQLite, no GPIO and the web app has no use for it
NOT_IMPORTED = {
    "sqlalchemy.dialects.postgresql": "the hub's database (2 MB)",
    "psycopg": "the hub's driver",
    "alembic": "migrations run in a child process (controller.store.schema_head)",
    # (sqlalchemy.ext.asyncio would import it too)
    "sqlalchemy.orm": "the store is SQLAlchemy Core (controller/store/models.py): 6 MB",
    "amqtt": "the demo's embedded broker",
    "gpiozero": "[gpio] is off",
    # (-X importtime lists structlog's failed ``import rich`` too: rich.console is the load)
    "rich.console": "structlog's pretty tracebacks (controller/process/logs.py); ours are plain",
    "pygments": "rich's syntax highlighting",
    "websockets": "uvicorn's WebSocket protocol: the web app has no WebSocket route",
    "wsproto": "the same",
    # (a table's side of the hub, controller.hub.handlog_sync and its kin, is its own)
    "controller.hub.service": "the parlour hub's service",
    "controller.hub.ingest": "the same",
    "controller.hub.queries": "the same",
    "controller.hub.restore": "the same",
    # (listed as a failed import too: pydantic.v1.main is the load)
    "pydantic.v1.main": "FastAPI's check for pydantic v1 models (controller/web/__init__.py)",
    "controller.sim": "the virtual table's bots, the demo's staff, the reader trials",
    "engine.bots": "the same",
    "firmware_bridge.sim": "the virtual table",
    "controller.voice": "[voice] is off (the default): the announcer, its phrases, espeak",
    "segno": "a member's link as a QR code, made when a page asks for one (~0.8 MB)",
    "typer": "the command line's framework: `mjtable run` parses its own options (1.4 MB)",
    "shellingham": "typer's shell detection",
}


def imported_modules(log: str) -> set[str]:
    names = set()
    for line in log.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


@pytest.mark.timeout(300)
def test_a_real_table_with_sqlite_imports_only_what_it_uses(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    env = {
        "PYTHONPROFILEIMPORTTIME": "1",
        "MJTABLE_WEB__ENABLED": "true",
        "MJTABLE_WEB__HOST": "127.0.0.1",
        "MJTABLE_WEB__PORT": str(free_local_port()),
    }
    outcome = asyncio.run(
        play(
            tmp_path / "work",
            tmp_path / "data",
            mosquitto.url,
            ruleset="xingguo",
            hands=1,
            seed=4,
            service_env=env,
        )
    )
    assert len(outcome.hands) == 1  # a whole hand: settlement, hand log, the web app up
    names = imported_modules((tmp_path / "work" / "service.log").read_text(errors="replace"))
    # the check sees the imports at all: the service's own, the web app's, uvicorn's
    assert {"controller.runtime", "controller.web.app", "uvicorn.server"} <= names
    leaked = {
        n: why
        for n in names
        for prefix, why in NOT_IMPORTED.items()
        if n == prefix or n.startswith(prefix + ".")
    }
    assert not leaked, leaked
