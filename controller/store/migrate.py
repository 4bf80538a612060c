"""Schema migrations from code: ``upgrade(url)`` at start-up, idempotent.

Developers add a migration after changing ``models.py`` with::

    .venv/bin/python -m controller.store.migrate revision "add players table"

which autogenerates it against a scratch SQLite database upgraded to head; review it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from controller.store.database import make_engine

MIGRATIONS = Path(__file__).with_name("migrations")


def alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("path_separator", "os")
    return config


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(target: str | Engine, revision: str = "head") -> None:
    """Bring the database at ``target`` (a URL or an engine) up to ``revision``."""
    engine = make_engine(target) if isinstance(target, str) else target
    try:
        config = alembic_config()
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, revision)
    finally:
        if isinstance(target, str):
            engine.dispose()


def _revision(message: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        engine = make_engine(f"sqlite:///{scratch}/scratch.db")
        upgrade(engine)
        config = alembic_config()
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.revision(config, message=message, autogenerate=True)
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description="Store migrations.")
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("upgrade", help="upgrade a database to head")
    up.add_argument(
        "url", help="database URL, or - to read it from stdin (keeps a password off ps)"
    )
    rev = sub.add_parser("revision", help="autogenerate a migration from models.py")
    rev.add_argument("message")
    args = parser.parse_args()
    if args.command == "upgrade":
        upgrade(sys.stdin.read().strip() if args.url == "-" else args.url)
    else:
        _revision(args.message)


if __name__ == "__main__":
    main()
