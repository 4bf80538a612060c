"""Bounds and clear errors on the command line's input, and its refusal of requests that
cannot have happened.

Every bad input exits 2 with ``error: <field or input>: …`` on stderr and nothing on
stdout, never a traceback; ``analyze --json -`` answers a bad line and goes on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from controller.cli import app
from controller.cli.json_input import MAX_CHARS, MAX_DEPTH

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = json.loads((ROOT / "docs/examples/xingguo-deguo-self-draw.json").read_text())
DEEP = "[" * 200_000 + "]" * 200_000
runner = CliRunner()


def run(*args: str, stdin: str = "") -> Result:
    return runner.invoke(app, list(args), input=stdin)


def refused(result: Result, says: str, printed: bool = False) -> None:
    """Exit 2, the reason on stderr, stdout empty (unless ``printed``: replay prints the
    steps before the bad one), no traceback."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert isinstance(result.exception, SystemExit)
    assert printed or result.stdout == ""
    assert says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def settle_refuses(request: dict[str, Any], says: str) -> None:
    refused(run("settle", "-", stdin=json.dumps(request, ensure_ascii=False)), says)


def test_genzhuang_rounds_are_bounded() -> None:
    """10**6 rounds wrote 3 million lines: a hand holds at most 21 go-rounds."""
    settle_refuses(dict(EXAMPLE, extra={"genzhuang_rounds": 10**6}), "extra.genzhuang_rounds")
    ok = run("settle", "-", stdin=json.dumps(dict(EXAMPLE, extra={"genzhuang_rounds": 21})))
    assert ok.exit_code == 0
    assert sum(1 for ln in json.loads(ok.stdout)["lines"] if ln["code"] == "genzhuang") == 63


@pytest.mark.parametrize(
    ("extra", "field"),
    [({"false_win": [1, 1, 1]}, "extra.false_win"), ({"mai": [0, 0]}, "extra.mai")],
)
def test_seat_lists_name_each_seat_once(extra: dict[str, Any], field: str) -> None:
    settle_refuses(dict(EXAMPLE, extra=extra), field)


def test_deep_json_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    refused(run("settle", "-", stdin=DEEP), f"nested 200000 deep, more than {MAX_DEPTH}")
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    refused(run("settle", str(path)), "nested 200000 deep")
    refused(run("replay", str(path)), "deep.json:1: input: nested 200000 deep")
    options = {"win": {"x": json.loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))}}
    settle_refuses(dict(EXAMPLE, options=options), f"nested {MAX_DEPTH + 4} deep")


def test_oversized_input_is_refused(tmp_path: Path) -> None:
    big = json.dumps(dict(EXAMPLE, pad="x" * MAX_CHARS))
    refused(run("settle", "-", stdin=big), "longer than")
    path = tmp_path / "big.jsonl"
    path.write_text(big + "\n")
    refused(run("replay", str(path)), "big.jsonl:1: longer than")


def test_analyze_json_lines_go_on_after_a_bad_line() -> None:
    good = json.dumps({"hand": "123m 456p 789s EEE 55m"})
    lines = [DEEP, "x" * (MAX_CHARS + 10), '{"hand": "123m", "indicator": 5}', "[1, 2", good]
    r = run("analyze", "--json", "-", stdin="\n".join(lines) + "\n")
    assert r.exit_code == 0, r.stderr
    outs = [json.loads(line) for line in r.stdout.splitlines()]
    assert [o.get("error", "")[:20] for o in outs[:4]] == [
        "input: nested 200000",
        "input: a line longer",
        "indicator: expected ",
        "input: not JSON (Exp",
    ]
    assert outs[4]["win"] is True


def test_replay_of_an_empty_log(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    refused(run("replay", str(path)), "no events")


def test_replay_of_a_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "log.bin"
    path.write_bytes(b"\xff\xfe\x00garbage")
    refused(run("replay", str(path)), "not UTF-8")


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("[1, 2]", "log.jsonl:1: expected a JSON object"),
        ('{"type": "nothing"}', "log.jsonl:1: unknown event type 'nothing'"),
        ('{"type": "dice_rolled", "purpose": "break"}', "log.jsonl:1: dice_rolled."),
    ],
)
def test_replay_names_the_line_it_cannot_read(tmp_path: Path, line: str, says: str) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text(line + "\n")
    refused(run("replay", str(path)), says)


def test_analyze_refuses_a_meld_its_tiles_do_not_make() -> None:
    refused(run("analyze", "123m 456p 11s 2s 3s", "--melds", "chow 124p"), "melds: not a chow")
    refused(run("analyze", "123m 456p 11s 2s 3s", "--melds", "kong 777p"), "melds: a kong")


def test_replay_refuses_a_tile_dealt_twice(tmp_path: Path) -> None:
    log = tmp_path / "hands.jsonl"
    assert run("simulate", "--ruleset", "xingguo", "--hands", "1", "--log", str(log)).exit_code == 0
    events = [json.loads(line) for line in log.read_text().splitlines()]
    for unknown_order in (False, True):
        changed = json.loads(json.dumps(events))
        for e in changed:
            if e["type"] == "shuffled" and unknown_order:
                e["order"] = None  # a live table that does not know the wall
            if e["type"] == "dealt":
                e["tiles"][1][0] = e["tiles"][0][0]
        log.write_text("\n".join(json.dumps(e) for e in changed) + "\n")
        tile = changed[[e["type"] for e in changed].index("dealt")]["tiles"][0][0]
        refused(run("replay", "--quiet", str(log)), f"dealt: seat 1's tile {tile}", printed=True)


def test_lang_is_zh_or_en() -> None:
    assert run("analyze", "123m 456p 789s EEE 55m", "--lang", "en").exit_code == 0
    r = run("analyze", "123m 456p 789s EEE 55m", "--lang", "xx")
    assert r.exit_code == 2 and "xx" in r.stderr


def win_request(win: dict[str, Any], melds: dict[int, list[Any]] | None = None) -> dict[str, Any]:
    seats = [dict(s) for s in EXAMPLE["seats"]]
    for seat, ms in (melds or {}).items():
        seats[seat]["melds"] = ms
    return dict(EXAMPLE, seats=seats, win=dict(EXAMPLE["win"], **win))


@pytest.mark.parametrize(
    ("request_", "says"),
    [
        (win_request({"tian": True}), "win.tian: 天胡 is the dealer's win"),
        (win_request({"di": True, "tian": True}), "win.di: a win is 天胡 or 地胡"),
        (win_request({"from": "kong_replacement"}), "win.from: kong_replacement"),
        (win_request({"from": "rob_kong:2"}), "win.from: rob_kong:2"),
        ({k: v for k, v in EXAMPLE.items() if k != "indicator"}, "indicator: required"),
    ],
    ids=["tian-not-dealer", "tian-and-di", "no-kong", "no-pung", "no-indicator"],
)
def test_settle_refuses_what_cannot_have_happened(request_: dict[str, Any], says: str) -> None:
    settle_refuses(request_, says)


def test_rules_check_refuses_a_shape_the_family_cannot_price(tmp_path: Path) -> None:
    text = run("rules", "show", "xingguo").stdout
    path = tmp_path / "parlour.toml"
    path.write_text(text.replace("[shapes]\n", "[shapes]\njiulian = true\n"))
    refused(run("rules", "check", str(path)), "shapes.jiulian")
    refused(run("settle", "-", "--preset", str(path), stdin=json.dumps(EXAMPLE)), "jiulian")


def test_rules_check_refuses_a_deep_or_binary_preset(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    refused(run("rules", "check", str(path)), "preset:")
    path.write_bytes(b"\xff\xfe")
    refused(run("rules", "check", str(path)), "not UTF-8")


# --- fuzzing: whatever the JSON, a clean answer -------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)
FIELDS = st.sampled_from(
    ["ruleset", "dealer", "indicator", "seats", "win", "extra", "options", "dealer_streak"]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON)
def test_fuzz_settle_any_json(value: Any) -> None:
    r = run("settle", "-", stdin=json.dumps(value))
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), r.stderr
    assert r.stderr.startswith("error: ")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=FIELDS, value=JSON, seat_field=st.sampled_from(["hand", "melds", "discards"]))
def test_fuzz_settle_a_request_with_one_field_changed(
    field: str, value: Any, seat_field: str
) -> None:
    request = json.loads(json.dumps(EXAMPLE))
    request[field] = value
    if field == "seats" and isinstance(value, int):
        request["seats"] = json.loads(json.dumps(EXAMPLE["seats"]))
        request["seats"][value % 4][seat_field] = value
    r = run("settle", "-", stdin=json.dumps(request))
    assert r.exit_code in (0, 2) and isinstance(r.exception, SystemExit | None), r.stderr
    if r.exit_code == 2:
        assert r.stdout == "" and r.stderr.startswith("error: ")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(
        JSON
        | st.fixed_dictionaries(
            {"hand": JSON}, optional={"melds": JSON, "indicator": JSON, "ruleset": JSON}
        ),
        min_size=1,
        max_size=5,
    )
)
def test_fuzz_analyze_json_lines(lines: list[Any]) -> None:
    r = run("analyze", "--json", "-", stdin="".join(json.dumps(v) + "\n" for v in lines))
    assert r.exit_code == 0, r.stderr
    assert len(r.stdout.splitlines()) == len(lines)


@pytest.mark.parametrize("char", ["\x85", "\u2028", "\u2029"])
def test_an_answer_echoing_a_line_break_character_stays_one_line(char: str) -> None:
    """Hypothesis found it: an unknown field named U+0085 came back raw in the error, and
    str.splitlines() saw two lines. Every JSON the command line prints is one line."""
    lines = [{char: 1}, {"hand": "1m", "melds": [char + "1m"]}, {"hand": "1m1m1m" + char}]
    r = run("analyze", "--json", "-", stdin="".join(json.dumps(v) + "\n" for v in lines))
    assert r.exit_code == 0, r.stderr
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(answers) == 3, answers
    assert answers[0] == {"error": f"{char}: unknown field"}  # the text itself is kept


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=JSON)
def test_fuzz_replay_any_json_line(tmp_path_factory: pytest.TempPathFactory, value: Any) -> None:
    path = tmp_path_factory.mktemp("replay") / "log.jsonl"
    path.write_text(json.dumps(value) + "\n")
    r = run("replay", str(path))
    assert r.exit_code == 2 and isinstance(r.exception, SystemExit), r.stderr
