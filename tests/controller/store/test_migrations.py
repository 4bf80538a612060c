"""Migrations: an empty database is upgraded to head, twice without harm, and the
migrations describe exactly the models."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from controller.store import EventStore, make_engine
from controller.store.migrate import current_revision, head_revision, upgrade
from controller.store.models import METADATA
from controller.store.schema_head import HEAD, MigrationFailed, at_head, ensure_schema

TABLES = {
    "alerts",
    "sessions",
    "hands",
    "events",
    "settlements",
    "outbox",
    "owners",
    "table_stats",
    "quarantined_handlogs",
    "owner_settings",
    "members",
    "seat_acts",
    "request_keys",
    "house_rulesets",
    "house_assignments",
    "house_audit",
    "phone_codes",
    "phone_seats",
    "phone_joins",
    "alembic_version",
}


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
        assert compare_metadata(context, METADATA) == []
    engine.dispose()


def test_events_unique_per_hand_and_seq(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'u.db'}")
    upgrade(engine)
    uniques = inspect(engine).get_unique_constraints("events")
    assert [u["column_names"] for u in uniques] == [["hand_id", "seq"]]
    engine.dispose()


def test_schema_head_names_alembics_head(tmp_path: Path) -> None:
    # EventStore.open skips Alembic when the schema is at HEAD: HEAD must be the real head.
    assert head_revision() == HEAD
    engine = make_engine(f"sqlite:///{tmp_path / 'h.db'}")
    assert not at_head(engine)
    upgrade(engine, "0003")
    assert not at_head(engine)
    ensure_schema(engine)
    assert at_head(engine) and current_revision(engine) == HEAD
    engine.dispose()


def test_the_service_never_loads_alembic(tmp_path: Path) -> None:
    # A fresh store is upgraded in a child process; a current one is only checked.
    url = f"sqlite:///{tmp_path / 'a.db'}"
    code = (
        "import sys; from controller.store import EventStore; "
        f"EventStore.open({url!r}).close(); EventStore.open({url!r}).close(); "
        "assert not any(m.startswith('alembic') for m in sys.modules), 'alembic loaded'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[3])
    engine = make_engine(url)
    assert at_head(engine) and set(inspect(engine).get_table_names()) == TABLES
    engine.dispose()


def test_a_failed_upgrade_says_why(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'odd.db'}"
    engine = make_engine(url)
    with engine.begin() as c:
        c.execute(text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)"))
        c.execute(text("INSERT INTO alembic_version VALUES ('9999')"))
    with pytest.raises(MigrationFailed, match="9999"):
        EventStore.open(url)
    engine.dispose()
