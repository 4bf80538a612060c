"""The CLI contracts of ``mjtable analyze`` and ``mjtable settle``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from controller.cli import (
    app,
    commands,  # noqa: F401  (registers the commands)
)

runner = CliRunner()


def test_analyze_json_win_with_jing() -> None:
    r = runner.invoke(app, ["analyze", "123m 456p 789s EEE 5m 6m", "--indicator", "5m", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["win"] is True and out["shanten"] == -1 and out["waits"] == []
    first = out["readings"][0]
    assert set(first) == {"shape", "wildcards_used", "deguo", "jingdiao", "sets", "pair"}
    assert any(rd["jingdiao"] for rd in out["readings"])


def test_analyze_waits_and_melds() -> None:
    r = runner.invoke(app, ["analyze", "123m 456p 11s 2s 3s", "--melds", "pung 777p", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["win"] is False
    assert out["waits"] == ["1s", "4s"]
    assert out["shanten"] == 0


def test_analyze_chinese_by_default() -> None:
    r = runner.invoke(app, ["analyze", "123m 456p 789s EEE 55m"])
    assert r.exit_code == 0
    assert "平胡" in r.output and "手牌" in r.output


def test_analyze_bad_token_is_named() -> None:
    r = runner.invoke(app, ["analyze", "123m 4q5p"])
    assert r.exit_code == 2
    assert "4q5p" in r.output or "4q" in r.output


def test_analyze_json_lines_go_on_after_bad_lines() -> None:
    lines = "\n".join(
        [
            json.dumps({"hand": "123m456p789s11s 2s 6m 3s", "indicator": "5m"}),
            "not json",
            json.dumps({"hand": "12x"}),
            json.dumps({"hand": "123m 456p 11s 2s 3s", "melds": ["pung 777p"]}),
            json.dumps({"hand": "123m", "colour": "red"}),
        ]
    )
    r = runner.invoke(app, ["analyze", "--json", "-"], input=lines)
    assert r.exit_code == 0
    outs = [json.loads(line) for line in r.output.splitlines()]
    assert len(outs) == 5
    assert outs[0]["win"] is True
    assert "error" in outs[1] and "error" in outs[2] and "12x" in outs[2]["error"]
    assert outs[3]["waits"] == ["1s", "4s"]
    assert "colour" in outs[4]["error"]


SETTLE_REQUEST = {
    "ruleset": "xingguo",
    "dealer": 0,
    "indicator": "5m",
    "seats": [
        {"hand": "1m 1m 2m 2m 3m 3m 4m 7m 8m E E S 6m"},
        {"hand": "123p 456p 789s 123s 5s 5s"},
        {"hand": "1m 2m 3m 4m 7m 8m 9m 9m W W N N C"},
        {"hand": "1m 2m 3m 4m 7m 8m 9m 9m F F P P C"},
    ],
    "win": {"seat": 1, "tile": "5s", "from": "self"},
}


def test_settle_contract(tmp_path: Path) -> None:
    f = tmp_path / "hand.json"
    f.write_text(json.dumps(SETTLE_REQUEST))
    r = runner.invoke(app, ["settle", str(f)])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert set(out) == {"lines", "net", "next_dealer", "void"}
    assert sum(out["net"]) == 0
    assert out["next_dealer"] == 1
    win_lines = [ln for ln in out["lines"] if ln["code"].startswith("win")]
    assert sorted(ln["amount"] for ln in win_lines) == [9, 9, 13]  # X 平胡 德国 自摸
    assert all(set(ln) == {"code", "reason", "from", "to", "amount"} for ln in out["lines"])
    assert any("德国" in ln["reason"] for ln in win_lines)


def test_settle_stdin_and_errors_exit_2() -> None:
    ok = runner.invoke(app, ["settle", "-"], input=json.dumps(SETTLE_REQUEST))
    assert ok.exit_code == 0
    bad = dict(SETTLE_REQUEST, colour="red")
    r = runner.invoke(app, ["settle", "-"], input=json.dumps(bad))
    assert r.exit_code == 2 and "colour" in r.output
    seats = [dict(s) for s in SETTLE_REQUEST["seats"]]  # type: ignore[union-attr]
    seats[2]["hand"] += " 5p"
    r = runner.invoke(app, ["settle", "-"], input=json.dumps(dict(SETTLE_REQUEST, seats=seats)))
    assert r.exit_code == 2 and "seats[2]" in r.output and "相公" in r.output
    r = runner.invoke(app, ["settle", "-"], input="{")
    assert r.exit_code == 2


def test_settle_stdout_is_empty_on_error() -> None:
    """A real process: errors go to stderr only, exit code 2."""
    bad = json.dumps(dict(SETTLE_REQUEST, ruleset="mars"))
    proc = subprocess.run(
        [sys.executable, "-m", "controller.cli", "settle", "-"],
        input=bad,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "mars" in proc.stderr


def test_rules_show_edit_check_and_settle_with_preset(tmp_path: Path) -> None:
    shown = runner.invoke(app, ["rules", "show", "xingguo"])
    assert shown.exit_code == 0 and 'id = "xingguo"' in shown.output
    edited = tmp_path / "parlour.toml"
    edited.write_text(shown.output.replace("deguo_bonus = 5", "deguo_bonus = 10"))
    ok = runner.invoke(app, ["rules", "check", str(edited)])
    assert ok.exit_code == 0 and "ok: xingguo" in ok.output
    r = runner.invoke(
        app, ["settle", "-", "--preset", str(edited)], input=json.dumps(SETTLE_REQUEST)
    )
    assert r.exit_code == 0, r.output
    win = [ln["amount"] for ln in json.loads(r.output)["lines"] if ln["code"].startswith("win")]
    assert sorted(win) == [14, 14, 18]  # the bonus is now 10
    bad = tmp_path / "bad.toml"
    bad.write_text(shown.output.replace("deguo_bonus = 5", 'deguo_bonus = "five"'))
    r = runner.invoke(app, ["rules", "check", str(bad)])
    assert r.exit_code == 2 and "win.deguo_bonus" in r.output


def test_rules_check_refuses_an_option_the_engine_does_not_read(tmp_path: Path) -> None:
    shown = runner.invoke(app, ["rules", "show", "xingguo"]).output
    edited = tmp_path / "parlour.toml"
    edited.write_text(shown.replace("[win]\n", "[win]\nseize_dealer_big = true\n", 1))
    r = runner.invoke(app, ["rules", "check", str(edited)])
    assert r.exit_code == 2 and "win.seize_dealer_big: unknown field" in r.output


def test_settle_needs_says_what_to_enter_and_a_partial_entry_settles_alike() -> None:
    r = runner.invoke(app, ["settle", "--needs", "xingguo", "--kind", "self_draw"])
    assert r.exit_code == 0, r.output
    needs = json.loads(r.output)["self_draw"]
    assert needs["others"] == {"jing": ["jing"], "kongs": True, "jing_claims": True}
    exhausted = json.loads(runner.invoke(app, ["settle", "--needs", "xingguo"]).output)
    assert exhausted["exhausted"]["confirm_only"] is True
    # the other seats by their 精 (5m 正精, 6m 副精) alone
    partial = [
        {"partial": True, "hand": "".join(k for k in s["hand"].split() if k in ("5m", "6m"))}
        for s in SETTLE_REQUEST["seats"]
    ]  # type: ignore[union-attr,index]
    partial[1] = SETTLE_REQUEST["seats"][1]  # type: ignore[index]
    whole = runner.invoke(app, ["settle", "-"], input=json.dumps(SETTLE_REQUEST))
    cut = runner.invoke(app, ["settle", "-"], input=json.dumps(SETTLE_REQUEST | {"seats": partial}))
    assert cut.exit_code == 0, cut.output
    assert json.loads(cut.output) == json.loads(whole.output)
    bad = runner.invoke(app, ["settle", "--needs", "xingguo", "--kind", "draw"])
    assert bad.exit_code == 2 and "kind:" in bad.output
