"""Is the schema current? Answered without importing Alembic, which costs a Pi ~11 MB of
resident memory for the life of the service if it is loaded even once. When there is work
to do, the upgrade runs in a child process (for a database a child can reach), so the
service never carries Alembic. ``tests/controller/store/test_migrations.py`` keeps ``HEAD`` equal
to Alembic's head."""

from __future__ import annotations

import subprocess
import sys

from sqlalchemy import Engine, inspect, text

HEAD = "0015"


class MigrationFailed(RuntimeError):
    pass


def at_head(engine: Engine) -> bool:
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return False
        versions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    return [v for (v,) in versions] == [HEAD]


def ensure_schema(engine: Engine) -> None:
    """Upgrade to head unless already there (idempotent either way)."""
    if at_head(engine):
        return
    url = engine.url
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        from controller.store.migrate import upgrade  # a private database: only here

        upgrade(engine)
        return
    done = subprocess.run(
        [sys.executable, "-m", "controller.store.migrate", "upgrade", "-"],
        input=url.render_as_string(hide_password=False),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise MigrationFailed(f"could not upgrade the store's schema: {tail}")
