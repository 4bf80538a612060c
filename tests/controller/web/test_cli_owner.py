"""``mjtable owner add|passwd|list`` against a real store."""

from __future__ import annotations

from typer.testing import CliRunner

from controller.cli import app
from controller.cli import commands as _commands  # noqa: F401  (registers the commands)
from controller.store import EventStore
from controller.store.owners import OwnerAccounts
from controller.web.passwords import verify_password

runner = CliRunner()


def test_add_list_and_change_password(store_url: str) -> None:
    r = runner.invoke(
        app,
        ["owner", "add", "boss", "--password-stdin", "--store", store_url],
        input="first password\n",
    )
    assert r.exit_code == 0, r.output
    assert "owner boss added" in r.output
    again = runner.invoke(
        app,
        ["owner", "add", "boss", "--password-stdin", "--store", store_url],
        input="first password\n",
    )
    assert again.exit_code == 2 and "already exists" in again.output
    r = runner.invoke(
        app,
        ["owner", "passwd", "boss", "--password-stdin", "--store", store_url],
        input="second password\n",
    )
    assert r.exit_code == 0, r.output
    listed = runner.invoke(app, ["owner", "list", "--store", store_url])
    assert listed.output.startswith("boss\t")
    store = EventStore.open(store_url)
    owner = OwnerAccounts(store).get("boss")
    store.close()
    assert owner is not None and verify_password("second password", owner.password_hash)


def test_prompted_password_and_refusals(store_url: str) -> None:
    r = runner.invoke(
        app, ["owner", "add", "ann", "--store", store_url], input="good password\ngood password\n"
    )
    assert r.exit_code == 0, r.output
    short = runner.invoke(
        app, ["owner", "add", "bob", "--password-stdin", "--store", store_url], input="short\n"
    )
    assert short.exit_code == 2 and "8-1024 characters" in short.output
    bad_name = runner.invoke(
        app,
        ["owner", "add", "a b", "--password-stdin", "--store", store_url],
        input="good password\n",
    )
    assert bad_name.exit_code == 2 and "owner name" in bad_name.output
    missing = runner.invoke(
        app,
        ["owner", "passwd", "zed", "--password-stdin", "--store", store_url],
        input="good password\n",
    )
    assert missing.exit_code == 2 and "no owner" in missing.output
