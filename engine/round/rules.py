"""``apply``: check an action against the rules and return its events, or a Rejection.

Nothing here changes the state it is given. The events returned are exactly what the
store appends; folding them (``engine.round.fold``) gives the next state. When the events
end the hand (a win, 流局) and no 下精 dice are due, the Settled event comes with them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from engine.analysis import is_win
from engine.hand import MeldType
from engine.round import player_claims, staff
from engine.round.actions import (
    Chow,
    Deal,
    DeclareWin,
    Discard,
    Draw,
    FlipCaishen,
    Kong,
    Pass,
    PassRest,
    Pung,
    Rejection,
    RollDice,
    Shuffle,
)
from engine.round.claims import candidate_win, refusal, rejected, resolve, win_events
from engine.round.commands import (
    STAFF_COMMANDS,
    AnswerClaim,
    Claim,
    Command,
    PassClaim,
    StaffCommand,
    StaffInputError,
)
from engine.round.events import (
    ClaimDeclared,
    ClaimName,
    Dealt,
    DiceRolled,
    Discarded,
    Drew,
    Event,
    Exhausted,
    FlipName,
    JingFlipped,
    Konged,
    Passed,
    ReplacementDrawn,
    Settled,
    Shuffled,
    WinDeclared,
    settlement_to_dict,
)
from engine.round.finish import settle
from engine.round.fold import advance
from engine.round.state import (
    AT_CLAIM,
    AT_DONE,
    AT_DRAW,
    AT_REPLACEMENT,
    AT_ROB,
    AT_TURN,
    BY_CLAIM,
    SEATS,
    Phase,
    RoundState,
    Source,
)
from engine.tiles import NUM_TILES, counts_of, kind_of
from engine.wall import Dice, FlipKind, WallError, second_roller

Result = list[Event] | Rejection


def reject(code: str, zh: str, en: str) -> Rejection:
    return Rejection(code, f"{zh} ({en})")


def apply(state: RoundState, command: Command) -> Result:
    """The events ``command`` causes in ``state``, or why it is refused: a player's move
    (``engine.round.actions``) or a person's act (``engine.round.commands``; refused with
    the code ``bad_act`` and the field at fault)."""
    if isinstance(command, STAFF_COMMANDS):
        try:
            if isinstance(command, Claim | AnswerClaim | PassClaim):  # a player's (docs/play.md)
                return player_claims.act(state, command)
            return staff.act(state, cast(StaffCommand, command))
        except StaffInputError as err:
            return Rejection("bad_act", str(err))
    handler = _HANDLERS.get(type(command))
    if handler is None:
        return reject("unknown_action", "不认识的动作", f"unknown action {command!r}")
    if state.phase is AT_DONE:
        return reject("hand_over", "本局已结束", "the hand is over")
    return handler(state, command)


def _seat_ok(seat: Any) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < SEATS


def _tile_ok(tile: Any) -> bool:
    return isinstance(tile, int) and not isinstance(tile, bool) and 0 <= tile < NUM_TILES


def _wrong_phase(state: RoundState) -> Rejection:
    return reject("wrong_phase", "现在不能这样做", f"not now: the hand is at {state.phase.value}")


def _new_tile(state: RoundState, tile: int | None, known: int | None) -> int | Rejection:
    """The tile a seat receives: the wall's when known (a report must match), else the
    one the table saw (it must not have been seen elsewhere)."""
    if known is not None:
        if tile is not None and tile != known:
            return reject("tile_mismatch", "牌不对", f"the wall holds tile {known}, not {tile}")
        return known
    if tile is None:
        return reject("tile_unknown", "请报告看到的牌", "the wall order is unknown: which tile?")
    if not _tile_ok(tile):
        return reject("bad_tile", "没有这张牌", f"{tile!r} is not a tile id 0–135")
    if tile in state.seen:
        return reject("tile_seen", "这张牌已经出现过", f"tile {tile} was already seen")
    return tile


# --- before play -------------------------------------------------------------------------


def _shuffle(state: RoundState, a: Shuffle) -> Result:
    if state.phase is not Phase.SHUFFLE:
        return _wrong_phase(state)
    if a.order is not None:
        order = tuple(a.order)
        if len(order) != NUM_TILES or sorted(order) != list(range(NUM_TILES)):
            return reject("bad_order", "牌墙顺序不对", "a wall order lists each tile 0–135 once")
        return [Shuffled(order)]
    return [Shuffled(None)]


def _roll(state: RoundState, a: RollDice) -> Result:
    if not all(isinstance(v, int) and 1 <= v <= 6 for v in (a.a, a.b)):
        return reject("bad_dice", "骰子点数不对", "each die shows 1–6")
    if not _seat_ok(a.seat):
        return reject("bad_seat", "没有这个座位", "seats are 0–3")
    dice = Dice(a.a, a.b)
    rolled = DiceRolled(a.purpose, a.seat, a.a, a.b)
    procedure = state.wall_rules.procedure
    if a.purpose == "break":
        if state.phase is not Phase.BREAK_DICE:
            return _wrong_phase(state)
        if a.seat != state.dealer:
            return reject("wrong_seat", "应由庄家掷骰", "the dealer rolls for the break")
        return [rolled]
    if a.purpose == "break_second":
        if state.phase is not Phase.SECOND_DICE:
            return _wrong_phase(state)
        first = state.dice[0]
        roller = second_roller(procedure, state.dealer, Dice(first.a, first.b))
        if a.seat != roller:
            return reject("wrong_seat", "不该这家掷骰", f"seat {roller} rolls second")
        return [rolled]
    if a.seat != state.dealer:
        return reject("wrong_seat", "应由庄家掷骰", "the dealer rolls")
    if a.purpose == "jing":
        if state.phase is not Phase.FLIP or state.ruleset.flip_kind is not FlipKind.JING:
            return _wrong_phase(state)
        return _flip(state, rolled, dice, a.tile, a.under_tile)
    if a.purpose == "xia_jing":
        if state.phase is not Phase.XIA_DICE:
            return _wrong_phase(state)
        flipped = _flip(state, rolled, dice, a.tile, None)
        return flipped if isinstance(flipped, Rejection) else _finish(state, flipped)
    return reject("bad_purpose", "骰子用途不对", f"unknown dice purpose {a.purpose!r}")


def _flip(
    state: RoundState,
    rolled: DiceRolled | None,
    dice: Dice | None,
    tile: int | None,
    under: int | None,
) -> Result:
    assert state.wall is not None
    wall = state.wall.copy()
    purpose: FlipName
    try:
        if rolled is None:
            flip = wall.flip_caishen()
            purpose = "caishen"
        elif rolled.purpose == "jing":
            assert dice is not None
            flip = wall.flip_jing(dice)
            purpose = "jing"
        else:
            assert dice is not None
            flip = wall.flip_xia_jing(dice)
            purpose = "xia_jing"
    except WallError as err:
        return reject("cannot_flip", "不能翻牌", str(err))
    got = _new_tile(state, tile, flip.tile)
    if isinstance(got, Rejection):
        return got
    under_tile = None
    if flip.under_position is not None:
        u = _new_tile(state, under, flip.under_tile)
        if isinstance(u, Rejection):
            return u
        if u == got:
            return reject("tile_seen", "暗精不能和精是同一张牌", "the 暗精 is another tile")
        under_tile = u
    flipped = JingFlipped(purpose, flip.position, got, under_tile)
    return [flipped] if rolled is None else [rolled, flipped]


def _deal(state: RoundState, a: Deal) -> Result:
    if state.phase is not Phase.DEAL:
        return _wrong_phase(state)
    assert state.wall is not None
    deal = state.wall.peek_deal()
    dealer = state.dealer
    if a.tiles is not None:
        if len(a.tiles) != SEATS:
            return reject("bad_deal", "发牌不对", "a deal lists four seats")
        for s in range(SEATS):
            want = 14 if s == dealer else 13
            if len(a.tiles[s]) != want:
                return reject("bad_deal", "发牌张数不对", f"seat {s} takes {want} tiles")
        flat = [t for seat in a.tiles for t in seat]
        if not all(_tile_ok(t) for t in flat) or len(set(flat)) != len(flat):
            return reject("bad_deal", "发牌不对", "tiles must be distinct ids 0–135")
    tiles: list[tuple[int, ...]] = []
    for s in range(SEATS):
        known = deal[s]
        if None not in known:
            mine = cast("tuple[int, ...]", known)
            if a.tiles is not None and tuple(a.tiles[s]) != mine:
                return reject("tile_mismatch", "发到的牌和牌墙不符", f"seat {s}'s tiles differ")
            tiles.append(mine)
        elif a.tiles is None:
            return reject("tile_unknown", "请报告每家的牌", "the wall order is unknown")
        else:
            tiles.append(tuple(a.tiles[s]))
    return [Dealt(tuple(tiles))]


def _caishen(state: RoundState, a: FlipCaishen) -> Result:
    if state.phase is not Phase.FLIP or state.ruleset.flip_kind is not FlipKind.CAISHEN:
        return _wrong_phase(state)
    return _flip(state, None, None, a.tile, None)


# --- play --------------------------------------------------------------------------------


def _draw(state: RoundState, a: Draw) -> Result:
    phase = state.phase
    if phase is not AT_DRAW and phase is not AT_REPLACEMENT:
        return _wrong_phase(state)
    if a.seat != state.turn:
        return reject("not_your_turn", "还没轮到你摸牌", f"seat {state.turn} draws")
    assert state.wall is not None
    tail = phase is AT_REPLACEMENT
    nxt = state.wall.peek_tail() if tail else state.wall.peek_head()
    if nxt is None:
        return reject("wall_empty", "牌墙已摸完", "no tile is left to draw")
    got = nxt.tile
    if got is None or a.tile is not None:
        # a tile the wall does not know, or one the table reports: _new_tile checks it
        checked = _new_tile(state, a.tile, got)
        if isinstance(checked, Rejection):
            return checked
        got = checked
    if tail:
        return [ReplacementDrawn(a.seat, got, nxt.position)]
    return [Drew(a.seat, got, nxt.position)]


def _own_turn(state: RoundState, seat: int) -> Rejection | None:
    if state.phase is not AT_TURN:
        return _wrong_phase(state)
    if seat != state.turn:
        return reject("not_your_turn", "还没轮到你", f"it is seat {state.turn}'s turn")
    return None


def _discard(state: RoundState, a: Discard) -> Result:
    if state.phase is not AT_TURN or a.seat != state.turn:  # (_own_turn's tests: no call)
        bad = _own_turn(state, a.seat)
        assert bad is not None
        return bad
    hand = state.hands[a.seat]
    if a.tile not in hand:
        return reject("not_in_hand", "手里没有这张牌", f"tile {a.tile} is not in the hand")
    kind = kind_of(a.tile)
    keep = state.keep[a.seat]
    if state.claim_rules.keep_claimed and keep == kind and any(kind_of(t) != kind for t in hand):
        return reject(
            "keep_claimed", "不能吃啥打啥、碰啥打啥", "cannot discard the tile just claimed"
        )
    declined = False
    if state.claim_rules.self_draw_pass_blocks and state.source is not BY_CLAIM:
        counts = counts_of(state.kinds(a.seat))
        if is_win(counts, state.wild, state.options, state.held_melds(a.seat)):
            declined = refusal(state, candidate_win(state, a.seat)) is None
    if declined:
        return [Discarded(a.seat, a.tile, True)]
    # events are frozen: each seat's plain discard of a tile is made once
    event = _DISCARDED.get((a.seat, a.tile))
    if event is None:
        event = _DISCARDED[(a.seat, a.tile)] = Discarded(a.seat, a.tile)
    return [event]


_DISCARDED: dict[tuple[int, int], Discarded] = {}


def _kong(state: RoundState, a: Kong) -> Result:
    if state.phase is Phase.CLAIM:
        return _claim(state, a.seat, "kong", None)
    bad = _own_turn(state, a.seat)
    if bad is not None:
        return bad
    assert state.wall is not None
    if state.source is Source.CLAIM:
        return reject("discard_first", "吃碰后要先打牌", "after a chow or pung, discard first")
    if a.tile is None or a.tile not in state.hands[a.seat]:
        return reject("not_in_hand", "手里没有这张牌", "name a tile in the hand")
    if state.wall.peek_tail() is None:
        return reject("wall_empty", "没有补牌了，不能杠", "no replacement tile is left")
    kind = kind_of(a.tile)
    same = [t for t in state.hands[a.seat] if kind_of(t) == kind]
    if len(same) == 4:
        return [Konged(a.seat, "concealed", tuple(same))]
    if any(m.type is MeldType.PUNG and kind_of(m.tiles[0]) == kind for m in state.melds[a.seat]):
        return [Konged(a.seat, "added", (a.tile,))]
    return reject("no_kong", "不能杠这张牌", "a kong needs four in hand, or a pung of it")


def _pung(state: RoundState, a: Pung) -> Result:
    return _claim(state, a.seat, "pung", a.tiles)


def _chow(state: RoundState, a: Chow) -> Result:
    return _claim(state, a.seat, "chow", a.tiles)


def _answer_check(state: RoundState, seat: int) -> Rejection | None:
    phase = state.phase
    if phase is not Phase.CLAIM and phase is not Phase.ROB:
        return _wrong_phase(state)
    if not (type(seat) is int and 0 <= seat < SEATS) and not _seat_ok(seat):
        return reject("bad_seat", "没有这个座位", "seats are 0–3")
    if seat == state.turn:
        return reject("own_tile", "不能要自己的牌", "this is your own tile")
    if seat in state.responses:
        return reject("answered", "已经表过态了", "this seat has already answered")
    return None


def _claim(state: RoundState, seat: int, claim: ClaimName, tiles: tuple[int, ...] | None) -> Result:
    bad = _answer_check(state, seat)
    if bad is not None:
        return bad
    if state.phase is Phase.ROB:
        return reject("rob_only_win", "补杠只能抢杠胡", "on an added kong only a win may claim")
    rules = state.claim_rules
    tile = state.last_tile
    assert tile is not None and state.wall is not None
    kind = kind_of(tile)
    hand = state.hands[seat]
    if claim != "chow" and rules.jing_chow_only and kind in state.wild:
        return reject(
            "jing_chow_only", "打出的精只能吃，不能碰杠", "a discarded jing may only be chowed"
        )
    if claim != "kong" and rules.max_claims and state.claims_count[seat] >= rules.max_claims:
        return reject(
            "claim_limit",
            f"每局最多吃碰{rules.max_claims}次",
            f"at most {rules.max_claims} chows/pungs a hand",
        )
    if claim == "chow":
        own = _chow_tiles(state, seat, kind, tiles)
    else:
        need = 3 if claim == "kong" else 2
        own = _same_tiles(hand, kind, need, tiles)
        if claim == "kong" and state.wall.peek_tail() is None:
            return reject("wall_empty", "没有补牌了，不能杠", "no replacement tile is left")
    if isinstance(own, Rejection):
        return own
    return _answered(state, ClaimDeclared(seat, claim, own))


def _same_tiles(
    hand: list[int], kind: int, need: int, tiles: tuple[int, ...] | None
) -> tuple[int, ...] | Rejection:
    if tiles is None:
        same = tuple(t for t in hand if kind_of(t) == kind)[:need]
    else:
        same = tuple(tiles)
        if len(set(same)) != len(same) or any(t not in hand or kind_of(t) != kind for t in same):
            return reject("not_in_hand", "手里没有这些牌", "the named tiles are not in the hand")
    if len(same) != need:
        return reject("not_enough", "手里这张牌不够", f"{need} of that tile are needed")
    return same


def _chow_tiles(
    state: RoundState, seat: int, kind: int, tiles: tuple[int, ...] | None
) -> tuple[int, ...] | Rejection:
    if seat != (state.turn + 1) % SEATS:
        return reject("chow_from_left", "只能吃上家的牌", "only the next seat may chow")
    if tiles is None or len(tiles) != 2 or len(set(tiles)) != 2:
        return reject("bad_chow", "吃牌要指定两张牌", "name two tiles for the chow")
    hand = state.hands[seat]
    if any(t not in hand for t in tiles):
        return reject("not_in_hand", "手里没有这些牌", "the named tiles are not in the hand")
    ks = sorted([kind, kind_of(tiles[0]), kind_of(tiles[1])])
    if ks[2] >= 27 or ks[0] // 9 != ks[2] // 9 or ks != [ks[0], ks[0] + 1, ks[0] + 2]:
        return reject("bad_chow", "不成顺子", "the three tiles are not a sequence")
    return tuple(tiles)


def _pass(state: RoundState, a: Pass) -> Result:
    seat = a.seat
    phase = state.phase
    responses = state.responses
    if (
        (phase is AT_CLAIM or phase is AT_ROB)
        and type(seat) is int
        and 0 <= seat < SEATS
        and seat != state.turn
        and seat not in responses
    ):
        # _answer_check's tests inline (three passes a discard): not the last answer yet
        if len(responses) < SEATS - 2:
            return [_PASSED[seat]]
        return _answered(state, _PASSED[seat])
    bad = _answer_check(state, seat)
    if bad is not None:
        return bad
    return _answered(state, _PASSED[seat])


_PASSED = tuple(Passed(s) for s in range(SEATS))  # events are frozen: one per seat serves
# per seat whose tile is in the window: the others, in turn order
_AFTER = tuple(tuple((turn + k) % SEATS for k in (1, 2, 3)) for turn in range(SEATS))


def _pass_rest(state: RoundState, a: PassRest) -> Result:
    phase = state.phase
    if phase is not AT_CLAIM and phase is not AT_ROB:
        return _wrong_phase(state)
    responses = state.responses
    answers = dict(responses)
    events: list[Event] = []
    for seat in _AFTER[state.turn]:
        if seat not in responses:
            events.append(_PASSED[seat])
            answers[seat] = None
    # (a window closes on its last answer, so one is always left to pass)
    events += resolve(state, answers)
    return _finish(state, events)


def _answered(state: RoundState, event: Event) -> Result:
    """Record an answer; when it is the last one, close the window."""
    events: list[Event] = [event]
    if len(state.responses) < SEATS - 2:
        return events
    answers = dict(state.responses)
    seat = getattr(event, "seat")  # noqa: B009
    answers[seat] = event if isinstance(event, ClaimDeclared) else None
    events += resolve(state, answers)
    return _finish(state, events)


def _declare_win(state: RoundState, a: DeclareWin) -> Result:
    if state.phase is Phase.TURN:
        bad = _own_turn(state, a.seat)
        if bad is not None:
            return bad
        if state.source is Source.CLAIM:
            return reject("discard_first", "吃碰后不能自摸", "after a chow or pung, discard")
        win = candidate_win(state, a.seat)
        why = refusal(state, win)
        if why is not None:
            return [rejected(state, a.seat, why)]
        return _finish(state, [win_events(state, win)])
    bad = _answer_check(state, a.seat)
    if bad is not None:
        return bad
    win = candidate_win(state, a.seat)
    why = refusal(state, win)
    if why is not None:
        return _answered(state, rejected(state, a.seat, why))
    return _answered(state, ClaimDeclared(a.seat, "win"))


def _finish(state: RoundState, events: list[Event]) -> Result:
    """Append the settlement when ``events`` end the hand and nothing else is due. An
    ending comes last: resolve appends the wins or the 流局 after the window's answers, a
    declaration is alone, and the 下精 flip follows its dice."""
    if not isinstance(events[-1], _ENDINGS):
        return events
    scratch = advance(state, events)
    if scratch.phase is Phase.SETTLE:
        events.append(Settled(settlement_to_dict(settle(scratch))))
    return events


_ENDINGS = (WinDeclared, Exhausted, JingFlipped)


_HANDLERS: dict[type, Callable[[RoundState, Any], Result]] = {
    Shuffle: _shuffle,
    RollDice: _roll,
    Deal: _deal,
    FlipCaishen: _caishen,
    Draw: _draw,
    Discard: _discard,
    Kong: _kong,
    Pung: _pung,
    Chow: _chow,
    Pass: _pass,
    PassRest: _pass_rest,
    DeclareWin: _declare_win,
}
