"""A throwaway PostgreSQL cluster for tests and benches: initdb in a temp folder, a unix
socket there, a free port, stopped (and deleted) at the end. Never skipped: no binaries, no
test run."""

from __future__ import annotations

import getpass
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from controller.process.local_ports import free_local_port

PG_BIN = Path(os.environ.get("MJTABLE_PG_BIN", "/usr/lib/postgresql/15/bin"))
MISSING = (
    f"PostgreSQL 15 binaries not found in {PG_BIN}: run .ci/run, or "
    "`apt-get install -y postgresql` (the hub tests need a real PostgreSQL and are never skipped)"
)
# As root, initdb and postgres refuse to run: they run as this user instead.
SERVICE_USER = "postgres"


class PostgresMissing(RuntimeError):
    pass


class PostgresCluster:
    """``start()`` makes and starts it; ``url(db)`` for SQLAlchemy; ``stop()`` removes it."""

    def __init__(self, *, durable: bool = False, settings: dict[str, str] | None = None) -> None:
        for name in ("initdb", "pg_ctl", "postgres"):
            if not os.access(PG_BIN / name, os.X_OK):
                raise PostgresMissing(MISSING)
        self.root = Path(tempfile.mkdtemp(prefix="mjtable-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = free_local_port()
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam(SERVICE_USER)
            except KeyError:
                raise PostgresMissing(
                    f"no {SERVICE_USER!r} user to run PostgreSQL as root; " + MISSING
                ) from None
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            self.as_user = ["runuser", "-u", SERVICE_USER, "--"]
        self.superuser = SERVICE_USER if self.as_user else getpass.getuser()
        # Tests want speed, not crash safety; a bench keeps the defaults (durable=True).
        options = (
            {}
            if durable
            else {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
        )
        self.options = (
            options | {"listen_addresses": "''", "max_connections": "200"} | (settings or {})
        )

    def _run(self, *args: str) -> None:
        done = subprocess.run([*self.as_user, *args], capture_output=True, text=True)
        if done.returncode != 0:
            log = self.log.read_text() if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed:\n{done.stdout}{done.stderr}{log}")

    def start(self) -> PostgresCluster:
        self._run(
            str(PG_BIN / "initdb"),
            "-D",
            str(self.data),
            "-U",
            self.superuser,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        )
        opts = " ".join(f"-c {k}={v}" for k, v in self.options.items())
        self._run(
            str(PG_BIN / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            "-o",
            f"-p {self.port} -k {self.root} {opts}",
            "start",
        )
        return self

    def stop(self) -> None:
        if self.data.exists():
            subprocess.run(
                [
                    *self.as_user,
                    str(PG_BIN / "pg_ctl"),
                    "-D",
                    str(self.data),
                    "-m",
                    "immediate",
                    "-w",
                    "stop",
                ],
                capture_output=True,
            )
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return (
            f"postgresql+psycopg://{self.superuser}@/{database}?host={self.root}&port={self.port}"
        )

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; returns its SQLAlchemy URL."""
        import psycopg

        name = name or "t_" + uuid.uuid4().hex[:12]
        dsn = f"host={self.root} port={self.port} user={self.superuser} dbname=postgres"
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)
