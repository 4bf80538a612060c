"""``mjtable member add|list|edit|remove`` against a real store, and a card that is a
tile's tag refused."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from controller.cli import app
from controller.cli import commands as _commands  # noqa: F401  (registers the commands)
from controller.store import EventStore
from controller.store.members import Members
from firmware_bridge.sim.tiles import TileSet

runner = CliRunner()


def test_add_list_edit_and_remove(store_url: str) -> None:
    r = runner.invoke(
        app, ["member", "add", " 王五 ", "--card", "04:a1:b2:c3", "--store", store_url]
    )
    assert r.exit_code == 0, r.output
    member_id, name = r.output.strip().split("\t")
    assert name == "王五" and len(member_id) == 32
    again = runner.invoke(app, ["member", "add", "Li", "--card", "04A1B2C3", "--store", store_url])
    assert again.exit_code == 2 and "card_tag: another member's card" in again.output
    bad = runner.invoke(app, ["member", "add", "x" * 33, "--store", store_url])
    assert bad.exit_code == 2 and "name:" in bad.output
    r = runner.invoke(
        app,
        [
            "member",
            "edit",
            member_id,
            "--name",
            "王五哥",
            "--no-card",
            "--inactive",
            "--store",
            store_url,
        ],
    )
    assert r.exit_code == 0, r.output
    listed = runner.invoke(app, ["member", "list", "--store", store_url])
    assert listed.output == f"{member_id}\t王五哥\t-\tinactive\n"
    r = runner.invoke(app, ["member", "remove", member_id, "--store", store_url])
    assert r.exit_code == 0 and "0 hands now anonymous" in r.output
    assert runner.invoke(app, ["member", "list", "--store", store_url]).output == ""
    gone = runner.invoke(app, ["member", "remove", member_id, "--store", store_url])
    assert gone.exit_code == 2 and "no member" in gone.output


def test_a_tiles_tag_is_never_a_members_card(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    tiles = TileSet(seed=4)
    tiles.write_registry(data / "tags.json")
    config = tmp_path / "table.toml"
    config.write_text(f'data_dir = "{data}"\n', encoding="utf-8")
    tile = tiles.uids[17].hex()
    r = runner.invoke(app, ["member", "add", "Li", "--card", tile, "--config", str(config)])
    assert r.exit_code == 2 and "is a tile's tag" in r.output, r.output
    r = runner.invoke(
        app, ["member", "add", "Li", "--card", "e0040150c0ffee01", "--config", str(config)]
    )
    assert r.exit_code == 0, r.output
    store = EventStore.open(f"sqlite:///{data / 'mjtable.db'}")
    try:
        [li] = Members(store.engine).all()
        assert li.card_tag == "e0040150c0ffee01" and li.home_table == "t1"
    finally:
        store.close()
