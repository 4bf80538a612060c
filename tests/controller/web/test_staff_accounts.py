"""Staff accounts: ``mjtable staff add|list|remove``, the same login as owners, a short
token that reaches only the staff routes of its own tables, and the owners' policy."""

from __future__ import annotations

import re
import time

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from controller.cli import app as cli_app
from controller.cli import commands as _commands  # noqa: F401  (registers the commands)
from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.web import LiveHub, WebAppSettings, create_app
from controller.web.passwords import hash_password
from tests.controller.web.conftest import OWNER, PASSWORD, SECRET

runner = CliRunner()
STAFF_PASSWORD = "staff password"


def _add(store_url: str, name: str, *tables: str) -> None:
    args = ["staff", "add", name, "--password-stdin", "--store", store_url]
    for t in tables:
        args += ["--table", t]
    r = runner.invoke(cli_app, args, input=STAFF_PASSWORD + "\n")
    assert r.exit_code == 0, r.output


def test_staff_add_list_remove(store_url: str) -> None:
    _add(store_url, "ann", "t1", "t2")
    listed = runner.invoke(cli_app, ["staff", "list", "--store", store_url])
    assert listed.output.startswith("ann\tt1,t2\t"), listed.output
    again = runner.invoke(
        cli_app,
        ["staff", "add", "ann", "--password-stdin", "--store", store_url, "--table", "t1"],
        input=STAFF_PASSWORD + "\n",
    )
    assert again.exit_code == 2 and "already exists" in again.output
    no_table = runner.invoke(
        cli_app,
        ["staff", "add", "bo", "--password-stdin", "--store", store_url],
        input=STAFF_PASSWORD + "\n",
    )
    assert no_table.exit_code == 2 and "--table" in no_table.output
    bad_table = runner.invoke(
        cli_app,
        ["staff", "add", "bo", "--password-stdin", "--store", store_url, "--table", "a/b"],
        input=STAFF_PASSWORD + "\n",
    )
    assert bad_table.exit_code == 2 and "table" in bad_table.output
    # owners are not staff: neither listed nor removed as staff
    store = EventStore.open(store_url)
    OwnerAccounts(store).add("boss", hash_password(PASSWORD))
    store.close()
    assert "boss" not in runner.invoke(cli_app, ["staff", "list", "--store", store_url]).output
    not_staff = runner.invoke(cli_app, ["staff", "remove", "boss", "--store", store_url])
    assert not_staff.exit_code == 2 and "no staff" in not_staff.output
    gone = runner.invoke(cli_app, ["staff", "remove", "ann", "--store", store_url])
    assert gone.exit_code == 0, gone.output
    assert runner.invoke(cli_app, ["staff", "list", "--store", store_url]).output == ""


def _login(client: TestClient, name: str, password: str) -> dict[str, object]:
    r = client.post("/api/v1/auth/login", json={"name": name, "password": password})
    assert r.status_code == 200, r.text
    client.cookies.clear()
    body: dict[str, object] = r.json()
    return body


def _bearer(token: object) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_staff_login_is_short_and_reaches_only_staff_routes(
    store: EventStore, store_url: str, client: TestClient
) -> None:
    _add(store_url, "ann", "t1")
    body = _login(client, "ann", STAFF_PASSWORD)
    assert body["role"] == "staff" and body["tables"] == ["t1"]
    staff = _bearer(body["token"])
    expires = time.mktime(time.strptime(str(body["expires_at"])[:19], "%Y-%m-%dT%H:%M:%S"))
    assert expires - time.mktime(time.gmtime()) <= 4 * 3600 + 5
    me = client.get("/api/v1/auth/me", headers=staff)
    assert me.json() == {"name": "ann", "role": "staff", "tables": ["t1"]}
    # every owner's route (the hand logs hold every concealed tile) refuses it
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    owners = [(p, m) for p, ops in paths.items() for m, op in ops.items() if "owners" in op["tags"]]
    assert len(owners) >= 8
    for path, method in owners:
        url = re.sub(r"\{[^}]+\}", "x", path)
        r = client.request(method, url, headers=staff)
        assert r.status_code == 403, (method, path, r.status_code)
    assert client.get("/api/v1/staff/policy", headers=staff).status_code == 200
    # removed: its login ends at once
    runner.invoke(cli_app, ["staff", "remove", "ann", "--store", store_url])
    assert client.get("/api/v1/staff/policy", headers=staff).status_code == 401


def test_staff_of_another_table_cannot_act_here(
    store: EventStore, store_url: str, client: TestClient
) -> None:
    _add(store_url, "bo", "t2")
    token = _login(client, "bo", STAFF_PASSWORD)["token"]
    r = client.get("/api/v1/staff/policy", headers=_bearer(token))
    assert r.status_code == 403 and "not staff of table t1" in r.text


def test_only_owners_set_the_policy(store: EventStore, store_url: str, client: TestClient) -> None:
    _add(store_url, "ann", "t1")
    owner = _bearer(_login(client, OWNER, PASSWORD)["token"])
    staff = _bearer(_login(client, "ann", STAFF_PASSWORD)["token"])
    default = client.get("/api/v1/staff/policy", headers=owner).json()
    assert default == {
        "may_void": True,
        "may_adjust": True,
        "false_win_amount": None,
        "xianggong_amount": None,
    }
    change = {"may_void": False, "may_adjust": False, "xianggong_amount": 10}
    assert client.put("/api/v1/owner/staff-policy", json=change, headers=staff).status_code == 403
    r = client.put("/api/v1/owner/staff-policy", json=change, headers=owner)
    assert r.status_code == 200 and r.json()["xianggong_amount"] == 10
    assert client.get("/api/v1/staff/policy", headers=staff).json()["may_void"] is False
    for bad in ({"may_void": "maybe"}, {"xianggong_amount": 10**9}, {"colour": 1}):
        r = client.put("/api/v1/owner/staff-policy", json=bad, headers=owner)
        assert r.status_code == 422, bad
    assert OwnerAccounts(store).staff_policy().xianggong_amount == 10


def test_the_hub_has_no_live_hand_for_staff(store: EventStore, store_url: str) -> None:
    _add(store_url, "ann", "t1")
    hub_app = create_app(store, LiveHub(), WebAppSettings(table="t1", hub=True, secret_key=SECRET))
    with TestClient(hub_app) as c:
        token = _login(c, "ann", STAFF_PASSWORD)["token"]
        assert c.get("/api/v1/staff/policy", headers=_bearer(token)).status_code == 403
