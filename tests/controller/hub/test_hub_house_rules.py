"""House rulesets at the hub: the same store on PostgreSQL (JSONB values, the audit)."""

from __future__ import annotations

from controller.store import EventStore
from controller.store.house_rules import HouseRules


def test_the_hub_keeps_house_rulesets_assignments_and_their_audit(hub_store: EventStore) -> None:
    rules = HouseRules(hub_store)
    rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 10}, "boss")
    rules.assign("t2", "本店兴国", "boss", from_next_hand=True)
    saved = rules.get("本店兴国")
    assert saved is not None and saved.options == {"win.deguo_bonus": 10}
    assigned = rules.assignment("t2")
    assert assigned is not None and assigned.from_next_hand and assigned.version == 1
    assert [e.action for e in rules.audit()] == ["assign", "save"]
