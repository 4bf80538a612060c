"""Alembic migrations of the store (run by ``controller.store.migrate.upgrade``)."""
