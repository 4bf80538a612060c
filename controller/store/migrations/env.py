"""Alembic environment, driven from code (``controller.store.migrate``), no alembic.ini.

The caller passes an open connection in ``config.attributes["connection"]``; for
``alembic revision --autogenerate`` during development, see ``controller/store/migrate.py``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from controller.store.models import METADATA


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=METADATA,
        render_as_batch=True,  # SQLite alters tables by copy; harmless on PostgreSQL
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through controller.store.migrate (needs a connection)")
_run(connection)
