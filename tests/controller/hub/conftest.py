from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.store import EventStore
from tests.controller.hub.tables import Table
from tests.controller.postgres import PostgresCluster, PostgresMissing


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    """One throwaway cluster for the test session (each test gets its own database)."""
    try:
        cluster = PostgresCluster().start()
    except PostgresMissing as err:
        pytest.fail(str(err), pytrace=False)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster: PostgresCluster) -> str:
    """A new, empty database in the throwaway cluster (not yet migrated)."""
    return pg_cluster.create_database()


@pytest.fixture
def make_table(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    made: list[Table] = []

    def make(name: str, url: str, **kw: float) -> Table:
        store = EventStore.open(f"sqlite:///{tmp_path / name / 'mjtable.db'}")
        table = Table(name, store, url, **kw)
        made.append(table)
        return table

    yield make
    for table in made:
        table.store.close()


@pytest.fixture
def hub_store(pg_url: str) -> Iterator[EventStore]:
    store = EventStore.open(pg_url)
    yield store
    store.close()
