"""The reader-less demo's players on their phones (``mjtable demo --readers none --players
phones``): four engine bots play each hand by themselves, and its result reaches the
service as players at a table without readers send it, over HTTP through the players'
API (docs/play.md): the four join with the session's join code, the dealer's phone rolls
and enters the 精, the winner (for a 流局 the dealer) claims, the paying seats confirm
with their 精, and where the ruleset pays several winners of a discard each other seat
that could have won on it says 没胡. The service checks, settles, stores and publishes it
like any hand.

What a phone cannot claim is left out, as a table's players would leave it to staff: the
flags (天胡, 地胡, 海底) and 杠上开花 as such (a self-draw); a 抢杠 is claimed as one. Each other
winner of one discard joins the first one's claim with its own hand. The bots' session
follows the service's settlements.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import structlog

from controller.sim.demo_results import POLL, DemoDeskError, _call, hand_after_hand
from engine.round.events import settlement_from_dict
from engine.round.staff import result_of
from engine.session import Session
from engine.simulation import play_hand
from engine.tiles import parse_kinds, successor

log = structlog.get_logger(__name__)

NAMES = ("机器人甲", "机器人乙", "机器人丙", "机器人丁")


def jing_held(seat: dict[str, Any], indicator: str | None) -> tuple[int, int]:
    """(正精, 副精) a seat holds, melds and discards included, as the jing family counts."""
    if indicator is None:
        return (0, 0)
    kinds = parse_kinds(seat.get("hand", "")) + parse_kinds(seat.get("discards") or "")
    for meld in seat.get("melds", []):
        kinds += parse_kinds(meld["tiles"])
    zheng = parse_kinds(indicator)[0]
    return kinds.count(zheng), kinds.count(successor(zheng))


def claim_bodies(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The claims phones send for a played hand's result (``result_of``): the first
    winner's (for a 流局 one without a seat), then each other winner of the discard its own,
    which joins the first (一炮多响)."""
    # the 暗精 and the 下精 come with the result (turned up as the hand ends)
    flips = {k: body[k] for k in ("an_indicator", "xia_indicator") if body.get(k)}
    winners = body.get("winners") or []
    if not winners:
        return [{"result": "exhausted"} | flips]
    seats = body.get("seats") or []
    first, *joins = ({"seat": w["seat"], "result": "win", "win": _win(w, seats)} for w in winners)
    return [first | flips, *joins]


def _win(w: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, Any]:
    """A winner as the picker enters it: a 抢杠 with whom the robbed pung came from (the
    robbed seat dealt in, where that is not known), a kong's replacement tile self-drawn."""
    source = w["from"]
    out = {"hand": w["hand"], "melds": w["melds"], "tile": w["tile"]}
    if isinstance(source, str) and source.startswith("rob_kong:"):
        robbed = int(source.split(":")[1])
        melds = seats[robbed].get("melds", []) if robbed < len(seats) else []
        kind = parse_kinds(w["tile"])
        pung = next(
            (
                m
                for m in melds
                if m.get("type") == "pung" and "from" in m and parse_kinds(m["tiles"])[:1] == kind
            ),
            None,
        )
        if pung is None:
            return out | {"from": robbed}
        return out | {"from": source, "robbed_from": pung["from"]}
    return out | {"from": "self" if source == "kong_replacement" else source}


class PhoneDesk:
    """Plays ``hands`` hands with bots; each result claimed and confirmed through the
    players' API of the web app at ``run``'s ``web`` (its base URL)."""

    def __init__(
        self,
        ruleset: str,
        options: dict[str, object],
        seed: int,
        hands: int | None,
        between_hands: float = 0.0,
    ) -> None:
        self.api = ""
        self.session = Session(ruleset, dict(options))
        self.seed = seed
        self.hands = hands
        self.between_hands = between_hands
        self.tokens: list[str] = []
        self.entered: list[dict[str, Any]] = []
        """The service's answer to each hand's last confirmation, in order."""

    def _phone(self, path: str, seat: int, body: dict[str, Any] | None = None) -> Any:
        return _call(f"{self.api}/play/{path}", body, seat_token=self.tokens[seat])

    async def _ask(self, path: str, seat: int, body: dict[str, Any] | None = None) -> Any:
        return await asyncio.to_thread(self._phone, path, seat, body)

    async def run(self, web: str) -> None:
        self.api = web.rstrip("/") + "/api/v1"
        code = (await asyncio.to_thread(_call, f"{self.api}/play/join"))["code"]
        table = (await asyncio.to_thread(_call, f"{self.api}/play/seats"))["table"]
        for seat, name in enumerate(NAMES):
            body = {"table": table, "code": code, "name": name}
            joined = await asyncio.to_thread(_call, f"{self.api}/play/seats/{seat}/join", body)
            self.tokens.append(joined["token"])
        await hand_after_hand(self.hands, self.entered, self._one_hand, self.between_hands)

    async def _current(self, hand_no: int) -> dict[str, Any]:
        """Hand ``hand_no`` once it is in progress and rolled: the dealer's phone rolls."""
        while True:
            me = await self._ask("me", 0)
            if me.get("in_progress") and me.get("hand_no") == hand_no and not me["dice_due"]:
                return dict(me)
            if me.get("dice_due") and me.get("hand_id") is not None:
                press = {"hand_id": me["hand_id"], "seen": me["seen"]}
                try:
                    await self._ask("dice", me["dealer"], press)
                except DemoDeskError as err:  # (the service may stop: its last hand)
                    log.info("dice not rolled", why=str(err))
            await asyncio.sleep(POLL)

    async def _one_hand(self) -> None:
        started = self.session.next_hand()
        me = await self._current(started.hand_no)
        if me["dealer"] != started.dealer:
            raise DemoDeskError(
                f"hand {started.hand_no}: the service's dealer is {me['dealer']}, "
                f"the bots' {started.dealer}"
            )
        rng = random.Random(self.seed * 100_003 + started.hand_no)
        state, _ = play_hand(started, rng)
        body = result_of(state)
        indicator = body.get("indicator")
        if indicator and me["flips"] and not me["jing"]:
            act = {"hand_id": me["hand_id"], "seen": me["seen"], "indicator": indicator}
            await self._ask("flip", me["dealer"], act)
            me = await self._ask("me", 0)
        for claim in claim_bodies(body):
            seat = claim.setdefault("seat", started.dealer)
            sent = {"hand_id": me["hand_id"], "seen": me["seen"]} | claim
            await self._ask("claim", seat, sent)
        pending = (await self._ask("me", seat))["claim"]
        held = {s["seat"]: s for s in body["seats"]} | {
            w["seat"]: w for w in body.get("winners", [])
        }
        answer: dict[str, Any] = {}
        for payer in pending["payers"]:
            jing = list(jing_held(held[payer], indicator)) if pending["jing_counts"] else None
            reply = {"hand_id": me["hand_id"], "seen": 0, "seat": payer, "agree": True}
            answer = await self._ask("answer", payer, reply | {"jing": jing})
        for seat in pending["undecided"]:  # (the seats that could have won on it too: 没胡)
            said = {"hand_id": me["hand_id"], "seen": 0, "seat": seat}
            answer = await self._ask("pass", seat, said)
        if answer.get("settlement") is None:
            raise DemoDeskError(f"hand {started.hand_no}: the confirmations settled nothing")
        settlement = settlement_from_dict(answer["settlement"])
        self.session.record(settlement)
        self.entered.append(answer)
        log.info("result claimed and confirmed", hand_no=started.hand_no, nets=list(settlement.net))
