"""``mjtable demo --cards``: card UIDs one a seat, checked before anything starts (a bad one
named, in Chinese first); laid, they seat their members (tests/controller/table/
test_seating_cards.py plays that through the virtual readers)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from controller.cli import app
from controller.cli import commands as _commands  # noqa: F401  (registers the commands)

runner = CliRunner()


@pytest.mark.parametrize(
    ("cards", "said"),
    [
        ("04a1b2c3d4e5f6,zz", "'zz' 不是卡号"),
        ("04a1b2", "'04a1b2' 不是卡号"),  # 3 bytes: no card's UID
        ("04a1b2c3,04a1b2c3", "同一张卡出现两次"),
        ("04a1b2c3,04a1b2c4,04a1b2c5,04a1b2c6,04a1b2c7", "最多 4 张"),
    ],
)
def test_a_bad_card_list_is_refused_before_the_table_starts(cards: str, said: str) -> None:
    r = runner.invoke(app, ["demo", "--cards", cards, "--hands", "1"])
    assert r.exit_code == 2
    assert said in r.output and r.output.startswith("错误")


def test_the_cards_option_is_in_the_demos_help() -> None:
    r = runner.invoke(app, ["demo", "--help"], env={"COLUMNS": "200"})
    assert "--cards" in r.output and "04a1b2c3d4e5f6" in r.output
