"""``mjtable simulate`` and ``mjtable replay``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from controller.cli import (
    app,
    commands,  # noqa: F401  (registers the commands)
)

runner = CliRunner()


def test_simulate_json_summary(tmp_path: Path) -> None:
    log = tmp_path / "hands.jsonl"
    args = ["simulate", "--ruleset", "xingguo", "--hands", "5", "--seed", "7", "--json"]
    r = runner.invoke(app, [*args, "--log", str(log)])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    for key in ("hands", "wins", "exhausted", "nets", "shapes", "hands_per_second"):
        assert key in out
    assert out["hands"] == 5 and len(out["nets"]) == 4 and sum(out["nets"]) == 0
    assert sum(out["shapes"].values()) <= out["wins"]
    lines = log.read_text(encoding="utf-8").splitlines()
    assert sum(1 for ln in lines if json.loads(ln)["type"] == "hand_started") == 5

    again = runner.invoke(app, [*args, "--log", str(tmp_path / "again.jsonl")])
    assert json.loads(again.output)["nets"] == out["nets"]  # a seed fixes every hand

    r = runner.invoke(app, ["replay", str(log)])
    assert r.exit_code == 0, r.output
    assert r.output.count("replay: settlement matches") == 5
    assert "1号位" in r.output  # Chinese by default, as every command's --lang
    english = runner.invoke(app, ["replay", "--lang", "en", str(log)])
    assert "discards" in english.output and "1号位" not in english.output


def test_simulate_human_summary_without_a_tty() -> None:
    r = runner.invoke(app, ["simulate", "--ruleset", "guangdong", "--hands", "3"])
    assert r.exit_code == 0, r.output
    assert "流局" in r.output and "hands/s" in r.output


def test_simulate_unknown_ruleset() -> None:
    r = runner.invoke(app, ["simulate", "--ruleset", "nope", "--hands", "1"])
    assert r.exit_code == 2


def test_replay_detects_a_tampered_settlement(tmp_path: Path) -> None:
    log = tmp_path / "one.jsonl"
    args = ["simulate", "--ruleset", "guangdong", "--hands", "1", "--json", "--log", str(log)]
    assert runner.invoke(app, args).exit_code == 0
    events = [json.loads(ln) for ln in log.read_text(encoding="utf-8").splitlines()]
    settled = events[-1]
    assert settled["type"] == "settled"
    settled["settlement"]["lines"] = []
    settled["settlement"]["net"] = [0, 0, 0, 0]
    log.write_text("\n".join(json.dumps(e) for e in events), encoding="utf-8")
    r = runner.invoke(app, ["replay", "--quiet", str(log)])
    assert r.exit_code == 1 and "MISMATCH" in r.output


def test_replay_rejects_garbage(tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text('{"type": "nonsense"}\n', encoding="utf-8")
    assert runner.invoke(app, ["replay", str(log)]).exit_code == 2


def test_replay_names_the_field_a_damaged_log_gets_wrong(tmp_path: Path) -> None:
    log = tmp_path / "one.jsonl"
    args = ["simulate", "--ruleset", "xingguo", "--hands", "1", "--json", "--log", str(log)]
    assert runner.invoke(app, args).exit_code == 0
    events = [json.loads(ln) for ln in log.read_text(encoding="utf-8").splitlines()]
    n = next(i for i, e in enumerate(events) if e["type"] == "drew")
    events[n]["seat"] = 7
    log.write_text("\n".join(json.dumps(e) for e in events), encoding="utf-8")
    r = runner.invoke(app, ["replay", str(log)])
    assert r.exit_code == 2
    assert f"one.jsonl:{n + 1}: drew.seat: Input should be less than or equal to 3" in r.output


def test_replay_refuses_a_hand_of_unknown_rules(tmp_path: Path) -> None:
    log = tmp_path / "odd.jsonl"
    log.write_text('{"type": "hand_started", "ruleset": "nope", "dealer": 0}\n', encoding="utf-8")
    r = runner.invoke(app, ["replay", str(log)])
    assert r.exit_code == 2 and "error: hand_started: ruleset: unknown ruleset 'nope'" in r.output


def test_replay_prints_the_session_totals_with_the_staff_acts(tmp_path: Path) -> None:
    from engine.round import event_from_dict, fold
    from engine.round.commands import Adjust, Audit
    from engine.round.replay import split_hands
    from engine.round.staff import act as staff_act

    log = tmp_path / "hands.jsonl"
    args = ["simulate", "--ruleset", "xingguo", "--hands", "2", "--seed", "7", "--json"]
    nets = json.loads(runner.invoke(app, [*args, "--log", str(log)]).output)["nets"]
    events = [event_from_dict(json.loads(ln)) for ln in log.read_text().splitlines()]
    last = list(split_hands(events))[-1]
    audit = Audit("ann", "staff", "2026-12-06T21:30:00+00:00", "1号位多收了")
    act = staff_act(fold(last), Adjust(audit, 0, 1, 7))[0]
    with log.open("a", encoding="utf-8") as f:
        f.write(json.dumps(act.to_dict(), ensure_ascii=False) + "\n")

    r = runner.invoke(app, ["replay", "--quiet", "--lang", "zh", str(log)])
    assert r.exit_code == 0, r.output
    # the act itself, with its time, who and why, even in --quiet
    said = "2026-12-06T21:30:00+00:00  工作人员 ann：调整：1号位 付 2号位 7（1号位多收了）"
    assert said in r.output
    want = [nets[0] - 7, nets[1] + 7, nets[2], nets[3]]
    seats = "  ".join(f"{s + 1}号位 {n:+d}" for s, n in enumerate(want))
    assert r.output.splitlines()[-1] == f"累计（含工作人员操作 1 次）：{seats}"
