import pytest

from engine.tiles import (
    EAST,
    GREEN,
    NORTH,
    RED,
    WHITE,
    TileNotationError,
    format_kinds,
    kind_name,
    kind_of,
    parse_kind,
    parse_kinds,
    successor,
    zh_name,
)


def test_parse_suits_and_honors() -> None:
    kinds = parse_kinds("123m 456s 789p ESWN CFP")
    assert [kind_name(k) for k in kinds[:3]] == ["1m", "2m", "3m"]
    assert format_kinds(kinds) == "123m 789p 456s ESWN CFP"
    assert len(kinds) == 16


def test_spaces_optional_and_z_notation() -> None:
    assert parse_kinds("123m456p") == parse_kinds("1m 2m 3m 4p5p6p")
    # 1z–7z = 东 南 西 北 白 发 中 (Tenhou order)
    assert parse_kinds("1234567z") == [EAST, EAST + 1, EAST + 2, NORTH, WHITE, GREEN, RED]


@pytest.mark.parametrize("bad", ["12x", "0m", "8z", "12m Q", "中"])
def test_bad_token_is_named(bad: str) -> None:
    with pytest.raises(TileNotationError) as err:
        parse_kinds(bad)
    assert "not a tile" in str(err.value)


def test_successor_cycle() -> None:
    assert successor(parse_kind("9m")) == parse_kind("1m")
    assert successor(parse_kind("1p")) == parse_kind("2p")
    assert successor(parse_kind("9s")) == parse_kind("1s")
    assert successor(parse_kind("N")) == parse_kind("E")
    assert successor(parse_kind("E")) == parse_kind("S")
    assert successor(parse_kind("C")) == parse_kind("F")  # 中 -> 发
    assert successor(parse_kind("F")) == parse_kind("P")  # 发 -> 白
    assert successor(parse_kind("P")) == parse_kind("C")  # 白 -> 中


def test_chinese_names() -> None:
    assert zh_name(parse_kind("1m")) == "一万"
    assert zh_name(parse_kind("9p")) == "九筒"
    assert zh_name(parse_kind("5s")) == "五条"
    assert zh_name(parse_kind("E"), long=False) == "东"
    assert [zh_name(k, long=False) for k in parse_kinds("CFP")] == ["中", "发", "白"]


def test_a_physical_tiles_kind_is_its_id_over_four() -> None:
    assert [kind_of(t) for t in range(136)] == [k for k in range(34) for _ in range(4)]
