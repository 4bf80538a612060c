"""Players score their own hand (docs/play.md): one seat claims the result from its phone
(its own win, or a 流局), the engine checks it at once, and the seats that pay answer it;
when every one of them has confirmed, the hand is finished as staff finish it (``Finish``
through ``engine.round.staff``), marked as entered by players.

On a table without readers the engine never saw the other seats' tiles. The settlement
reads of them only what the claim asks for: in the jing family each paying seat's 正精 and
副精 (entered with its confirmation; held, melded or discarded, as the ruleset counts
them), elsewhere nothing. Each such seat stands in the settlement as 13 tiles holding
those 精 and tiles of no consequence (``stand_in``). What a hand would need beyond that
(a 精 claimed from another seat's discard, 跟庄) is for staff: a dispute.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from engine.round.commands import (
    AnswerClaim,
    Audit,
    Claim,
    Finish,
    MeldEntry,
    PassClaim,
    SeatEntry,
    StaffInputError,
    seat_of,
)
from engine.round.events import (
    ClaimAnswered,
    ClaimJoined,
    ClaimMade,
    ClaimPassed,
    Event,
    FinishedByStaff,
    Settled,
    amount_in,
)
from engine.round.fold import advance
from engine.round.staff import act as staff_act
from engine.round.staff import audit_fields
from engine.round.state import SEATS, Phase, RoundState
from engine.rulesets import settle_request
from engine.settlement.ledger import plain
from engine.tiles import format_kinds, parse_kinds, successor
from engine.wall import FlipKind

HAND = 13
KINDS = 34


def seat_words(seat: int) -> str:
    return f"{seat + 1}号位"


_FIELD = re.compile(r"^winners\[0\][.:]\s*")
_SEAT = re.compile(r"seats?\[(\d)\]|seat (\d)")


def in_seats(message: str) -> str:
    """A settlement's refusal in people's words: 2号位, never ``seats[1]``."""
    message = _FIELD.sub("", message)
    return _SEAT.sub(lambda m: seat_words(int(m.group(1) or m.group(2))), message)


def jing_family(state: RoundState) -> bool:
    """Whether the settlement reads each seat's 精 (the flipped tile's family)."""
    return state.ruleset.flip_kind is FlipKind.JING


def _indicator(state: RoundState) -> int | None:
    """The turned-up tile's kind: as the readers saw it, or as entered."""
    flip = None if state.wall is None else state.wall.flip
    if flip is not None and flip.kind is not None:
        return int(flip.kind)
    if state.flip_entered is not None:
        return parse_kinds(state.flip_entered.indicator)[0]
    return None


def stand_in(
    jing: dict[int, tuple[int, int]],
    winner_kinds: list[int],
    indicator: int | None,
    avoid: set[int] | None = None,
    robbed: Mapping[int, MeldEntry] | None = None,
) -> list[SeatEntry]:
    """Each seat of ``jing`` (seat -> 正精, 副精) as 13 tiles holding those 精, filled with
    kinds that are no 精 (nor in ``avoid``: a 下精) and no fifth copy with the winners'
    tiles, their discards and the indicator; a seat of ``robbed`` (the pung a 抢杠 robbed)
    holds that pung and 10 tiles."""
    special: set[int] = set(avoid or ())
    pungs = dict(robbed or {})
    used = [0] * KINDS
    for k in winner_kinds:
        used[k] += 1
    for meld in pungs.values():
        for k in parse_kinds(meld.tiles):
            used[k] += 1
    if indicator is not None:
        zheng, fu = indicator, successor(indicator)
        special |= {zheng, fu}
        used[indicator] += 1
    out = []
    for seat in sorted(jing):
        z, f = jing[seat]
        melds = (pungs[seat],) if seat in pungs else ()
        held: list[int] = []
        if indicator is not None:
            melded = [k for m in melds for k in parse_kinds(m.tiles)]  # (counted already)
            z = max(0, z - melded.count(indicator))
            f = max(0, f - melded.count(successor(indicator)))
            held = [indicator] * z + [successor(indicator)] * f
        for k in held:
            used[k] += 1
        k = 0
        while len(held) < HAND - 3 * len(melds):
            kind = k % KINDS
            k += 1
            if kind not in special and used[kind] < 3:
                held.append(kind)
                used[kind] += 1
        out.append(SeatEntry(seat, format_kinds(sorted(held)), melds, ""))
    return out


def robbed_pung(winners: Sequence[object], robbed_from: object) -> dict[int, MeldEntry]:
    """The pung a 抢杠 robbed (the robbed seat -> its pung of the winning tile, claimed
    from ``robbed_from``), where a winner won by robbing a kong: the settlement reads it."""
    out: dict[int, MeldEntry] = {}
    for w in winners:
        src = w.get("from") if isinstance(w, Mapping) else getattr(w, "source", None)
        tile = w.get("tile") if isinstance(w, Mapping) else getattr(w, "tile", None)
        robbed = src.removeprefix("rob_kong:") if isinstance(src, str) else ""
        if robbed.isdigit() and robbed != src and isinstance(tile, str):
            # (a seat out of range: refused in words; a bad ``from``: by the settlement)
            frm = robbed_from if isinstance(robbed_from, int) else None
            out[seat_of(int(robbed), "from")] = MeldEntry("pung", tile * 3, frm)
    return out


def claim_extras(made: ClaimMade) -> dict[str, Any]:
    """What came with the claim beside the winners' hands, as its request keeps it: the
    暗精, the 下精, and whom the pung a 抢杠 robbed was claimed from."""
    out = {k: made.request.get(k) for k in ("an_indicator", "xia_indicator")}
    seats = made.request.get("seats") or []
    for seat in robbed_pung(made.winners, None):
        melds = seats[seat].get("melds", []) if seat < len(seats) else []
        out["robbed_from"] = next((m.get("from") for m in melds if m.get("type") == "pung"), None)
    return out


def _finish(
    state: RoundState,
    winners: Sequence[object],
    jing: dict[int, tuple[int, int]],
    audit: Audit,
    flips: Mapping[str, Any],
    held: Mapping[int, SeatEntry] | None = None,
) -> list[Event]:
    """The finish a claim makes with these 精 counts (every other seat's: 0 unless given)
    and ``flips`` (``an_indicator``, ``xia_indicator``: entered with the result;
    ``robbed_from``: whom a robbed pung came from), through the staff path: its events, or
    StaffInputError in the settlement's words."""
    finish = Finish.of(audit, winners)
    taken = {w.seat for w in finish.winners}
    kinds: list[int] = []
    for w in finish.winners:
        try:
            kinds += parse_kinds(w.hand) + parse_kinds(w.discards or "")
            for m in w.melds:
                kinds += parse_kinds(m.tiles)
        except ValueError as err:
            raise StaffInputError(f"hand: {err}") from None
    given = dict(held or {})
    counts = {s: jing.get(s, (0, 0)) for s in range(SEATS) if s not in taken and s not in given}
    indicator = _indicator(state) if jing_family(state) else None
    xia = flips.get("xia_indicator")
    try:  # the 下精 and its successor count too: the stand-ins hold neither
        extra = set() if not xia else {parse_kinds(xia)[0], successor(parse_kinds(xia)[0])}
    except (ValueError, IndexError):
        raise StaffInputError(f"xia_indicator: not a tile ({xia})") from None
    robbed = robbed_pung(finish.winners, flips.get("robbed_from"))
    for s, pung in robbed.items():  # a robbed seat that entered itself: with its pung
        entry = given.get(s)
        if entry is not None and not any(m.type == "pung" for m in entry.melds):
            given[s] = replace(entry, melds=(*entry.melds, pung))
    seats = tuple(stand_in(counts, kinds, indicator, extra, robbed)) + tuple(
        given[s] for s in sorted(given) if s not in taken
    )
    an = flips.get("an_indicator")
    return staff_act(
        state, Finish(audit, finish.winners, seats, xia_indicator=xia, an_indicator=an)
    )


def _as_claimed(
    state: RoundState, winners: Sequence[object], audit: Audit, flips: Mapping[str, Any]
) -> list[Event]:
    """The finish of a claim with every other seat's 精 at 0 (its check at once)."""
    try:
        return _finish(state, winners, {}, audit, flips)
    except StaffInputError as err:
        raise StaffInputError(f"胡牌不成立：{in_seats(str(err))}") from None


def act(state: RoundState, command: Claim | AnswerClaim | PassClaim) -> list[Event]:
    """The events of a player's claim, answer or 没胡, or StaffInputError in words."""
    if isinstance(command, Claim):
        return make_claim(state, command)
    if isinstance(command, PassClaim):
        return pass_claim(state, command)
    return answer_claim(state, command)


def make_claim(state: RoundState, c: Claim) -> list[Event]:
    """Check a claim at once: the whole hand settled as claimed (每 other seat's 精 at 0),
    a non-win, a fifth copy or a win the ruleset bars refused in words, nothing kept. A
    claim while one waits joins it (``join_claim``) or is refused."""
    c.audit.check(reason_required=False)
    seat = seat_of(c.seat, "seat")
    if state.phase is Phase.DONE:
        raise StaffInputError("本局已结算 (the hand is settled already)")
    if state.player_claim is not None:
        return join_claim(state, c)
    if c.winner is not None and c.winner.seat != seat:
        raise StaffInputError(f"只能为自己申报 ({seat_words(seat)}: claim for your own seat)")
    _check_others(state, c)
    if jing_family(state) and _indicator(state) is None:
        raise StaffInputError("请庄家先录入翻出的精 (enter the turned-up 精 first)")
    winners = [] if c.winner is None else [w.as_dict() for w in (c.winner, *c.others)]
    _check_robbing(state, c)
    flips = {
        "an_indicator": c.an_indicator,
        "xia_indicator": c.xia_indicator,
        "robbed_from": c.robbed_from,
    }
    events = _as_claimed(state, winners, c.audit, flips)
    finished = events[0]
    assert isinstance(finished, FinishedByStaff)
    payers = _payers(state, events, seat, {w.seat for w in c.others}, c.winner is None)
    return [
        ClaimMade(
            **audit_fields(c.audit),
            seat=seat,
            winners=finished.winners,
            payers=payers,
            jing_counts=jing_family(state),
            request=finished.request,
        )
    ]


def _payers(
    state: RoundState, events: list[Event], seat: int, confirming: set[int], draw: bool
) -> tuple[int, ...]:
    """The seats whose confirmation settles a claim by ``seat`` (its finish's ``events``):
    in the jing family and for a 流局 every other seat, else the seats that pay; and each
    winner of ``confirming`` (its hand entered by the claimer), never a winner who entered
    its own (a join)."""
    finished = events[0]
    assert isinstance(finished, FinishedByStaff)
    winners = {int(w["seat"]) for w in finished.winners}
    others = [s for s in range(SEATS) if s != seat and (s not in winners or s in confirming)]
    if jing_family(state) or draw:
        return tuple(others)
    settled = events[1]
    assert isinstance(settled, Settled)
    net = settled.settlement["net"]
    paying = [s for s in others if amount_in(net[s]) < 0 or s in confirming]
    return tuple(paying or others)


def join_claim(state: RoundState, c: Claim) -> list[Event]:
    """Another winner of the pending claim's discard claims its own hand (一炮多响): where
    the ruleset pays several, it joins the claim, checked at once by settling every
    winner; the joiner need not confirm, every payer confirms anew. Any other claim while
    one waits is refused in words."""
    assert state.player_claim is not None
    made, answers = state.player_claim
    seat = seat_of(c.seat, "seat")
    source = made.winners[0].get("from") if made.winners else None
    if c.winner is None or not isinstance(source, int):
        raise StaffInputError(
            f"{seat_words(made.seat)}的申报还在等待确认 (a claim is pending already)"
        )
    if state.ruleset.claim_rules().multiple_winners != "all":
        raise StaffInputError(
            f"本规则一炮只算一家胡：{seat_words(made.seat)}的申报还在等待确认 "
            "(this ruleset pays one winner of a discard; a claim is pending already)"
        )
    if c.winner.seat != seat or c.others:
        raise StaffInputError(f"只能为自己申报 ({seat_words(seat)}: claim for your own seat)")
    if seat == source:
        raise StaffInputError(
            f"{seat_words(seat)}放炮，不能也胡这张牌 (the discarder cannot win on its discard)"
        )
    if any(int(w["seat"]) == seat for w in made.winners):
        raise StaffInputError(f"{seat_words(seat)}已经在胡牌的几家里 (this seat won already)")
    if any(p.seat == seat for p in state.claim_passes):
        raise StaffInputError(f"{seat_words(seat)}已经说过没胡 (this seat said it did not win)")
    tile = str(made.winners[0].get("tile"))
    if c.winner.source != source or not _same_tile(c.winner.tile, tile):
        raise StaffInputError(
            f"一炮多响须胡同一张牌：{seat_words(source)}打出的 {tile} "
            "(join on the same discard: the same tile, the same discarder)"
        )
    disputed = [a.seat for a in answers if not a.agree]
    if disputed:
        raise StaffInputError(
            f"{seat_words(disputed[0])}有异议：已请工作人员处理 (disputed: staff are called)"
        )
    winners = [*made.winners, c.winner.as_dict()]
    flips = claim_extras(made)
    events = _as_claimed(state, winners, c.audit, flips)
    finished = events[0]
    assert isinstance(finished, FinishedByStaff)
    # the winners the claimer entered confirm their hands; the joined ones entered theirs
    confirming = {int(w["seat"]) for w in made.winners} & set(made.payers)
    payers = _payers(state, events, made.seat, confirming, False)
    return [
        ClaimJoined(
            **audit_fields(c.audit),
            seat=seat,
            winner=next(w for w in finished.winners if int(w["seat"]) == seat),
            payers=payers,
            request=finished.request,
        )
    ]


def _check_robbing(state: RoundState, c: Claim) -> None:
    """A win by robbing a kong (抢杠): only where the ruleset settles it (``Ruleset.needs``),
    with whom the robbed pung was claimed from (the settlement reads that pung)."""
    src = None if c.winner is None else c.winner.source
    robbing = isinstance(src, str) and src.startswith("rob_kong:")
    if not robbing:
        if c.robbed_from is not None:
            raise StaffInputError("robbed_from: 只有抢杠才填被抢的碰来自哪一家 (only for 抢杠)")
        return
    if "rob_kong" not in state.ruleset.needs("discard").sources:
        raise StaffInputError("本规则不算抢杠：请按放炮申报 (this ruleset has no 抢杠)")
    if c.robbed_from is None or str(c.robbed_from) == str(src).removeprefix("rob_kong:"):
        raise StaffInputError(
            "robbed_from: 请选被抢的碰是碰谁的牌 (whom the robbed pung was claimed from)"
        )
    seat_of(c.robbed_from, "robbed_from")


def _same_tile(a: str, b: str) -> bool:
    try:
        return parse_kinds(a) == parse_kinds(b)
    except ValueError:
        return False


def _check_others(state: RoundState, c: Claim) -> None:
    """Several winners of one discard: only where the ruleset pays them all (一炮多响),
    each a seat of its own; the settlement checks they won on the same discard."""
    if not c.others:
        return
    if c.winner is None:
        raise StaffInputError("流局没有胡家 (a 流局 names no winner)")
    if state.ruleset.claim_rules().multiple_winners != "all":
        raise StaffInputError(
            "本规则一炮只算一家胡：由胡牌的那一家申报 (this ruleset pays one winner of a discard)"
        )
    seats = [w.seat for w in (c.winner, *c.others)]
    if len(set(seats)) != len(seats):
        raise StaffInputError("同一家不能胡两次 (a seat is listed twice)")


def answer_claim(state: RoundState, c: AnswerClaim) -> list[Event]:
    """A paying seat's 确认 (with its 精 where needed) or 有异议; the last confirmation
    settles the hand, marked as entered by players."""
    c.audit.check(reason_required=False)
    seat = seat_of(c.seat, "seat")
    if state.player_claim is None or state.phase is Phase.DONE:
        raise StaffInputError("没有待确认的申报 (no claim to answer)")
    made, answers = state.player_claim
    if seat not in made.payers:
        raise StaffInputError(f"{seat_words(seat)}不需要确认这次申报 (this seat does not pay)")
    if any(a.seat == seat for a in answers):
        raise StaffInputError(f"{seat_words(seat)}已经回答过 (this seat answered already)")
    jing = c.jing
    winners = {int(w["seat"]) for w in made.winners}
    held = _held(c, seat, winners)
    if c.agree and made.jing_counts and seat not in winners and held is None:
        if jing is None:
            raise StaffInputError("jing: 请填写您的正精、副精张数 (your 正精 and 副精 counts)")
        if len(jing) != 2 or any(type(n) is not int or not 0 <= n <= 4 for n in jing):
            raise StaffInputError("jing: 正精、副精各 0–4 张 (0-4 each)")
    answered = ClaimAnswered(
        **audit_fields(c.audit),
        seat=seat,
        agree=c.agree,
        jing=None if jing is None or held is not None else tuple(jing),
        held=None if held is None else held.held(),
    )
    if held is not None:  # checked at once: refused in words, nothing kept
        counts, entered = _entered(made, (*answers, answered))
        flips = claim_extras(made)
        try:
            _finish(state, made.winners, counts, c.audit, flips, entered)
        except StaffInputError as err:
            raise StaffInputError(f"您填的牌不成立：{in_seats(str(err))}") from None
    return _settled_by(state, answered)


def _entered(
    made: ClaimMade, answers: Sequence[ClaimAnswered]
) -> tuple[dict[int, tuple[int, int]], dict[int, SeatEntry]]:
    """What the confirming payers entered of themselves: their 精 counts, their seats."""
    winners = {int(w["seat"]) for w in made.winners}
    agreed = [a for a in answers if a.agree and a.seat not in winners]
    entered = {
        a.seat: SeatEntry.of(a.held | {"seat": a.seat}, "held")
        for a in agreed
        if a.held is not None
    }
    counts = {
        a.seat: (a.jing[0], a.jing[1])
        for a in agreed
        if a.jing is not None and a.seat not in entered
    }
    return counts, entered


def _settled_by(state: RoundState, act: ClaimAnswered | ClaimPassed) -> list[Event]:
    """``act``, and the hand's finish if it is the last the claim waited for: every payer
    confirmed, each seat that could have joined it joined or said 没胡 (``undecided``)."""
    after = advance(state, [act])
    assert after.player_claim is not None
    made, answers = after.player_claim
    agreed = {a.seat for a in answers if a.agree}
    if len(agreed) < len(answers) or agreed != set(made.payers) or undecided(after):
        return [act]
    winners = {int(w["seat"]) for w in made.winners}
    names = "、".join(str(s + 1) for s in sorted(made.payers))
    joined = sorted(winners - set(made.payers) - {made.seat})
    also = "".join(f"{seat_words(s)}也胡，" for s in joined)
    passed = "".join(f"，{seat_words(p.seat)}没胡" for p in after.claim_passes)
    why = (
        f"{seat_words(made.seat)}申报，{also}{names}号位确认{passed} "
        "(claimed by a player, confirmed)"
    )
    audit = Audit(made.by, "player", act.at, why)
    counts, entered = _entered(made, answers)
    flips = claim_extras(made)
    try:
        return [act, *_finish(after, made.winners, counts, audit, flips, entered)]
    except StaffInputError as err:
        raise StaffInputError(f"精的张数不成立：{in_seats(str(err))}") from None


def could_join(state: RoundState) -> tuple[int, ...]:
    """The seats that could still win on the pending claim's discard, where the ruleset
    pays several winners of one: neither the claimer nor the discarder, no winner, and no
    payer (a payer's 确认 says it pays, so it did not win)."""
    if state.player_claim is None or state.ruleset.claim_rules().multiple_winners != "all":
        return ()
    made, _ = state.player_claim
    source = made.winners[0].get("from") if made.winners else None
    if not isinstance(source, int):
        return ()
    taken = {int(w["seat"]) for w in made.winners} | {source, made.seat} | set(made.payers)
    return tuple(s for s in range(SEATS) if s not in taken)


def undecided(state: RoundState) -> tuple[int, ...]:
    """The seats of ``could_join`` that have neither joined the claim nor said 没胡."""
    passed = {p.seat for p in state.claim_passes}
    return tuple(s for s in could_join(state) if s not in passed)


def pass_claim(state: RoundState, c: PassClaim) -> list[Event]:
    """A seat that could have won on the claim's discard says it did not (没胡); the last
    of what the claim waited for settles the hand."""
    c.audit.check(reason_required=False)
    seat = seat_of(c.seat, "seat")
    if state.player_claim is None or state.phase is Phase.DONE:
        raise StaffInputError("没有待确认的申报 (no claim to answer)")
    if any(p.seat == seat for p in state.claim_passes):
        raise StaffInputError(f"{seat_words(seat)}已经说过没胡 (this seat said so already)")
    if seat not in could_join(state):
        raise StaffInputError(
            f"{seat_words(seat)}不需要回答是否也胡 (this seat cannot win on that discard)"
        )
    return _settled_by(state, ClaimPassed(**audit_fields(c.audit), seat=seat))


def _held(c: AnswerClaim, seat: int, winners: set[int]) -> SeatEntry | None:
    """A confirming seat's own entry, as a partial seat of its own (or None)."""
    if c.held is None:
        return None
    if not c.agree or seat in winners:
        raise StaffInputError("held: 只有确认的付款方填自己的牌 (a confirming payer's own)")
    h = c.held
    return SeatEntry(seat, h.hand, h.melds, h.discards, True, h.kongs)


def claim_view(state: RoundState) -> dict[str, Any] | None:
    """The pending claim as every seat may see it: the claimed hand (laid face up), who
    pays and who answered how, and the payout as claimed (in the jing family with every
    other seat's 精 at 0 until they enter theirs): never another seat's 精 count."""
    if state.player_claim is None or state.phase is Phase.DONE:
        return None
    made, answers = state.player_claim
    preview = settle_request(made.request)
    return {
        "seat": made.seat,
        "at": made.at,
        "winners": list(made.winners),
        "payers": list(made.payers),
        "jing_counts": made.jing_counts,
        "joinable": joinable(state),
        # the seats that could win on the discard too and have not said (没胡 or 我也胡)
        "undecided": list(undecided(state)),
        "passed": [{"seat": p.seat, "at": p.at} for p in state.claim_passes],
        "answers": [{"seat": a.seat, "agree": a.agree, "at": a.at} for a in answers],
        "lines": [ln.as_dict() for ln in preview.lines],
        "net": [plain(n) for n in preview.net],
    }


def joinable(state: RoundState) -> bool:
    """Whether another winner of the pending claim's discard may join it with its own hand
    (``join_claim``): a win on a discard, the ruleset paying several, no dispute."""
    if state.player_claim is None:
        return False
    made, answers = state.player_claim
    on_discard = bool(made.winners) and isinstance(made.winners[0].get("from"), int)
    several = state.ruleset.claim_rules().multiple_winners == "all"
    room = len(made.winners) < SEATS - 1
    return on_discard and several and room and all(a.agree for a in answers)


def stalled(state: RoundState, now: datetime, answer_time: float) -> tuple[str, str] | None:
    """Why the pending claim needs staff (a dispute, or no answer within ``answer_time``
    seconds of the claim, by the wall clock): Chinese and English, or None."""
    if state.player_claim is None or state.phase is Phase.DONE:
        return None
    made, answers = state.player_claim
    disputed = [a.seat for a in answers if not a.agree]
    if disputed:
        return f"{seat_words(disputed[0])}有异议", f"seat {disputed[0] + 1} disputes the claim"
    try:
        claimed = datetime.fromisoformat(made.at)
    except ValueError:
        return None
    if (now - claimed).total_seconds() < answer_time:
        return None
    agreed = {a.seat for a in answers if a.agree}
    waiting = undecided(state)
    if agreed == set(made.payers) and waiting:
        seats = "、".join(str(s + 1) for s in waiting)
        return f"{seats}号位未答是否也胡", f"seat {waiting[0] + 1} did not say whether it won too"
    return "申报无人确认", "nobody confirmed the claim in time"
