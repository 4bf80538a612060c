"""The owners' house-rules API on a table's service: the form of a built-in ruleset, a
house ruleset saved and refused with the option named, the preview, the assignment (to
this table only) and the audit."""

from __future__ import annotations

from fastapi.testclient import TestClient

from controller.house.options import check_house
from controller.house.preview import preview


def test_the_form_lists_every_option_with_its_words(authed: TestClient) -> None:
    r = authed.get("/api/v1/house/form/xingguo")
    assert r.status_code == 200, r.text
    body = r.json()
    by_key = {o["key"]: o for o in body["options"]}
    assert by_key["win.deguo_bonus"]["label"] == "德国奖分"
    assert by_key["win.deguo_bonus"]["default"] == 5
    assert by_key["shapes.fifth_copy"]["note"] == "[decision]"
    assert body["groups"]["win"] == "胡分"
    assert authed.get("/api/v1/house/form/mars").status_code == 404


def test_save_preview_assign_and_audit_at_a_table(authed: TestClient) -> None:
    bad = authed.put(
        "/api/v1/house/saves/本店兴国",
        json={"base": "xingguo", "options": {"win.deguo_bonus": -3}},
    )
    assert bad.status_code == 422 and "「德国奖分」" in bad.json()["detail"]
    whole = authed.put(
        "/api/v1/house/saves/本店兴国",
        json={"base": "xingguo", "options": {"table.multiple_winners": "largest"}},
    )  # refused by the engine as a whole: in words, the engine's English beside them
    assert whole.status_code == 422, whole.text
    said = whole.json()["detail"]
    assert said.startswith("「一炮多人胡时」（table.multiple_winners）不能这样设置")
    assert "胡得最大的一家胡" in said and "family" not in said
    assert "cannot apply “the largest hand wins”" in whole.json()["en"]  # its English, in words
    saved = authed.put(
        "/api/v1/house/saves/本店兴国",
        json={"base": "xingguo", "options": {"win.deguo_bonus": 10}, "expected_version": 0},
    )
    assert saved.status_code == 200, saved.text
    assert saved.json()["version"] == 1 and saved.json()["updated_by"] == "boss"
    shown = authed.post(
        "/api/v1/house/preview",
        json={"base": "xingguo", "old": {}, "new": {"win.deguo_bonus": 10}},
    )
    assert shown.status_code == 200
    assert shown.json() == preview("xingguo", {}, check_house("xingguo", {"win.deguo_bonus": 10}))
    toml = authed.get("/api/v1/house/rulesets/本店兴国/preset.toml")
    assert "deguo_bonus = 10" in toml.text
    # a table assigns to itself only
    other = authed.post("/api/v1/house/assign", json={"name": "本店兴国", "tables": ["t2"]})
    assert other.status_code == 422
    mine = authed.post("/api/v1/house/assign", json={"name": "本店兴国", "tables": "all"})
    assert mine.status_code == 200, mine.text
    assert [a["table_id"] for a in mine.json()] == ["t1"]
    assert [a["name"] for a in authed.get("/api/v1/house/assignments").json()] == ["本店兴国"]
    audit = authed.get("/api/v1/house/audit").json()
    assert [(e["action"], e["by"]) for e in audit] == [("assign", "boss"), ("save", "boss")]
    assert audit[1]["new"]["options"] == {"win.deguo_bonus": 10}


def test_the_house_rules_are_owners_only(client: TestClient) -> None:
    assert client.get("/api/v1/house/rulesets").status_code == 401
