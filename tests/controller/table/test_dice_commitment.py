"""Dice fixed before the walls: each hand's seed is committed (SHA-256) before anything can
tell its wall, every roll derives from the seed, the seed comes out after the settlement,
and ``check_dice`` / ``mjtable verify-dice`` catch a roll or a seed that was changed.

The service test runs the real table service on the virtual table (ptys, bots, a real
Mosquitto) and looks, at the moment each lift order reaches the service, at what the
store already holds."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from controller.cli import app
from controller.runtime import running
from controller.table.dice import (
    DiceRoller,
    check_dice,
    commitment_of,
    dice_check_of,
    roll_of,
)
from engine.round.events import DiceCommitted, event_from_dict
from firmware_bridge.table_events import LiftOrder
from tests.controller.dice_hands import committed_hands
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    log_of,
    options,
    recording,
    until,
)

SEED_HEX = "00" * 31 + "01"


def test_a_roll_is_the_documented_hmac_of_the_seed() -> None:
    # HMAC-SHA256(seed, "roll:0"), bytes under 252 taken mod 6 + 1: worked by hand here
    import hashlib
    import hmac

    digest = hmac.new(bytes.fromhex(SEED_HEX), b"roll:0", hashlib.sha256).digest()
    faces = [b % 6 + 1 for b in digest if b < 252]
    assert roll_of(SEED_HEX, 0) == (faces[0], faces[1])
    text = f"mjtable-dice-commit-v1\nt1\ns1\n3\n{SEED_HEX}"
    assert commitment_of(SEED_HEX, "t1", "s1", 3) == hashlib.sha256(text.encode()).hexdigest()


def test_derived_faces_are_uniform() -> None:
    # 30 000 dice from one seed: each face within 4.5 standard deviations of 1/6
    counts = Counter(f for n in range(15_000) for f in roll_of(SEED_HEX, n))
    n, p = 30_000, 1 / 6
    sd = (n * p * (1 - p)) ** 0.5
    assert all(abs(counts[f] - n * p) < 4.5 * sd for f in range(1, 7)), counts


def test_seeds_from_secrets_differ_and_a_seeded_roller_repeats() -> None:
    assert DiceRoller().new_seed(1) != DiceRoller().new_seed(1)
    assert DiceRoller(7).new_seed(3) == DiceRoller(7).new_seed(3) != DiceRoller(7).new_seed(4)


def _hand() -> list[dict[str, Any]]:
    return committed_hands(1, seed=5)[0]


def _tamper(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    out = [dict(e) for e in events]
    if kind == "roll":
        first = next(e for e in out if e["type"] == "dice_rolled")
        first["b"] = first["b"] % 6 + 1  # one die one pip further
    elif kind == "seed":
        seed = next(e for e in out if e["type"] == "dice_seed_revealed")
        seed["seed"] = "f" + seed["seed"][1:] if seed["seed"][0] != "f" else "e" + seed["seed"][1:]
        commit = next(e for e in out if e["type"] == "dice_committed")
        commit["seed"] = seed["seed"]  # a consistent forgery: both copies changed
    return out


def test_a_committed_hand_verifies_and_tampering_fails() -> None:
    events = _hand()
    verdict = dice_check_of(events)
    assert verdict.ok is True and verdict.rolls >= 2 and verdict.problems == []

    roll = dice_check_of(_tamper(events, "roll"))
    assert roll.ok is False
    assert any(p.startswith("roll 0 (break") and "the seed gives" in p for p in roll.problems)

    seed = dice_check_of(_tamper(events, "seed"))
    assert seed.ok is False
    assert any("does not match the commitment" in p for p in seed.problems)


def test_a_commitment_logged_after_the_wall_fails() -> None:
    events = _hand()
    commit = next(e for e in events if e["type"] == "dice_committed")
    moved = [e for e in events if e is not commit]
    moved.insert(next(i for i, e in enumerate(moved) if e["type"] == "shuffled") + 1, commit)
    verdict = dice_check_of(moved)
    assert verdict.ok is False and "the commitment is logged after the wall" in verdict.problems


def test_the_commitment_names_its_table_session_and_hand() -> None:
    events = _hand()
    commit = event_from_dict(next(e for e in events if e["type"] == "dice_committed"))
    assert isinstance(commit, DiceCommitted)
    ok = {"table": commit.table, "session_id": commit.session, "hand_no": commit.hand_no}
    assert dice_check_of(events, ok).ok is True
    other = dice_check_of(events, ok | {"hand_no": commit.hand_no + 1})
    assert other.ok is False and "the commitment names hand_no" in other.problems[0]


def test_a_log_without_a_commitment_is_unverified() -> None:
    events = [e for e in _hand() if not e["type"].startswith("dice_") or e["type"] == "dice_rolled"]
    verdict = dice_check_of(events)
    assert verdict.ok is None and verdict.verdict == "unverified"


def _write_lines(path: Path, events: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events))
    return path


def test_verify_dice_command(tmp_path: Path) -> None:
    runner = CliRunner()
    events = _hand()
    good = runner.invoke(app, ["verify-dice", str(_write_lines(tmp_path / "good.jsonl", events))])
    assert good.exit_code == 0, good.output
    assert "derive from the committed seed" in good.output

    bad = _write_lines(tmp_path / "roll.jsonl", _tamper(events, "roll"))
    out = runner.invoke(app, ["verify-dice", str(bad)])
    assert out.exit_code == 1
    assert (
        "dice: FAILED" in out.output and "logged" in out.output and "the seed gives" in out.output
    )

    seed = _write_lines(tmp_path / "seed.jsonl", _tamper(events, "seed"))
    out = runner.invoke(app, ["verify-dice", str(seed)])
    assert out.exit_code == 1 and "the seed does not match the commitment" in out.output

    # a hub handlog (one JSON object): its table, session and hand number are checked too
    commit = next(e for e in events if e["type"] == "dice_committed")
    doc = {"table": commit["table"], "session_id": "another", "hand_no": 1, "events": events}
    (tmp_path / "handlog.json").write_text(json.dumps(doc))
    out = runner.invoke(app, ["verify-dice", str(tmp_path / "handlog.json")])
    assert out.exit_code == 1 and "the commitment names session_id" in out.output

    (tmp_path / "junk.jsonl").write_text("{not json\n")
    out = runner.invoke(app, ["verify-dice", str(tmp_path / "junk.jsonl")])
    assert out.exit_code == 2


def test_verify_dice_says_chinese_first_with_the_english_beside(tmp_path: Path) -> None:
    runner = CliRunner()
    events = _hand()
    good = runner.invoke(app, ["verify-dice", str(_write_lines(tmp_path / "good.jsonl", events))])
    assert "骰子：全部" in good.output and "出自承诺的种子 (dice: all" in good.output
    bad = _write_lines(tmp_path / "roll.jsonl", _tamper(events, "roll"))
    out = runner.invoke(app, ["verify-dice", str(bad)])
    assert "骰子：核对失败 (dice: FAILED)" in out.output and "问题：第 " in out.output
    (tmp_path / "junk.jsonl").write_text("{not json\n")
    out = runner.invoke(app, ["verify-dice", str(tmp_path / "junk.jsonl")])
    assert out.exit_code == 2 and out.output.startswith("错误：") and "(error: " in out.output
    out = runner.invoke(app, ["verify-dice"])
    assert out.output.startswith("错误：请给一个记录文件，或 --hand 局号")


def _commit_of(stored: Any) -> DiceCommitted:
    return next(e for e in log_of(stored) if isinstance(e, DiceCommitted))


def test_the_service_commits_before_the_lift_order_and_every_roll_verifies(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    config = config_for(data_dir(tmp_path), "xingguo", mosquitto.url)
    at_lift: list[list[str]] = []  # what the store held for the open hand at each lift order

    async def main() -> None:
        async with recording(mosquitto.port) as rec, running(config, options(3, 3)) as run:
            service = run.service
            handle = service.handle

            def watched(event: Any, now: float) -> None:
                if isinstance(event, LiftOrder):
                    found = run.store.open_hand()
                    at_lift.append(
                        [] if found is None else [e["type"] for e in found.event_dicts()]
                    )
                handle(event, now)

            service.handle = watched  # type: ignore[method-assign]
            await asyncio.wait_for(service.run(asyncio.Event()), GUARD * 2)
            await asyncio.wait_for(run.publisher.wait_drained(), GUARD)
            hands = finished_hands(run.store)
            await until(lambda: len(rec.of("settlement")) >= 3, "three settlements published")
            return_value.extend(hands)
            messages.extend(rec.messages)

    return_value: list[Any] = []
    messages: list[tuple[str, Any, bool]] = []
    asyncio.run(main())
    assert len(return_value) == 3
    # each lift order found its hand opened and its dice committed, its walls not yet
    # each lift order found its hand opened and its dice committed, its walls not yet;
    # except the first build when the virtual table raised it before the service listened:
    # that hand commits on walls already up, and says so (before_walls False)
    committed_first = [t for t in at_lift if t]
    assert len(committed_first) >= 2
    for types in committed_first:
        assert types[:2] == ["hand_started", "dice_committed"] and "shuffled" not in types
    late = [h for h in return_value if not _commit_of(h).before_walls]
    assert len(late) == len(at_lift) - len(committed_first) <= 1
    assert all(h.hand.hand_no == 1 for h in late)
    for stored in return_value:
        log = log_of(stored)
        types = [e.type for e in log]
        assert types.index("dice_committed") < types.index("shuffled")
        assert types[-2:] == ["settled", "dice_seed_revealed"]
        commit = _commit_of(stored)
        said = {"hand_no": stored.hand.hand_no, "session_id": stored.hand.session_id, "table": "t1"}
        verdict = check_dice(log, said)
        assert verdict.ok is True and verdict.rolls >= 2, verdict.lines()
        assert any("walls already up" in n for n in verdict.notes) == (not commit.before_walls)
        # published: the commitment (no seed) before the wall, the seed after the settlement
        stream = [
            p["event"] for n, p, _ in messages if n == "events" and p["hand_id"] == stored.hand.id
        ]
        kinds = [e["type"] for e in stream]
        assert kinds.index("dice_committed") < kinds.index("shuffled")
        public = stream[kinds.index("dice_committed")]
        assert "seed" not in public and public["commitment"] == commit.commitment
        assert stream[-1] == {"type": "dice_seed_revealed", "seed": commit.seed}
        assert kinds.index("settled") < kinds.index("dice_seed_revealed")
    # no public message carries a seed before its hand's settlement
    for stored in return_value:
        seed = next(e for e in log_of(stored) if isinstance(e, DiceCommitted)).seed
        first = next(i for i, (_, p, _) in enumerate(messages) if seed in json.dumps(p))
        settled = next(
            i
            for i, (n, p, _) in enumerate(messages)
            if n == "events" and p["hand_id"] == stored.hand.id and p["event"]["type"] == "settled"
        )
        assert first > settled


def test_a_changed_hand_number_is_named_not_taken_for_a_wrong_seed(tmp_path: Path) -> None:
    events = _hand()
    commit = next(e for e in events if e["type"] == "dice_committed")
    edited = [dict(e) for e in events]
    was = commit["hand_no"]
    next(e for e in edited if e["type"] == "dice_committed")["hand_no"] = was + 5
    out = CliRunner().invoke(app, ["verify-dice", str(_write_lines(tmp_path / "h.jsonl", edited))])
    assert out.exit_code == 1
    assert f"承诺记录的 hand_no 被改过：承诺时是 {was}，现在是 {was + 5}" in out.output
    assert f"its hand_no was changed from {was} to {was + 5}" in out.output


def test_a_changed_commitment_shows_where_the_digests_part() -> None:
    events = [dict(e) for e in _hand()]
    commit = next(e for e in events if e["type"] == "dice_committed")
    digest = commit["commitment"]
    k = 20  # one hex digit changed, past the first sixteen
    commit["commitment"] = digest[:k] + ("0" if digest[k] != "0" else "1") + digest[k + 1 :]
    (problem,) = dice_check_of(events).problems
    assert problem.startswith(f"种子与承诺不符，自第{k + 1}位起不同：")
    assert f"SHA-256 算得 {digest[:k]}[{digest[k:]}]" in problem
    assert f"承诺为 {digest[:k]}[{commit['commitment'][k:]}]" in problem
    assert f"they differ from digit {k + 1}" in problem
