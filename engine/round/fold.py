"""Folding events into a state: the only code that changes a ``RoundState``.

Events were validated by ``apply`` when they were made, so folding trusts them; it only
raises if a log is corrupt (an event that cannot happen in the state it meets).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from engine.errors import CorruptLog
from engine.hand import MeldType
from engine.round.events import (
    Adjusted,
    Chowed,
    ClaimAnswered,
    ClaimDeclared,
    ClaimJoined,
    ClaimMade,
    ClaimPassed,
    ClaimsResolved,
    Dealt,
    DiceCommitted,
    DiceRolled,
    DiceSeedRevealed,
    Discarded,
    Drew,
    EnteredResult,
    Event,
    Exhausted,
    FinishedByStaff,
    FlipEntered,
    HandStarted,
    HandVoided,
    JingFlipped,
    Konged,
    Passed,
    PenaltyApplied,
    Punged,
    ReplacementDrawn,
    ResultCorrected,
    SessionClosed,
    Settled,
    Shuffled,
    StaffAct,
    StaffUndone,
    WinCorrected,
    WinDeclared,
    WinRejected,
    settlement_from_dict,
)
from engine.round.state import (
    AT_CLAIM,
    AT_DRAW,
    AT_REPLACEMENT,
    AT_ROB,
    AT_TURN,
    BY_DRAW,
    SEATS,
    HeldMeld,
    Phase,
    RoundState,
    Source,
)
from engine.tiles import kind_of
from engine.wall import Dice, Wall, WallError


def fold(events: Iterable[Event]) -> RoundState:
    """The state after ``events``; the first must be ``HandStarted``."""
    it = iter(events)
    state = start(next(it, None))
    evolve_all(state, it)
    return state


def start(first: Event | None) -> RoundState:
    """The state a hand log's first event opens (a log that names no ruleset it can load,
    or bad options for it, is corrupt too)."""
    if not isinstance(first, HandStarted):
        raise CorruptLog("a hand log starts with hand_started")
    try:
        return RoundState(first)
    except ValueError as err:
        raise CorruptLog(f"hand_started: {err}") from None


def advance(state: RoundState, events: Iterable[Event]) -> RoundState:
    """A new state: ``state`` (left unchanged) with ``events`` folded in."""
    new = state.copy()
    evolve_all(new, events)
    return new


def evolve(state: RoundState, event: Event) -> None:
    """Fold one event into ``state`` in place."""
    evolve_all(state, (event,))


def evolve_all(state: RoundState, events: Iterable[Event]) -> None:
    """Fold ``events`` into ``state`` in place, in order (one call for the events an action
    makes: a played hand folds some two hundred)."""
    handlers = _HANDLERS
    for event in events:
        if type(event) is Passed:
            # _passed, inline: three a claim window, the commonest event by far
            state.responses[event.seat] = None
            continue
        handler = handlers.get(type(event))
        if handler is None:
            raise CorruptLog(f"{event.type} cannot appear after hand_started")
        try:
            handler(state, event)
        except (ValueError, KeyError, IndexError, TypeError, AssertionError) as err:
            raise CorruptLog(f"{event.type}: {err}") from err


def _wall(state: RoundState) -> Wall:
    if state.wall is None:
        raise CorruptLog("no wall yet")
    return state.wall


def _committed(state: RoundState, e: DiceCommitted) -> None:
    if state.dice_commit is not None or state.phase is not Phase.SHUFFLE:
        raise ValueError("a hand commits to its dice once, before the wall")
    state.dice_commit = e


def _revealed(state: RoundState, e: DiceSeedRevealed) -> None:
    if state.dice_commit is None or state.dice_seed is not None:
        raise ValueError("a seed is revealed once, after its commitment")
    state.dice_seed = e.seed


def _shuffled(state: RoundState, e: Shuffled) -> None:
    state.order = e.order
    state.phase = Phase.BREAK_DICE


def _dice(state: RoundState, e: DiceRolled) -> None:
    state.dice.append(e)
    dice = Dice(e.a, e.b)
    if e.purpose == "break":
        rules = state.wall_rules
        if rules.procedure.rolls == 2:
            state.phase = Phase.SECOND_DICE
        else:
            state.wall = Wall.open(rules, state.dealer, dice, None, state.order)
            state.phase = Phase.DEAL
    elif e.purpose == "break_second":
        first = next((d for d in state.dice if d.purpose == "break"), None)
        if first is None:  # (evolve_all names the event)
            raise ValueError("the second roll to break comes before the first")
        rules = state.wall_rules
        state.wall = Wall.open(rules, state.dealer, Dice(first.a, first.b), dice, state.order)
        state.phase = Phase.DEAL


def _dealt(state: RoundState, e: Dealt) -> None:
    wall = _wall(state)
    deal = wall.deal()
    for seat in range(SEATS):
        if len(e.tiles[seat]) != len(deal.hands[seat]):
            raise ValueError(
                f"seat {seat} is dealt {len(deal.hands[seat])} tiles, not {len(e.tiles[seat])}"
            )
        for draw, tile in zip(deal.hands[seat], e.tiles[seat], strict=True):
            # the wall checks each tile against the shuffle, or against the tiles seen so
            # far (a tile dealt twice), before anything is folded on it
            try:
                wall.observe(draw.position, tile)
            except WallError as err:
                raise ValueError(f"seat {seat}'s tile {tile!r}: {err}") from None
            state.seen.add(tile)
        state.hands[seat] = list(e.tiles[seat])
        state.hand_moves[seat] += 1
    state.last_tile = e.tiles[state.dealer][-1]
    state.phase = Phase.FLIP if state.needs_flip else Phase.TURN
    state.turn = state.dealer
    state.source = Source.DEAL


def _flipped(state: RoundState, e: JingFlipped) -> None:
    wall = _wall(state)
    dice = state.dice[-1]
    if e.purpose == "jing":
        flip = wall.flip_jing(Dice(dice.a, dice.b))
    elif e.purpose == "caishen":
        flip = wall.flip_caishen()
    else:
        flip = wall.flip_xia_jing(Dice(dice.a, dice.b))
    if flip.tile is None:
        wall.observe(flip.position, e.tile)
    if e.under_tile is not None and flip.under_position is not None and flip.under_tile is None:
        wall.observe(flip.under_position, e.under_tile)
    state.seen.add(e.tile)
    if e.under_tile is not None:
        state.seen.add(e.under_tile)
    if e.purpose == "xia_jing":
        state.phase = Phase.SETTLE
    else:
        state.wild = state.ruleset.wild_kinds(kind_of(e.tile))
        state.phase = Phase.TURN
        state.turn = state.dealer


def _take(state: RoundState, seat: int, tile: int, position: int, tail: bool) -> None:
    wall = _wall(state)
    draw = wall.take_tail() if tail else wall.take_head()
    if draw.position != position:
        raise CorruptLog(f"the wall gives position {draw.position}, the log says {position}")
    if draw.tile is None:
        wall.observe(position, tile)
    state.seen.add(tile)
    state.hands[seat].append(tile)
    state.hand_moves[seat] += 1
    state.last_tile = tile
    state.turn = seat
    state.phase = AT_TURN
    state.keep[seat] = None
    state.passed_kinds[seat].clear()
    state.blocked[seat] = False


def _drew(state: RoundState, e: Drew) -> None:
    _take(state, e.seat, e.tile, e.position, tail=False)
    state.draws[e.seat] += 1
    state.last_drawer = e.seat
    state.source = BY_DRAW


def _replacement(state: RoundState, e: ReplacementDrawn) -> None:
    _take(state, e.seat, e.tile, e.position, tail=True)
    state.source = Source.REPLACEMENT


def _discarded(state: RoundState, e: Discarded) -> None:
    state.hands[e.seat].remove(e.tile)
    state.hand_moves[e.seat] += 1
    state.discards[e.seat].append(e.tile)
    state.discards_total += 1
    state.last_tile = e.tile
    state.keep[e.seat] = None
    if e.declined_win:
        state.blocked[e.seat] = True
    if state.gz_active:  # (most discards come after 跟庄 is out of the question)
        _genzhuang(state, e.seat, kind_of(e.tile))
    state.responses = {}
    state.phase = AT_CLAIM
    state.turn = e.seat


def _genzhuang(state: RoundState, seat: int, kind: int) -> None:
    """跟庄: a go-round that starts with the dealer's discard and the three others follow
    with the same kind. Counted while every go-round since the first repeats it."""
    if not state.gz_active:
        return
    if seat == state.dealer:
        state.gz_kinds = [kind]
        return
    if not state.gz_kinds or kind != state.gz_kinds[0]:
        state.gz_active = False
        return
    state.gz_kinds.append(kind)
    if len(state.gz_kinds) == SEATS:
        state.gz_rounds += 1
        state.gz_kinds = []


def _claim(state: RoundState, e: ClaimDeclared) -> None:
    state.responses[e.seat] = e


def _passed(state: RoundState, e: Passed) -> None:
    state.responses[e.seat] = None


def _resolved(state: RoundState, e: ClaimsResolved) -> None:
    kind = kind_of(e.tile)
    for seat in e.passed:
        state.passed_kinds[seat].add(kind)
    state.responses = {}
    if state.phase is AT_ROB:
        state.phase = AT_REPLACEMENT  # nobody robbed: the konger takes a replacement
    else:
        state.phase = AT_DRAW
        state.turn = (state.turn + 1) % SEATS


def _claimed(state: RoundState, seat: int, src: int, tile: int, own: tuple[int, ...]) -> None:
    hand = state.hands[seat]
    for t in own:
        hand.remove(t)
    state.hand_moves[seat] += 1
    lying = state.discards[src]
    if not lying or lying[-1] != tile:
        raise CorruptLog(f"tile {tile} is not the last discard of seat {src}")
    lying.pop()
    state.claims_made = True
    state.gz_active = False
    state.passed_kinds[seat].clear()
    state.blocked[seat] = False
    state.turn = seat
    state.phase = Phase.TURN
    state.source = Source.CLAIM
    state.last_tile = tile


def _chowed(state: RoundState, e: Chowed) -> None:
    _claimed(state, e.seat, e.from_seat, e.tile, e.tiles)
    tiles = tuple(sorted((*e.tiles, e.tile), key=kind_of))
    state.melds[e.seat].append(HeldMeld(MeldType.CHOW, tiles, e.from_seat, e.tile))
    state.claims_count[e.seat] += 1
    state.keep[e.seat] = kind_of(e.tile)


def _punged(state: RoundState, e: Punged) -> None:
    _claimed(state, e.seat, e.from_seat, e.tile, e.tiles)
    tiles = (*e.tiles, e.tile)
    state.melds[e.seat].append(HeldMeld(MeldType.PUNG, tiles, e.from_seat, e.tile))
    state.claims_count[e.seat] += 1
    state.keep[e.seat] = kind_of(e.tile)


def _konged(state: RoundState, e: Konged) -> None:
    seat = e.seat
    if e.kong == "exposed":
        assert e.from_seat is not None and e.tile is not None
        _claimed(state, seat, e.from_seat, e.tile, e.tiles)
        meld = HeldMeld(MeldType.KONG_EXPOSED, (*e.tiles, e.tile), e.from_seat, e.tile)
        state.melds[seat].append(meld)
        state.phase = Phase.REPLACEMENT
        return
    hand = state.hands[seat]
    for t in e.tiles:
        hand.remove(t)
    state.hand_moves[seat] += 1
    state.claims_made = True
    if e.kong == "concealed":
        state.melds[seat].append(HeldMeld(MeldType.KONG_CONCEALED, e.tiles))
        state.phase = Phase.REPLACEMENT
        return
    kind = kind_of(e.tiles[0])
    melds = state.melds[seat]
    i = next(
        i for i, m in enumerate(melds) if m.type is MeldType.PUNG and kind_of(m.tiles[0]) == kind
    )
    old = melds[i]
    # the added kong keeps the position of its pung: melds stay in the order declared
    melds[i] = HeldMeld(MeldType.KONG_ADDED, (*old.tiles, e.tiles[0]), old.from_seat, old.claimed)
    state.last_tile = e.tiles[0]
    state.responses = {}
    state.phase = Phase.ROB


def _end_phase(state: RoundState) -> Phase:
    return Phase.XIA_DICE if state.wall_rules.xia_jing else Phase.SETTLE


def _won(state: RoundState, e: WinDeclared) -> None:
    state.wins.append(e)
    state.phase = _end_phase(state)


def _rejected(state: RoundState, e: WinRejected) -> None:
    if e.penalised and e.seat not in state.false_win:
        state.false_win.append(e.seat)
    if state.phase in (Phase.CLAIM, Phase.ROB):
        state.responses[e.seat] = None  # a refused claim leaves the seat as having passed


def _exhausted(state: RoundState, e: Exhausted) -> None:
    state.exhausted = True
    state.phase = _end_phase(state)


def _settled(state: RoundState, e: Settled) -> None:
    state.settlement = settlement_from_dict(e.settlement)
    state.phase = Phase.DONE


# --- acts of a person (engine.round.staff validated them) ----------------------------


def _act(state: RoundState, e: StaffAct) -> None:
    """Keep the state the act found: undo puts it back, whatever the act changed."""
    state.staff_acts.append((e, state.copy()))


def _finished_by_staff(state: RoundState, e: FinishedByStaff) -> None:
    if state.phase is Phase.DONE:
        raise ValueError("the hand is settled already")
    _act(state, e)
    state.staff_settle = e
    state.phase = Phase.SETTLE


def _win_corrected(state: RoundState, e: WinCorrected) -> None:
    if not any(w.seat == e.seat for w in state.wins):
        raise ValueError(f"seat {e.seat} declared no win")
    _act(state, e)
    state.staff_settle = e
    state.settlement = None
    state.phase = Phase.SETTLE


def _result_corrected(state: RoundState, e: ResultCorrected) -> None:
    if state.settlement is None or not isinstance(state.staff_settle, EnteredResult):
        raise ValueError("no settled result entered by hand to correct")
    _act(state, e)
    state.staff_settle = e
    state.settlement = None
    state.phase = Phase.SETTLE


def _penalty(state: RoundState, e: PenaltyApplied) -> None:
    _act(state, e)
    state.penalties.append(e)


def _adjusted(state: RoundState, e: Adjusted) -> None:
    _act(state, e)
    state.adjustments.append(e)


def _voided(state: RoundState, e: HandVoided) -> None:
    this = state.started.hand_no
    if e.hand_no > this:
        raise ValueError(f"hand {e.hand_no} is not played yet (this is hand {this})")
    _act(state, e)
    if e.hand_no < this:
        state.past_voids.append(e)
        return
    state.voided = True
    state.settlement = None
    state.phase = Phase.SETTLE


def _flip_entered(state: RoundState, e: FlipEntered) -> None:
    if state.phase is Phase.DONE:
        raise ValueError("the hand is settled already")
    _act(state, e)
    state.flip_entered = e


def _undone(state: RoundState, e: StaffUndone) -> None:
    if not state.staff_acts:
        raise ValueError("no act of staff to undo in this hand")
    act, before = state.staff_acts[-1]
    if act.type != e.undone:
        raise ValueError(f"the last act is {act.type}, not {e.undone}")
    # a copy: scratch states (``apply``) share the kept states with the real one
    restored = before.copy()
    for name in RoundState.__slots__:
        setattr(state, name, getattr(restored, name))


def _claim_made(state: RoundState, e: ClaimMade) -> None:
    if state.phase is Phase.DONE:
        raise ValueError("the hand is settled already")
    _act(state, e)
    state.player_claim = (e, ())
    state.claim_passes = ()


def _claim_answered(state: RoundState, e: ClaimAnswered) -> None:
    if state.player_claim is None:
        raise ValueError("no claim to answer")
    _act(state, e)
    made, answers = state.player_claim
    state.player_claim = (made, (*answers, e))


def _claim_joined(state: RoundState, e: ClaimJoined) -> None:
    """The pending claim with one more winner: what each payer confirmed has changed, so
    every payer answers it anew, within the answer time from the join (``at``)."""
    if state.player_claim is None or state.phase is Phase.DONE:
        raise ValueError("no claim to join")
    _act(state, e)
    made, _ = state.player_claim
    winners = (*made.winners, e.winner)
    joined = replace(made, at=e.at, winners=winners, payers=e.payers, request=e.request)
    state.player_claim = (joined, ())


def _claim_passed(state: RoundState, e: ClaimPassed) -> None:
    """A seat that could have joined the claim says it did not win (kept across a join)."""
    if state.player_claim is None or state.phase is Phase.DONE:
        raise ValueError("no claim to pass")
    _act(state, e)
    state.claim_passes = (*state.claim_passes, e)


def _session_closed(state: RoundState, e: SessionClosed) -> None:
    # not an act undo takes back (``_act``): the session is over, its cash-out made
    if state.settlement is None:
        raise ValueError("a session closes after its last hand is settled")


_HANDLERS: dict[type[Event], Callable[[RoundState, Any], None]] = {
    DiceCommitted: _committed,
    DiceSeedRevealed: _revealed,
    Shuffled: _shuffled,
    DiceRolled: _dice,
    Dealt: _dealt,
    JingFlipped: _flipped,
    Drew: _drew,
    ReplacementDrawn: _replacement,
    Discarded: _discarded,
    ClaimDeclared: _claim,
    Passed: _passed,
    ClaimsResolved: _resolved,
    Chowed: _chowed,
    Punged: _punged,
    Konged: _konged,
    WinDeclared: _won,
    WinRejected: _rejected,
    Exhausted: _exhausted,
    Settled: _settled,
    FinishedByStaff: _finished_by_staff,
    WinCorrected: _win_corrected,
    ResultCorrected: _result_corrected,
    PenaltyApplied: _penalty,
    Adjusted: _adjusted,
    HandVoided: _voided,
    FlipEntered: _flip_entered,
    StaffUndone: _undone,
    SessionClosed: _session_closed,
    ClaimMade: _claim_made,
    ClaimAnswered: _claim_answered,
    ClaimJoined: _claim_joined,
    ClaimPassed: _claim_passed,
}
