"""analyze: readings, shapes, wildcards_used / 德国 / 精吊, and tile accounting."""

from __future__ import annotations

import random

import pytest

from engine.analysis import analyze, is_win
from engine.hand import GroupType, Meld, MeldType, Reading, Shape, ShapeOptions
from engine.tiles import counts_of, parse_kind, parse_kinds
from tests.engine.analysis_helpers import random_hand, reading_tiles_ok, winning_hand

ALL = ShapeOptions(shapes=frozenset(Shape))
DEFAULT = ShapeOptions()
JING = frozenset({parse_kind("5m"), parse_kind("6m")})  # 正精 5m, 副精 6m


def _read(
    text: str,
    wild: frozenset[int] = frozenset(),
    win: str | None = None,
    options: ShapeOptions = DEFAULT,
    melds: tuple[Meld, ...] = (),
) -> list[Reading]:
    kinds = parse_kinds(text)
    rs = analyze(kinds, melds, wild, options, parse_kind(win) if win else None)
    for r in rs:
        assert reading_tiles_ok(r, counts_of(kinds), wild, melds), r
    assert bool(rs) == is_win(counts_of(kinds), wild, options, melds)
    return rs


def _shapes(rs: list[Reading]) -> set[Shape]:
    return {r.shape for r in rs}


def test_plain_pinghu_and_daqi() -> None:
    rs = _read("123m 456m 789m 123p 11s")
    assert [r.shape for r in rs] == [Shape.PINGHU]
    assert rs[0].pair is not None and rs[0].pair.kinds == (18, 18)
    assert not rs[0].deguo and rs[0].wildcards_used == 0
    rs = _read("111m 999p EEE CCC 55s")
    assert [r.shape for r in rs] == [Shape.DAQI]
    # 111222333m: all pungs or three chows: structurally different, both reported
    rs = _read("111222333m 456p 11s")
    assert len(rs) == 2 and _shapes(rs) == {Shape.PINGHU}
    rs = _read("111222333m 444p 11s")
    assert _shapes(rs) == {Shape.PINGHU, Shape.DAQI}


def test_distinct_readings() -> None:
    rs = _read("11223344556677m")
    keys = [(r.shape, r.groups) for r in rs]
    assert len(keys) == len(set(keys))
    assert Shape.XIAOQI in _shapes(rs) and Shape.PINGHU in _shapes(rs)


def test_melds_in_groups() -> None:
    kong = Meld(MeldType.KONG_EXPOSED, (27, 27, 27, 27), from_seat=1)
    pung = Meld(MeldType.PUNG, (31, 31, 31), from_seat=2)
    rs = _read("111m 999p 55s", melds=(kong, pung))
    assert [r.shape for r in rs] == [Shape.DAQI]
    melded = [g for g in rs[0].groups if g.melded]
    assert [g.type for g in melded] == [GroupType.KONG, GroupType.PUNG]
    chow = Meld(MeldType.CHOW, (0, 1, 2), from_seat=3)
    assert [r.shape for r in _read("999p EEE 55s", melds=(chow, pung))] == [Shape.PINGHU]


def test_xiaoqi_four_alike_is_two_pairs() -> None:
    rs = _read("1111m 22p 33p 44s 55s EE")
    q = [r for r in rs if r.shape is Shape.XIAOQI]
    assert len(q) == 1
    assert sum(1 for g in q[0].groups if g.kinds == (0, 0)) == 2


def test_deguo_and_wildcard_readings() -> None:
    # 5m and 6m jing as themselves in 456m: 德国
    rs = _read("456m 123p 789p 123s 99s", JING)
    assert any(r.deguo for r in rs)
    # jing standing for 3p: used once; no 德国 reading exists
    rs = _read("12p 5m 456p 789p 123s 99s", JING)
    assert rs and not any(r.deguo for r in rs)
    assert min(r.wildcards_used for r in rs) == 1
    # three 5m jing as a set are a natural pung
    rs = _read("555m 123p 789p 123s 99s", JING)
    assert any(r.deguo and r.wildcards_used == 0 for r in rs)
    # both: 德国 (55m as a pair) and readings with jing standing for other tiles
    rs = _read("123p 456p 789p 123s 55m", JING)
    assert any(r.deguo for r in rs) and any(r.wildcards_used > 0 for r in rs)


def test_wildcard_groups_on_their_own() -> None:
    # three jing as a set, two as the pair
    rs = _read("123p 456p 789p 555m 66m", JING)
    assert any(r.deguo for r in rs)
    rs = _read("123p 456p 789p 556m 99s", JING)
    assert min(r.wildcards_used for r in rs) == 1  # 556m as a 5m pung, 6m standing in


def test_jingdiao() -> None:
    sets13 = "123p 456p 789p 123s "
    for win in ["1m", "9s", "E", "P", "4p"]:
        rs = _read(sets13 + "5m " + win, JING, win=win)
        assert any(r.jingdiao for r in rs), win
        jd = [r for r in rs if r.jingdiao]
        pair = jd[0].pair
        assert pair is not None and parse_kind(win) in pair.kinds
    # winning on the jing itself: 德国 精吊 (two 5m as themselves)
    rs = _read(sets13 + "5m 5m", JING, win="5m")
    assert any(r.jingdiao and r.deguo for r in rs)
    # a natural pair is not 精吊
    rs = _read(sets13 + "1s 1s", JING, win="1s")
    assert rs and not any(r.jingdiao for r in rs)
    # the pair is jing + 1s but the winning tile sits in a set: not 精吊
    rs = _read("123p 456p 789p 1s 23s 5m 1s", JING, win="3p")
    assert rs and not any(r.jingdiao for r in rs)


def test_jingdiao_xiaoqi() -> None:
    rs = _read("11m 22p 33p 44s 77s EE 5m C", JING, win="C")
    assert any(r.jingdiao and r.shape is Shape.XIAOQI for r in rs)
    rs = _read("11m 22p 33p 44s 77s EE CC", JING, win="C")
    assert not any(r.jingdiao for r in rs)


def test_any_tile_completes_a_lone_jing() -> None:
    sets13 = parse_kinds("123p 456p 789p 123s 5m")
    for k in range(34):
        if k == parse_kind("5m") or counts_of(sets13)[k] >= 4:
            continue
        rs = analyze([*sets13, k], wild=JING, winning_kind=k)
        assert any(r.jingdiao for r in rs), k


def test_fifth_copy_option() -> None:
    wild = frozenset({parse_kind("5p")})
    assert _read("1111m 234p 678p 789s 5p", wild)
    assert not _read("1111m 234p 678p 789s 5p", wild, options=ShapeOptions(fifth_copy=False))


def test_honor_sets() -> None:
    opts = ShapeOptions(honor_sets=True)
    rs = _read("ESW CFP 123m 456p NN", options=opts)
    assert rs and all(r.shape is Shape.PINGHU for r in rs)
    assert sum(g.type is GroupType.HONOR_SET for g in rs[0].groups) == 2
    assert not _read("ESW CFP 123m 456p NN")
    rs = _read("EEE SSS WWW 111m NN", options=opts)
    assert Shape.DAQI in _shapes(rs) and Shape.PINGHU in _shapes(rs)  # ESW ×3 is pinghu


LAN = ShapeOptions(shapes=frozenset({Shape.SHISANLAN, Shape.QIXING_SHISANLAN}))


@pytest.mark.parametrize(
    "text,shape",
    [
        ("147m 258p 369s ESWNC", Shape.SHISANLAN),
        ("148m 159p 2s ESWNCFP", Shape.QIXING_SHISANLAN),
        ("147m 258p 369s ESWNC".replace("ESWNC", "ESWCF"), Shape.SHISANLAN),
        ("14m 258p 36s ESWNCFP", Shape.QIXING_SHISANLAN),
    ],
)
def test_shisanlan_examples(text: str, shape: Shape) -> None:
    rs = _read(text, options=LAN)
    assert [r.shape for r in rs] == [shape]
    assert all(g.type is GroupType.SINGLE for g in rs[0].groups)


def test_shisanlan_rejects() -> None:
    assert not _read("137m 258p 369s ESWNC", options=LAN)  # 1m and 3m too close
    assert not _read("147m 258p 369s ESWNN", options=LAN)  # a pair


def test_shisanlan_wildcards() -> None:
    wild = frozenset({parse_kind("5m")})
    # 5m fills the missing 白: 七星 using a wildcard
    rs = _read("148m 169p 2s ESWNCF 5m", wild, options=LAN)
    assert [r.shape for r in rs] == [Shape.QIXING_SHISANLAN]
    assert rs[0].wildcards_used == 1
    # 5m as itself (1-5-8m): 德国 十三烂, and 七星 with the jing as 白
    rs = _read("158m 147p 25s ESWNCF", wild, options=LAN)
    assert {(r.shape, r.wildcards_used) for r in rs} == {
        (Shape.SHISANLAN, 0),
        (Shape.QIXING_SHISANLAN, 1),
    }
    no_fill = ShapeOptions(shapes=LAN.shapes, wild_in_shisanlan=False)
    assert not _read("148m 169p 2s ESWNCF 5m", wild, options=no_fill)


def test_qixing_honor_rule_chongji() -> None:
    strict = ShapeOptions(shapes=LAN.shapes, wild_for_qixing_honor=False)
    caishen = frozenset({parse_kind("9s")})
    # 财神 may fill a suited gap of 七风齐 ...
    rs = _read("14m 258p 3s 9s ESWNCFP", caishen, options=strict)
    assert Shape.QIXING_SHISANLAN in _shapes(rs)
    # ... but not a missing honor
    rs = _read("147m 258p 3s 9s ESWNCF", caishen, options=strict)
    assert Shape.QIXING_SHISANLAN not in _shapes(rs) and Shape.SHISANLAN in _shapes(rs)
    # nor an honor that is itself the 财神
    red = frozenset({parse_kind("C")})
    rs = _read("14m 258p 36s ESWNCFP", red, options=strict)
    assert Shape.QIXING_SHISANLAN not in _shapes(rs) and Shape.SHISANLAN in _shapes(rs)
    assert Shape.QIXING_SHISANLAN in _shapes(_read("14m 258p 36s ESWNCFP", red, options=LAN))


def test_shisanyao_jiulian_quanfeng_sicaishen() -> None:
    rs = _read("19m 19p 19s ESWNCFP E", options=ALL)
    assert [r.shape for r in rs] == [Shape.SHISANYAO]
    assert not _read("19m 19p 19s ESWNCF EE", options=ALL)
    rs = _read("1112345678999m 5m", options=ALL)
    assert {Shape.JIULIAN, Shape.PINGHU} <= _shapes(rs)
    # 九莲: 1112345678999 of one suit and any tile of that suit, never a tile of another
    jl = ShapeOptions(shapes=frozenset({Shape.JIULIAN}))
    for extra in ("1m", "9m"):
        assert [r.shape for r in _read("1112345678999m " + extra, options=jl)] == [Shape.JIULIAN]
    assert not _read("1112345678999m 5p", options=jl)
    assert not _read("1112345678889m 5m", options=jl)
    qf = ShapeOptions(shapes=frozenset({Shape.QUANFENG}))
    assert [r.shape for r in _read("EESWWNNCCFFPPS", options=qf)] == [Shape.QUANFENG]
    assert not _read("EESWWNNCCFFPP1m", options=qf)
    caishen = frozenset({parse_kind("3p")})
    assert _read("EESWWNNCCFFP 3p3p", caishen, options=qf)[0].wildcards_used == 2
    pung = Meld(MeldType.PUNG, (27, 27, 27))
    assert _read("SWWNNCCFFPP", options=qf, melds=(pung,))
    sc = ShapeOptions(shapes=frozenset({Shape.SICAISHEN}))
    rs = _read("3333p 159m 27s ESWNC", caishen, options=sc)
    assert [r.shape for r in rs] == [Shape.SICAISHEN]
    assert not _read("333p 159m 27s ESWNCF", caishen, options=sc)


def test_random_hands_readings_add_up() -> None:
    rng = random.Random(11)
    for n_wild in range(0, 8):
        for _ in range(40):
            c = winning_hand(rng) if rng.random() < 0.8 else random_hand(rng)
            w1 = rng.randrange(34)
            wild = frozenset({w1, (w1 + 1) % 34}) if n_wild else frozenset()
            kinds = [k for k in range(34) for _ in range(c[k])]
            for j in rng.sample(range(14), n_wild):
                kinds[j] = rng.choice(sorted(wild))
            if max(counts_of(kinds)) > 4:
                continue
            win = rng.choice(kinds)
            rs = analyze(kinds, wild=wild, options=ALL, winning_kind=win)
            assert bool(rs) == is_win(counts_of(kinds), wild, ALL)
            keys = [(r.shape, r.groups) for r in rs]
            assert len(keys) == len(set(keys))
            for r in rs:
                assert reading_tiles_ok(r, counts_of(kinds), wild, ())
                assert r.deguo == (r.wildcards_used == 0 and bool(wild))
                if r.shape in (Shape.SHISANLAN, Shape.QIXING_SHISANLAN):
                    assert not r.jingdiao
