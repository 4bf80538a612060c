"""House rulesets in the store: saved under a name with a version, checked as `mjtable rules
check` checks a preset (refused with the option named), assigned to tables, and every
save and assignment audited with who, when and the values before and after."""

from __future__ import annotations

import pytest

from controller.store import EventStore, StoreInputError
from controller.store.house_rules import HouseRules, UnknownHouseRuleset


def test_a_saved_house_ruleset_keeps_its_changed_values_and_counts_versions(
    store: EventStore,
) -> None:
    rules = HouseRules(store)
    first = rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 10, "win.deguo": 2}, "boss")
    # the value equal to xingguo's own (德国 ×2) is not a change
    assert (first.base, first.options, first.version) == ("xingguo", {"win.deguo_bonus": 10}, 1)
    second = rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 8}, "ann", expected_version=1)
    assert second.version == 2
    assert rules.get("本店兴国") == second
    assert [r.name for r in rules.all()] == ["本店兴国"]


def test_a_bad_value_is_refused_with_the_option_named_and_nothing_saved(
    store: EventStore,
) -> None:
    rules = HouseRules(store)
    with pytest.raises(StoreInputError, match="「德国奖分」"):
        rules.save("本店兴国", "xingguo", {"win.deguo_bonus": -1}, "boss")
    with pytest.raises(StoreInputError, match="「一炮多人胡时」"):
        rules.save("本店兴国", "xingguo", {"table.multiple_winners": "largest"}, "boss")
    with pytest.raises(StoreInputError, match="没有这个内置规则"):
        rules.save("本店兴国", "mars", {}, "boss")
    with pytest.raises(StoreInputError, match="规则名称"):
        rules.save("", "xingguo", {}, "boss")
    assert rules.all() == [] and rules.audit() == []


def test_a_save_over_another_owners_newer_version_is_refused(store: EventStore) -> None:
    rules = HouseRules(store)
    rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 10}, "boss")
    rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 8}, "ann", expected_version=1)
    with pytest.raises(StoreInputError, match="ann"):
        rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 6}, "boss", expected_version=1)
    stored = rules.get("本店兴国")
    assert stored is not None and stored.options == {"win.deguo_bonus": 8}


def test_assignments_follow_the_rulesets_new_versions_and_are_audited(
    store: EventStore,
) -> None:
    rules = HouseRules(store)
    with pytest.raises(UnknownHouseRuleset):
        rules.assign("t2", "本店兴国", "boss")
    rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 10}, "boss")
    assigned = rules.assign("t2", "本店兴国", "boss")
    assert (assigned.table_id, assigned.version, assigned.from_next_hand) == ("t2", 1, False)
    rules.save("本店兴国", "xingguo", {"win.deguo_bonus": 8}, "ann")
    now = rules.assignment("t2")
    assert now is not None and now.version == 2 and now.applied_version is None
    assert rules.assignment("t1") is None
    rules.report_applied("t2", 2, None)
    applied = rules.assignment("t2")
    assert applied is not None and applied.applied_version == 2 and applied.problem is None
    audit = rules.audit()
    assert [(e.action, e.by, e.table_id) for e in audit] == [
        ("save", "ann", None),
        ("assign", "boss", "t2"),
        ("save", "boss", None),
    ]
    assert audit[0].old == {"base": "xingguo", "options": {"win.deguo_bonus": 10}, "version": 1}
    assert audit[0].new == {"base": "xingguo", "options": {"win.deguo_bonus": 8}, "version": 2}
    assert audit[1].old is None and audit[1].new["name"] == "本店兴国"
