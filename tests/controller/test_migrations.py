"""Migrations: an empty database is upgraded to head, twice without harm, and the
migrations describe exactly the models."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from controller.store import make_engine, upgrade
from controller.store.migrate import current_revision, head_revision
from controller.store.models import Base

TABLES = {"sessions", "hands", "events", "settlements", "outbox", "owners", "alembic_version"}


def test_upgrade_empty_database_is_idempotent(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sub' / 'fresh.db'}"  # the folder is created too
    upgrade(url)
    upgrade(url)
    engine = make_engine(url)
    assert set(inspect(engine).get_table_names()) == TABLES
    assert current_revision(engine) == head_revision() is not None
    engine.dispose()


def test_migrations_match_the_models(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'm.db'}")
    upgrade(engine)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
    engine.dispose()


def test_events_unique_per_hand_and_seq(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'u.db'}")
    upgrade(engine)
    uniques = inspect(engine).get_unique_constraints("events")
    assert [u["column_names"] for u in uniques] == [["hand_id", "seq"]]
    engine.dispose()
