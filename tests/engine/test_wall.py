import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rulesets import PresetError, builtin_ids, load_ruleset
from engine.tiles import NUM_TILES, kind_of, parse_kind, successor
from engine.wall import (
    RING_STACKS,
    BreakProcedure,
    Dice,
    End,
    FlipKind,
    FlipPurpose,
    JumpStyle,
    StartAt,
    Wall,
    WallRules,
    break_position,
    count_seat,
    order_from_draw_sequence,
    ring_stack,
    ring_stack_from_left,
    second_roller,
    wall_place,
)

IDENTITY = list(range(NUM_TILES))  # tile id == position: assertions read as positions


def rules_of(ruleset: str) -> WallRules:
    """A built-in ruleset's wall rules, from its preset (their one source)."""
    return load_ruleset(ruleset).wall_rules()


def tile_of_kind(text: str, copy: int = 0) -> int:
    return parse_kind(text) * 4 + copy


def order_with(placed: dict[int, int]) -> list[int]:
    """An order with the given tiles at the given positions, the rest filled in."""
    order: list[int | None] = [None] * NUM_TILES
    for pos, tile in placed.items():
        order[pos] = tile
    rest = iter(t for t in range(NUM_TILES) if t not in placed.values())
    return [t if t is not None else next(rest) for t in order]


# --- geometry ------------------------------------------------------------------------


def test_ring_layout() -> None:
    assert ring_stack(0, 1) == 0
    assert ring_stack(0, 17) == 16
    assert ring_stack(3, 1) == 17  # after seat 0's left end comes its 上家's right end
    assert ring_stack(2, 1) == 34
    assert ring_stack(1, 1) == 51
    assert ring_stack(1, 17) == 67
    assert ring_stack(1, 18) == 0  # counting past a wall's left end goes on clockwise
    assert ring_stack_from_left(0, 1) == 16
    assert ring_stack_from_left(3, 7) == ring_stack(3, 11)
    for stack in range(RING_STACKS):
        owner, n = wall_place(stack)
        assert ring_stack(owner, n) == stack
    with pytest.raises(ValueError):
        ring_stack(4, 1)
    with pytest.raises(ValueError):
        ring_stack(0, 0)


def test_count_seat_counterclockwise_from_one() -> None:
    # 1, 5, 9 the roller; 2, 6, 10 下家; 3, 7, 11 对家; 4, 8, 12 上家
    assert [count_seat(0, n) for n in range(1, 13)] == [0, 1, 2, 3] * 3
    assert count_seat(2, 2) == 3
    assert count_seat(3, 2) == 0


def test_dice_validation() -> None:
    for a, b in [(0, 1), (1, 7), (-1, 3)]:
        with pytest.raises(ValueError):
            Dice(a, b)
    d = Dice(5, 2)
    assert (d.total, d.high, d.low) == (7, 5, 2)


# --- break procedures ----------------------------------------------------------------


def test_ruleset_procedures() -> None:
    assert {r: rules_of(r).procedure for r in builtin_ids()} == {
        "xingguo": BreakProcedure.TWO_ROLLS_TOTAL_LEFT,
        "nanchang": BreakProcedure.TWO_ROLLS_TOTAL_LEFT,
        "jian": BreakProcedure.HIGH_DIE_SEAT_LOW_DIE_PLUS_ONE,
        "yongfeng": BreakProcedure.TWO_ROLLS_TOTAL_LEFT,
        "lianhua": BreakProcedure.TWO_ROLLS_SECOND_SUM,
        "yichun": BreakProcedure.SUM_SEAT_SUM_STACKS,
        "chongji": BreakProcedure.SUM_SEAT_LOW_DIE_PLUS_ONE,
        "guangdong": BreakProcedure.SUM_SEAT_SUM_STACKS,
    }


def test_what_the_seeds_say_about_each_wall() -> None:
    # (flip, flipped tile in play, reserve 墩, 暗精, 下精), from the presets
    facts = {
        r: (w.flip, w.flip_in_play, w.reserve_stacks, w.an_jing, w.xia_jing)
        for r in builtin_ids()
        for w in [rules_of(r)]
    }
    jing, caishen, none = FlipKind.JING, FlipKind.CAISHEN, FlipKind.NONE
    assert facts == {
        "xingguo": (jing, False, 0, False, False),
        "nanchang": (jing, False, 0, False, False),
        "jian": (jing, False, 0, False, False),
        "yongfeng": (jing, False, 17, False, True),  # 预留17墩牌, 下精
        "lianhua": (jing, True, 0, True, False),  # 也能被杠走和摸走, 暗精
        "yichun": (none, True, 0, False, False),
        "chongji": (caishen, True, 0, False, False),
        "guangdong": (none, True, 0, False, False),
    }


def test_yongfeng_seed_example() -> None:
    # dealer 2+4 = 6 -> 下家; 下家 rolls 5+1; 6 + 6 = 12 墩 left -> start at 下家's 13th 墩
    proc = BreakProcedure.TWO_ROLLS_TOTAL_LEFT
    for dealer in range(4):
        xiajia = (dealer + 1) % 4
        assert second_roller(proc, dealer, Dice(2, 4)) == xiajia
        brk = break_position(proc, dealer, Dice(2, 4), Dice(5, 1))
        assert brk.wall_owner == xiajia
        assert brk.second_roller == xiajia
        assert brk.count == 12
        assert brk.start is StartAt.AFTER
        assert wall_place(brk.stack) == (xiajia, 13)


def test_yongfeng_count_past_the_wall_wraps_clockwise() -> None:
    brk = break_position(BreakProcedure.TWO_ROLLS_TOTAL_LEFT, 0, Dice(6, 6), Dice(6, 6))
    assert brk.wall_owner == 3  # 12 -> 上家
    # 24 墩 left: all 17 of seat 3's wall and 7 of the next wall clockwise (seat 2's)
    assert wall_place(brk.stack) == (2, 8)


def test_lianhua_second_sum_alone_start_at() -> None:
    proc = BreakProcedure.TWO_ROLLS_SECOND_SUM
    assert second_roller(proc, 0, Dice(1, 2)) == 2  # 3 -> 对家 rolls second
    brk = break_position(proc, 0, Dice(1, 2), Dice(4, 5))
    assert brk.count == 9
    assert brk.start is StartAt.AT
    assert wall_place(brk.stack) == (2, 9)  # the 9th 墩 right to left; drawing starts there


def test_jian_high_die_seat_low_die_plus_one() -> None:
    proc = BreakProcedure.HIGH_DIE_SEAT_LOW_DIE_PLUS_ONE
    assert second_roller(proc, 1, Dice(5, 2)) is None
    brk = break_position(proc, 1, Dice(5, 2))
    assert brk.wall_owner == 1  # 5 -> the dealer
    assert wall_place(brk.stack) == (1, 3)  # 2 + 1 = 3rd 墩, drawing starts AT it
    brk = break_position(proc, 1, Dice(2, 6))
    assert brk.wall_owner == 2  # 6 -> 下家
    assert wall_place(brk.stack) == (2, 3)


def test_chongji_seed_example() -> None:
    # 3+4 = 7 counted from the roller -> 对家; smaller die 3 + 1 -> the 4th 墩
    brk = break_position(BreakProcedure.SUM_SEAT_LOW_DIE_PLUS_ONE, 0, Dice(3, 4))
    assert brk.wall_owner == 2
    assert brk.count == 4
    assert wall_place(brk.stack) == (2, 4)


def test_yichun_and_guangdong_start_after_the_counted_stack() -> None:
    # seed 002 (docs/rules/README.md#seed-002): "点数为几则从第几墩后开始拿牌"
    brk = break_position(BreakProcedure.SUM_SEAT_SUM_STACKS, 0, Dice(3, 2))
    assert brk.wall_owner == 0
    assert wall_place(brk.stack) == (0, 6)
    brk = break_position(BreakProcedure.SUM_SEAT_SUM_STACKS, 1, Dice(6, 6))
    assert brk.wall_owner == 0  # 12 from seat 1 -> its 上家, seat 0
    assert wall_place(brk.stack) == (0, 13)
    # the start is a parameter
    brk = break_position(BreakProcedure.SUM_SEAT_SUM_STACKS, 0, Dice(3, 2), start=StartAt.AT)
    assert wall_place(brk.stack) == (0, 5)


def test_roll_count_is_checked() -> None:
    with pytest.raises(ValueError, match="second roll"):
        break_position(BreakProcedure.TWO_ROLLS_TOTAL_LEFT, 0, Dice(1, 1))
    with pytest.raises(ValueError, match="one roll"):
        break_position(BreakProcedure.SUM_SEAT_SUM_STACKS, 0, Dice(1, 1), Dice(1, 1))
    with pytest.raises(ValueError, match="dealer"):
        break_position(BreakProcedure.SUM_SEAT_SUM_STACKS, 4, Dice(1, 1))


# --- dealing -------------------------------------------------------------------------


def test_tiaozhuang_deal_tile_by_tile() -> None:
    # yichun, dealer seat 1, 3+2 = 5 -> the dealer's own wall, start after the 5th 墩:
    # seat 1's 6th 墩 = ring stack 56. Tile id == position.
    wall = Wall.open(rules_of("yichun"), 1, Dice(3, 2), order=IDENTITY)
    assert wall.break_.stack == 56
    deal = wall.deal()

    def run(first_stack: int) -> list[int]:  # two 墩, top then bottom each
        s = first_stack % RING_STACKS
        t = (first_stack + 1) % RING_STACKS
        return [2 * s, 2 * s + 1, 2 * t, 2 * t + 1]

    expected = {
        1: run(56) + run(64) + run(4) + [24, 26],  # dealer jumps: 1st and 3rd tile
        2: run(58) + run(66) + run(6) + [25],
        3: run(60) + run(0) + run(8) + [27],
        0: run(62) + run(2) + run(10) + [28],
    }
    for seat, tiles in expected.items():
        assert list(deal.tiles(seat)) == tiles
        assert list(deal.positions(seat)) == tiles
    assert [len(h) for h in deal.hands] == [13, 14, 13, 13]
    assert wall.taken_count == 53
    nxt = wall.peek_head()
    assert nxt is not None and nxt.position == 29  # bottom of stack 14 (its top went to seat 0)
    tail = wall.peek_tail()
    assert tail is not None and tail.position == 110  # stack 55's top: the 墩 before the break


def test_jump_style_tops_of_stacks_1_and_3() -> None:
    rules = WallRules(BreakProcedure.SUM_SEAT_SUM_STACKS, jump=JumpStyle.TOPS_OF_STACKS_1_3)
    wall = Wall.open(rules, 1, Dice(3, 2), order=IDENTITY)
    deal = wall.deal()
    assert deal.tiles(1)[-2:] == (24, 28)
    assert deal.tiles(2)[-1] == 25
    assert deal.tiles(3)[-1] == 26
    assert deal.tiles(0)[-1] == 27
    assert wall.take_head().position == 29


# --- 翻精, replacements, exhaustion (xingguo family) ----------------------------------


def xingguo_wall(order: list[int] | None = IDENTITY) -> Wall:
    # dealer 0, 1+1 -> 下家 (seat 1); 1+2; 2 + 3 = 5 left -> start at seat 1's 6th = stack 56
    wall = Wall.open(rules_of("xingguo"), 0, Dice(1, 1), Dice(1, 2), order=order)
    assert wall.break_.stack == 56
    return wall


def test_flip_counted_from_the_tail() -> None:
    wall = xingguo_wall()
    wall.deal()
    flip = wall.flip_jing(Dice(1, 2))  # 3 墩 from the tail: stacks 55, 54, 53 -> 53's top
    assert flip.purpose is FlipPurpose.JING
    assert flip.position == 106
    assert flip.tile == 106
    assert not flip.in_play
    assert wall.wildcard_kinds == (kind_of(106), successor(kind_of(106)))
    assert flip.under_tile is None  # no 暗精 outside lianhua


def test_wildcards_follow_the_successor_cycle() -> None:
    north = tile_of_kind("N", 2)
    wall = xingguo_wall(order_with({106: north}))
    wall.deal()
    wall.flip_jing(Dice(2, 1))
    assert wall.wildcard_kinds == (parse_kind("N"), parse_kind("E"))


def test_replacements_skip_the_flipped_tile() -> None:
    wall = xingguo_wall()
    wall.deal()
    wall.flip_jing(Dice(1, 2))  # stack 53 top (106) face up
    got = [wall.take_tail().position for _ in range(7)]
    # 55 top, bottom; 54 top, bottom; 53: the tile under the 精; then on to 52
    assert got == [110, 111, 108, 109, 107, 104, 105]
    assert not wall.is_taken(106)


def test_xingguo_exhausts_at_the_flipped_tile() -> None:
    wall = xingguo_wall()
    wall.deal()
    wall.flip_jing(Dice(1, 2))
    # head range: from draw index 53 up to the flipped 墩 (the 66th from the break)
    assert wall.live_count == 77
    for _ in range(3):
        wall.take_tail()  # replacements short of the flip do not shorten the live wall
    assert wall.live_count == 77
    draws = [wall.take_head() for _ in range(77)]
    assert draws[-1].position == 2 * 52 + 1  # the bottom of the 墩 just before the 精's 墩
    assert wall.is_exhausted
    assert wall.peek_head() is None
    with pytest.raises(ValueError, match="exhausted"):
        wall.take_head()
    # kongs now still get their replacements, up to the tile under the 精
    assert [wall.take_tail().position for _ in range(2)] == [109, 107]
    assert wall.peek_tail() is None


def test_replacements_past_the_flip_shorten_the_live_wall() -> None:
    wall = xingguo_wall()
    wall.deal()
    wall.flip_jing(Dice(1, 2))
    for _ in range(5):
        wall.take_tail()  # 110 111 108 109 107: everything up to the 精
    assert wall.live_count == 77
    assert wall.take_tail().position == 104  # past the 精, into the live wall
    assert wall.live_count == 75


@pytest.mark.parametrize("ruleset", builtin_ids())
def test_a_replacement_that_takes_the_heads_next_tile_exhausts_the_wall(ruleset: str) -> None:
    rules = rules_of(ruleset)
    wall = Wall.open(rules, 0, Dice(3, 4), Dice(2, 5) if rules.procedure.rolls == 2 else None)
    wall.deal()
    if rules.flip is FlipKind.JING:
        wall.flip_jing(Dice(1, 2))
    elif rules.flip is FlipKind.CAISHEN:
        wall.flip_caishen()
    while wall.live_count > 2:
        wall.take_head()
    nxt = wall.peek_head()  # the top of the last live 墩
    assert nxt is not None and not wall.is_exhausted
    # the replacements eat into the wall from the other end until they take that tile
    while wall.peek_tail() is not None and not wall.is_taken(nxt.position):
        wall.take_tail()
    assert wall.is_taken(nxt.position)
    assert wall.is_exhausted
    assert wall.peek_head() is None


def test_draws_need_deal_and_flip_first() -> None:
    wall = xingguo_wall()
    with pytest.raises(ValueError, match="dealt"):
        wall.take_head()
    with pytest.raises(ValueError, match="after the deal"):
        wall.flip_jing(Dice(1, 1))
    wall.deal()
    with pytest.raises(ValueError, match="already"):
        wall.deal()
    with pytest.raises(ValueError, match="turned up"):
        wall.peek_head()
    wall.flip_jing(Dice(1, 1))
    with pytest.raises(ValueError, match="already"):
        wall.flip_jing(Dice(1, 1))
    with pytest.raises(ValueError, match="下精"):
        wall.flip_xia_jing(Dice(1, 1))
    with pytest.raises(ValueError, match="财神"):
        wall.flip_caishen()


def test_jian_wall() -> None:
    wall = Wall.open(rules_of("jian"), 1, Dice(5, 2), order=IDENTITY)
    assert wall.break_.stack == 53  # dealer's wall, 3rd 墩
    deal = wall.deal()
    assert deal.tiles(1)[:4] == (106, 107, 108, 109)
    flip = wall.flip_jing(Dice(1, 1))  # 2nd 墩 from the tail: stack 51
    assert flip.position == 102


# --- yongfeng: 17-墩 reserve, 下精 --------------------------------------------------


def yongfeng_wall() -> Wall:
    wall = Wall.open(rules_of("yongfeng"), 0, Dice(2, 4), Dice(5, 1), order=IDENTITY)
    assert wall.break_.stack == ring_stack(1, 13) == 63
    wall.deal()
    return wall


def test_yongfeng_reserve_of_17() -> None:
    wall = yongfeng_wall()
    wall.flip_jing(Dice(2, 2))  # 4th 墩 from the tail, inside the reserve
    assert wall.reserve_stacks[0] == 62
    assert len(wall.reserve_stacks) == 17
    assert wall.live_count == 2 * (68 - 17) - 53 == 49
    for _ in range(49):
        wall.take_head()
    assert wall.is_exhausted
    with pytest.raises(ValueError):
        wall.take_head()
    left = [s for s in range(RING_STACKS) if wall.stack_state(s) != (True, True)]
    assert sorted(left) == sorted(wall.reserve_stacks)


def test_yongfeng_boundary_is_fixed_16_left() -> None:
    wall = yongfeng_wall()
    wall.flip_jing(Dice(2, 2))
    wall.take_tail()
    wall.take_tail()  # both tiles of the tail 墩: only 16 of the 17 remain
    assert wall.stack_state(62) == (True, True)
    assert wall.live_count == 49  # the boundary did not move
    for _ in range(49):
        wall.take_head()
    assert wall.is_exhausted
    left = [s for s in range(RING_STACKS) if wall.stack_state(s) != (True, True)]
    assert len(left) == 16


def test_yongfeng_replacement_leaves_the_jing_on_the_table() -> None:
    wall = yongfeng_wall()
    flip = wall.flip_jing(Dice(1, 1))  # 2nd 墩 from the tail: stack 61
    assert flip.position == 122
    got = [wall.take_tail().position for _ in range(4)]
    assert got == [124, 125, 123, 120]  # 62 top, bottom; under the 精; 60 top


def test_xia_jing_counts_from_the_current_tail() -> None:
    wall = yongfeng_wall()
    wall.flip_jing(Dice(2, 2))  # stack 59 (4th from the tail 62)
    assert wall.flip is not None and wall.flip.position == 118
    wall.take_tail()
    wall.take_tail()  # stack 62 gone; the current tail is 61
    xia = wall.flip_xia_jing(Dice(1, 1))  # 61, 60 -> 60's top
    assert xia.purpose is FlipPurpose.XIA_JING
    assert xia.position == 120
    assert xia.tile == 120
    with pytest.raises(ValueError, match="already"):
        wall.flip_xia_jing(Dice(1, 1))


def test_xia_jing_on_the_jing_stack_turns_the_tile_under_it() -> None:
    wall = yongfeng_wall()
    wall.flip_jing(Dice(2, 2))  # stack 59
    xia = wall.copy().flip_xia_jing(Dice(2, 2))  # no replacements: 62 61 60 59 -> under 精
    assert xia.position == 119
    # once the tile under the 精 is gone, the 精's 墩 is no longer counted
    for _ in range(7):  # 62, 61, 60 (6 tiles) and the tile under the 精
        wall.take_tail()
    assert wall.is_taken(119)
    xia = wall.flip_xia_jing(Dice(1, 1))  # 58 (1), 57 (2)
    assert xia.position == 114


# --- lianhua: flipped tile in play, 暗精 ----------------------------------------------


def test_lianhua_an_jing_and_flip_in_play() -> None:
    zheng = tile_of_kind("9m")
    an = tile_of_kind("P")
    # dealer 0: 1+2 -> 对家 (seat 2) rolls 4+5 = 9 -> seat 2's 9th 墩 = stack 42
    placed = {2 * 39: zheng, 2 * 39 + 1: an}  # flip 3 墩 from the tail: 41, 40, 39
    wall = Wall.open(rules_of("lianhua"), 0, Dice(1, 2), Dice(4, 5), order=order_with(placed))
    assert wall.break_.stack == 42
    wall.deal()
    flip = wall.flip_jing(Dice(1, 2))
    assert flip.position == 78 and flip.in_play
    assert wall.wildcard_kinds == (parse_kind("9m"), parse_kind("1m"))
    assert flip.under_position == 79 and flip.under_tile == an
    assert wall.an_jing_kinds == (parse_kind("P"), parse_kind("C"))
    got = [wall.take_tail().tile for _ in range(6)]
    assert got[4:] == [zheng, an]  # replacements take the flipped tile like any other
    # draws run to the last tile: no reserve, no stop at the 精
    assert wall.live_count == NUM_TILES - 53 - 6


# --- chongji: 财神 ---------------------------------------------------------------------


def test_chongji_caishen() -> None:
    # 3+4: opened on 对家's (seat 2) 4th 墩; the next player (seat 3): 7th 墩 from the left
    pos = 2 * ring_stack_from_left(3, 7)
    assert pos == 54
    order = order_with({pos: tile_of_kind("9m")})
    wall = Wall.open(rules_of("chongji"), 0, Dice(3, 4), order=order)
    wall.deal()
    flip = wall.flip_caishen()
    assert flip.position == 54 and flip.in_play
    assert flip.purpose is FlipPurpose.CAISHEN
    assert wall.wildcard_kinds == (parse_kind("1m"),)  # 翻开九万，则一万为财神
    # in play: replacements reach it after 3 + 6 墩 (tail 36, 35, 34, then 33 … 28)
    got = [wall.take_tail().position for _ in range(20)]
    assert got[-2:] == [54, 55]


def test_chongji_white_gives_red() -> None:
    wall = Wall.open(rules_of("chongji"), 2, Dice(1, 1), order=order_with({20: tile_of_kind("P")}))
    # 2 from seat 2 -> seat 3; the next player is seat 0: 7th from the left = ring stack 10
    flip = wall.flip_caishen()  # before the deal is fine too
    assert flip.position == 20
    assert wall.wildcard_kinds == (parse_kind("C"),)  # 翻白板，红中为财神
    wall.deal()
    assert wall.take_head().position != 20


# --- unknown order ---------------------------------------------------------------------


def test_unknown_order_tracks_positions() -> None:
    wall = xingguo_wall(order=None)
    deal = wall.deal()
    assert all(t is None for t in deal.tiles(0))
    assert deal.positions(0)[:4] == (112, 113, 114, 115)
    flip = wall.flip_jing(Dice(1, 2))
    assert flip.position == 106 and flip.tile is None
    assert wall.wildcard_kinds is None
    wall.observe(106, tile_of_kind("5p"))
    assert wall.wildcard_kinds == (parse_kind("5p"), parse_kind("6p"))
    assert wall.live_count == 77
    d = wall.take_head()
    assert d.tile is None and d.position == 29
    with pytest.raises(ValueError, match="already"):
        wall.observe(0, tile_of_kind("5p"))
    with pytest.raises(ValueError):
        wall.observe(106, 0)


def test_bad_orders() -> None:
    with pytest.raises(ValueError, match="136"):
        xingguo_wall(order=IDENTITY[:-1])
    with pytest.raises(ValueError, match="twice"):
        xingguo_wall(order=[*IDENTITY[:-1], 0])
    with pytest.raises(ValueError, match="tile id"):
        xingguo_wall(order=[*IDENTITY[:-1], 136])
    with pytest.raises(PresetError, match="unknown ruleset"):
        rules_of("riichi")


def test_order_from_draw_sequence() -> None:
    seq = list(range(NUM_TILES))
    order = order_from_draw_sequence(seq, 56)
    assert order[112] == 0 and order[113] == 1 and order[0] == 24
    wall = xingguo_wall(order=order)
    deal = wall.deal()
    assert deal.tiles(0)[:4] == (0, 1, 2, 3)  # dealer's first two 墩 are the first tiles


def test_copy_is_independent() -> None:
    wall = xingguo_wall()
    wall.deal()
    wall.flip_jing(Dice(3, 3))
    snap = wall.copy()
    wall.take_head()
    wall.take_tail()
    assert snap.taken_count == 53
    assert wall.taken_count == 55
    assert snap.take_head().position == 29  # the copy still has the tile the original took
    assert not snap.is_taken(110) and wall.is_taken(110)


# --- properties ------------------------------------------------------------------------

dice = st.builds(Dice, st.integers(1, 6), st.integers(1, 6))


@settings(max_examples=150, deadline=None)
@given(
    ruleset=st.sampled_from(builtin_ids()),
    dealer=st.integers(0, 3),
    first=dice,
    second=dice,
    flip_dice=dice,
    order=st.permutations(range(NUM_TILES)),
    ends=st.lists(st.sampled_from([End.HEAD, End.HEAD, End.HEAD, End.TAIL]), max_size=200),
)
def test_every_tile_at_most_once(
    ruleset: str,
    dealer: int,
    first: Dice,
    second: Dice,
    flip_dice: Dice,
    order: list[int],
    ends: list[End],
) -> None:
    rules = rules_of(ruleset)
    wall = Wall.open(rules, dealer, first, second if rules.procedure.rolls == 2 else None, order)
    blind = Wall.open(rules, dealer, first, second if rules.procedure.rolls == 2 else None)
    deal = wall.deal()
    assert blind.deal().hands == tuple(
        tuple(type(d)(d.position, None) for d in hand) for hand in deal.hands
    )
    assert sorted(len(h) for h in deal.hands) == [13, 13, 13, 14]
    assert len(deal.hands[dealer]) == 14
    seen = [d.tile for d in deal]
    for w in (wall, blind):
        if rules.flip is FlipKind.JING:
            w.flip_jing(flip_dice)
        elif rules.flip is FlipKind.CAISHEN:
            w.flip_caishen()
    dead = wall.flip is not None and not wall.flip.in_play
    reserve = set(wall.reserve_stacks)
    heads = tails = 0
    for end in ends:
        if end is End.HEAD and wall.is_exhausted:
            break
        if end is End.TAIL and wall.peek_tail() is None:
            break
        live_before = wall.live_count
        peek = wall.peek(end)
        got = wall.take(end)
        assert got == peek
        assert blind.take(end).position == got.position  # an unknown order tracks the same
        assert blind.live_count == wall.live_count
        if end is End.HEAD:
            heads += 1
            assert got.stack not in reserve
            assert wall.live_count == live_before - 1
        else:
            tails += 1
        seen.append(got.tile)
        # the head's next position is kept between draws: it must follow every take
        assert wall.is_exhausted == (wall.live_count == 0)
    # then drain both ends completely
    while not wall.is_exhausted:
        d = wall.take_head()
        assert d.stack not in reserve
        seen.append(d.tile)
        heads += 1
    while wall.peek_tail() is not None:
        seen.append(wall.take_tail().tile)
        tails += 1
    assert len(seen) == len(set(seen))
    if dead:
        assert wall.flip is not None
        assert wall.flip.tile not in seen
        assert not wall.is_taken(wall.flip.position)
    assert 53 + heads + tails == wall.taken_count
    assert wall.taken_count + wall.remaining + (1 if dead else 0) == NUM_TILES
    # nothing is left behind: every in-play tile is taken once both ends are drained
    assert wall.remaining == 0
    assert set(seen) | ({wall.flip.tile} if dead and wall.flip else set()) == set(range(136))
