"""The house-rules form's options: every field of every built-in preset in the owners'
words, its allowed values and the preset's own note; and the preview, whose sample hands
settle exactly as ``mjtable settle --preset`` does with the same values."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from controller.cli import (
    app,
    commands,  # noqa: F401  (registers the commands)
)
from controller.house.labels import GROUPS
from controller.house.options import HouseRulesError, catalog, check_house, preset_toml
from controller.house.preview import preview, sample_hands
from engine.rulesets import builtin_ids

runner = CliRunner()


@pytest.mark.parametrize("base", builtin_ids())
def test_every_option_of_every_builtin_has_a_chinese_label_and_a_group(base: str) -> None:
    options = catalog(base)
    assert options
    for option in options:
        assert option.label != option.key, f"{base}: {option.key} has no label"
        assert option.group in GROUPS
        assert option.check(option.default) == option.default  # the preset's value is allowed
    assert len(sample_hands(base)) == 3


def test_the_form_carries_the_presets_seed_notes_and_decisions() -> None:
    by_key = {o.key: o for o in catalog("xingguo")}
    assert by_key["shapes.fifth_copy"].note == "[decision]"
    assert "胡前不胡后" in by_key["table.multiple_winners"].note
    orders = ("nearest", "all", "largest", "protected_first")
    assert by_key["table.multiple_winners"].choices == orders
    assert by_key["win.deguo_bonus"].allowed() == "0 到 1000000 的整数"


_CJK = re.compile(r"[\u3400-\u9fff]")


@pytest.mark.parametrize("base", builtin_ids())
def test_every_choice_of_every_option_of_every_builtin_is_said_in_words(base: str) -> None:
    """The form, the preview, the refusal and the audit say each value of an option that
    takes one of several in Chinese (English on the toggle), never as its raw id."""
    for option in catalog(base):
        if option.kind != "choice":
            continue
        said = option.as_dict()["words"]
        assert len(said) == len(option.choices)
        for choice, words in zip(option.choices, said, strict=True):
            assert words is not None, f"{base}: {option.key} = {choice!r} has no words"
            assert _CJK.search(words["zh"]) and words["zh"] != choice, (option.key, choice)
            assert words["en"] and words["en"] != choice, (option.key, choice)
            assert str(choice) not in option.allowed()


def test_a_refused_choice_lists_the_allowed_ones_in_words() -> None:
    with pytest.raises(HouseRulesError) as refused:
        check_house("xingguo", {"table.multiple_winners": "first"})
    said = str(refused.value)
    assert "「一炮多人胡时」" in said and "「点炮后最近的一家胡」、「都算胡」" in said
    assert "nearest" not in said


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"win.deguo_bonus": -1}, "「德国奖分」"),
        ({"win.deguo_bonus": "5"}, "「德国奖分」"),
        ({"jing.bao": 1}, "「放精冲关或霸精由放者包」"),
        ({"extras.exhausted": "all"}, "「流局时计分」"),
        ({"shapes.jiulian": True}, "「九莲宝灯可胡」"),
        ({"win.nothing": 1}, "没有这个选项"),
    ],
)
def test_a_bad_value_is_refused_naming_the_option_in_words(
    options: dict[str, object], named: str
) -> None:
    with pytest.raises(HouseRulesError, match=named):
        check_house("xingguo", options)


_LATIN = re.compile(r"[A-Za-z]{3,}")


@pytest.mark.parametrize(
    ("base", "options", "engine_says"),
    [
        ("chongji", {"shapes.shisanyao": True}, "has no price for this shape"),
        ("jian", {"table.multiple_winners": "largest"}, "cannot apply “the largest hand wins”"),
    ],
)
def test_a_ruleset_the_engine_refuses_as_a_whole_is_refused_in_chinese_words(
    base: str, options: dict[str, object], engine_says: str
) -> None:
    """The engine's reason is worded (controller/words/house_rules.py); its English is
    ``en``, never in the Chinese after the option's name."""
    with pytest.raises(HouseRulesError) as refused:
        check_house(base, options)
    (key,) = options
    zh = str(refused.value).replace(f"（{key}）", "")  # (the option's key beside its label)
    assert zh.startswith("「") and not _LATIN.search(zh), zh
    assert engine_says in refused.value.en


def _settle_cli(hand: dict[str, object], preset: Path) -> dict[str, object]:
    request = preset.with_suffix(".json")
    request.write_text(json.dumps(hand), encoding="utf-8")
    done = runner.invoke(app, ["settle", str(request), "--preset", str(preset)])
    assert done.exit_code == 0, done.output
    result: dict[str, object] = json.loads(done.output)
    return result


def test_the_previews_hands_equal_mjtable_settle_under_each_set_of_values(
    tmp_path: Path,
) -> None:
    old: dict[str, object] = {}
    new = check_house("xingguo", {"win.deguo_bonus": 10})
    shown = preview("xingguo", old, new)
    assert len(shown) == 3
    for label, values in (("old", old), ("new", new)):
        preset = tmp_path / f"{label}.toml"
        preset.write_text(preset_toml("xingguo", values, "本店兴国"), encoding="utf-8")
        check = runner.invoke(app, ["rules", "check", str(preset)])
        assert check.exit_code == 0, check.output
        for i, sample in enumerate(shown):
            assert sample[label] == _settle_cli(sample["hand"], tmp_path / f"{label}.toml"), i
    # the 德国 hands pay the new bonus: the preview shows a difference
    assert any(s["old"]["net"] != s["new"]["net"] for s in shown)
