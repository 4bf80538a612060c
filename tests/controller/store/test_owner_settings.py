"""The owners' settings (``OwnerAccounts``): each a JSON value in ``owner_settings`` with
who set it and when. The leaderboards' switch is read strictly: only ``true`` is on, and a
value nobody could have written (a later version's, a damaged row) reads as off."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from sqlalchemy import insert, select

from controller.store import EventStore
from controller.store.models import OWNER_SETTINGS
from controller.store.owners import CashoutTerms, Leaderboards, OwnerAccounts


def _raw(store: EventStore, name: str) -> str | None:
    with store.engine.connect() as c:
        value = c.scalar(select(OWNER_SETTINGS.c.value).where(OWNER_SETTINGS.c.name == name))
    return None if value is None else str(value)


def test_the_leaderboards_switch_is_stored_with_who_and_when(store: EventStore) -> None:
    accounts = OwnerAccounts(store)
    assert accounts.leaderboards() == (Leaderboards(enabled=False), "")
    assert accounts.leaderboards_changed() == ("", None)
    before = datetime.now(UTC)
    accounts.set_leaderboards(Leaderboards(enabled=True), "boss")
    assert accounts.leaderboards() == (Leaderboards(enabled=True), "boss")
    assert json.loads(_raw(store, "leaderboards") or "") == {"enabled": True}  # (as before)
    by, at = accounts.leaderboards_changed()
    assert by == "boss" and at is not None
    assert at.replace(tzinfo=at.tzinfo or UTC) >= before.replace(microsecond=0)
    accounts.set_leaderboards(Leaderboards(enabled=False), "ann")
    assert accounts.leaderboards() == (Leaderboards(enabled=False), "ann")
    # one row a setting: the switch and the terms keep their own audits
    accounts.set_cashout_terms(CashoutTerms(point_value=1), "carol")
    assert accounts.leaderboards_changed()[0] == "ann"
    assert accounts.cashout_terms_changed()[0] == "carol"


def _old_reader(value: str | None) -> bool:
    """How the records API read the switch before it lived here: the oracle."""
    try:
        return bool(value and json.loads(value).get("enabled") is True)
    except (ValueError, AttributeError):
        return False


@pytest.mark.parametrize(
    "value",
    [
        '{"enabled": true}',
        '{"enabled": false}',
        '{"enabled": true, "since": "2026-01"}',
        '{"enabled": 1}',
        '{"enabled": "true"}',
        '{"enabled": null}',
        "{}",
        "[true]",
        "null",
        "true",
        "",
        "{not json",
    ],
)
def test_a_stored_switch_reads_as_the_records_api_read_it(store: EventStore, value: str) -> None:
    with store.engine.begin() as c:
        c.execute(
            insert(OWNER_SETTINGS).values(
                name="leaderboards", value=value, updated_at=datetime.now(UTC), updated_by="x"
            )
        )
    assert OwnerAccounts(store).leaderboards()[0].enabled is _old_reader(value)
