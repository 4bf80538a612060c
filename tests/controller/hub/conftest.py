from __future__ import annotations

from collections.abc import Iterator

import pytest

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
