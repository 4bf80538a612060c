"""An owner's replay of a stored hand: the engine's fold, step by step, with each step in words.

A finished hand is replayed with everything (every seat's concealed tiles, the 暗精); any other
hand only with what the table showed openly (``public_view`` and public events), because a
hand still in play must not leak through the owners' pages either (docs/design.md).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from controller.store import StoredHand
from engine.errors import CorruptLog, EngineError
from engine.round import event_from_dict, public_view
from engine.round.events import (
    Adjusted,
    Chowed,
    ClaimDeclared,
    Dealt,
    DiceRolled,
    Discarded,
    Drew,
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
    Settled,
    Shuffled,
    StaffAct,
    StaffUndone,
    WinCorrected,
    WinDeclared,
    WinRejected,
)
from engine.round.replay import check, describe, steps
from engine.round.state import SEATS, RoundState
from engine.tiles import en_name, kind_name, kind_of, zh_name

FINISHED = "finished"


class ReplayError(ValueError):
    """The stored log cannot be folded (corrupt or from an unknown engine version)."""


def _k(tile: int) -> str:
    return kind_name(kind_of(tile))


def owner_view(state: RoundState) -> dict[str, Any]:
    """The public view plus what only a finished hand may show: hands, 暗杠 tiles, 暗精."""
    view = public_view(state)
    for s in range(SEATS):
        seat = view["seats"][s]
        seat["hand"] = [kind_name(k) for k in sorted(kind_of(t) for t in state.hands[s])]
        seat["melds"] = [
            {"type": m.type.value, "tiles": [_k(t) for t in m.tiles], "from": m.from_seat}
            for m in state.melds[s]
        ]
    flip = None if state.wall is None else state.wall.flip
    if flip is not None and flip.under_kind is not None:
        view["jing"]["an"] = kind_name(flip.under_kind)
    return view


def _zh_tile(tile: int | None) -> str:
    return "?" if tile is None else zh_name(kind_of(tile))


def _seat_zh(s: int | None) -> str:
    return f"{(s or 0) + 1}号位"


_CLAIMS_ZH = {"win": "胡", "kong": "杠", "pung": "碰", "chow": "吃"}
_KONGS_ZH = {"concealed": "暗杠", "exposed": "明杠", "added": "补杠"}
_SOURCES_ZH = {
    "self": "自摸",
    "discard": "点炮",
    "rob_kong": "抢杠",
    "kong_replacement": "杠上开花",
}
_DICE_ZH = {"break": "开牌", "break_second": "第二次开牌", "jing": "翻精", "xia_jing": "下精"}


_PENALTIES_ZH = {"false_win": "诈胡", "xianggong": "相公"}


def _act_zh(e: StaffAct) -> str:
    """An act of a person: who, what, why."""
    match e:
        case FinishedByStaff():
            seats = "、".join(_seat_zh(w.get("seat")) for w in e.winners)
            what = f"手动结束本局：{seats} 胡" if e.winners else "手动结束本局：流局"
        case WinCorrected():
            what = f"更正{_seat_zh(e.seat)}的牌：{e.read.get('hand')} → {e.corrected.get('hand')}"
        case PenaltyApplied():
            source = "规则" if e.amount_from == "ruleset" else "老板设定"
            what = f"{_seat_zh(e.seat)} {_PENALTIES_ZH[e.penalty]}，赔每家 {e.amount}（{source}）"
        case Adjusted():
            what = f"调整：{_seat_zh(e.from_seat)} 付 {_seat_zh(e.to_seat)} {e.points}"
        case HandVoided():
            what = f"第{e.hand_no}局作废"
        case FlipEntered():
            what = f"录入翻出的精牌：{e.indicator}"
        case StaffUndone():
            what = "撤销上一步"
        case _:
            what = e.type
    who = "工作人员" if e.role == "staff" else "老板"
    return f"{who} {e.by}：{what}" + (f"（{e.reason}）" if e.reason else "")


def describe_zh(e: Event) -> str:
    """One line in Chinese (``engine.round.replay.describe`` says it in English)."""
    if isinstance(e, StaffAct):
        return _act_zh(e)
    who = _seat_zh(getattr(e, "seat", None))
    match e:
        case HandStarted():
            return f"第{e.hand_no}局 {e.ruleset}，庄家 {_seat_zh(e.dealer)}，连庄 {e.dealer_streak}"
        case Shuffled():
            return "洗牌（已知牌序）" if e.order else "洗牌"
        case DiceRolled():
            return f"{who} 掷骰 {e.a}+{e.b}（{_DICE_ZH.get(e.purpose, e.purpose)}）"
        case Dealt():
            return "发牌"
        case JingFlipped():
            word = {"caishen": "财神", "xia_jing": "下精"}.get(e.purpose, "精")
            return f"翻{word}：{_zh_tile(e.tile)}"
        case Drew():
            return f"{who} 摸 {_zh_tile(e.tile)}"
        case ReplacementDrawn():
            return f"{who} 补牌 {_zh_tile(e.tile)}"
        case Discarded():
            return f"{who} 打出 {_zh_tile(e.tile)}" + ("（放弃自摸）" if e.declined_win else "")
        case ClaimDeclared():
            return f"{who} 要{_CLAIMS_ZH.get(e.claim, e.claim)}"
        case Passed():
            return f"{who} 过"
        case Chowed():
            return f"{who} 吃 {_zh_tile(e.tile)}（{_seat_zh(e.from_seat)}）"
        case Punged():
            return f"{who} 碰 {_zh_tile(e.tile)}（{_seat_zh(e.from_seat)}）"
        case Konged():
            tile = e.tile if e.tile is not None else (e.tiles[0] if e.tiles else None)
            return f"{who} {_KONGS_ZH.get(e.kong, '杠')} {_zh_tile(tile)}"
        case WinDeclared():
            frm = "" if e.discarder is None else f"，{_seat_zh(e.discarder)} 放炮"
            return f"{who} 胡 {_zh_tile(e.tile)}（{_SOURCES_ZH.get(e.source, e.source)}{frm}）"
        case WinRejected():
            return f"{who} 胡牌无效：{e.reason}"
        case Exhausted():
            return "流局"
        case Settled():
            return "结算：" + " ".join(str(n) for n in e.settlement.get("net", []))
    return e.type


def _public_text(e: Event) -> dict[str, str]:
    """Words that name no concealed tile (draws and deals say who, not what)."""
    who = getattr(e, "seat", 0)
    match e:
        case Drew():
            return {"zh": f"{_seat_zh(who)} 摸牌", "en": f"seat {who + 1} draws"}
        case ReplacementDrawn():
            return {"zh": f"{_seat_zh(who)} 补牌", "en": f"seat {who + 1} draws a replacement"}
        case Dealt():
            return {"zh": "发牌", "en": "dealt"}
        case Konged() if e.kong == "concealed":
            return {"zh": f"{_seat_zh(who)} 暗杠", "en": f"seat {who + 1} kong (concealed)"}
        case JingFlipped():
            word = {"caishen": "财神", "xia_jing": "下精"}.get(e.purpose, "精")
            return {
                "zh": f"翻{word}：{_zh_tile(e.tile)}",
                "en": f"{e.purpose}: {en_name(kind_of(e.tile))}",
            }
    return _texts(e)


def _texts(e: Event) -> dict[str, str]:
    if isinstance(e, StaffAct) and e.reason:  # a person's words stay as they wrote them
        en = _seat_one_based(describe(replace(e, reason=""))) + f" — {e.reason}"
        return {"zh": describe_zh(e), "en": en}
    return {"zh": describe_zh(e), "en": _seat_one_based(describe(e))}


def _seat_one_based(text: str) -> str:
    # describe() names seats 0-3; the pages number them 1-4 like the table's stickers.
    for s in range(SEATS - 1, -1, -1):
        text = text.replace(f"seat {s}", f"seat {s + 1}")
    return text


def _named(texts: dict[str, str], names: list[str | None]) -> dict[str, str]:
    """The texts with a member's name for each seat one sat in (1号位 → 王五, seat 1 → 王五),
    in one pass (a name that looks like a seat is not renamed again)."""
    if not any(names):
        return texts

    def name(m: re.Match[str]) -> str:
        seat = int(m[1]) - 1
        return (names[seat] if seat < len(names) else None) or m[0]

    return {
        "zh": re.sub(r"([1-4])号位", name, texts["zh"]),
        "en": re.sub(r"\b[Ss]eat ([1-4])\b", name, texts["en"]),
    }


def replay(stored: StoredHand) -> tuple[bool, str | None, list[dict[str, Any]]]:
    """(concealed shown, settlement check, steps) for a stored hand; seats a member sat in
    are named in the texts."""
    concealed = stored.hand.status == FINISHED
    names = [None if p is None else p.get("name") for p in stored.hand.players or []]
    try:
        events = [event_from_dict(p) for p in stored.event_dicts()]
        out: list[dict[str, Any]] = []
        state: RoundState | None = None
        for (event, state), stored_event in zip(steps(events), stored.events, strict=True):
            out.append(
                {
                    "seq": stored_event.seq,
                    "type": event.type,
                    "text": _named(_texts(event) if concealed else _public_text(event), names),
                    "event": event.to_dict() if concealed else event.public_dict(),
                    "view": owner_view(state) if concealed else public_view(state),
                }
            )
    except (CorruptLog, ValueError, TypeError, KeyError) as err:
        raise ReplayError(
            f"hand {stored.hand.id}: the stored log cannot be replayed: {err}"
        ) from None
    verdict = None
    if concealed and state is not None:
        verdict = check(state, {"the stored settlement": stored.settlement})
    return concealed, verdict, out


def event_payloads(stored: StoredHand) -> tuple[bool, list[dict[str, Any]]]:
    """The hand's events: whole for a finished hand, else each one's public projection."""
    if stored.hand.status == FINISHED:
        return True, [e.payload for e in stored.events]
    out = []
    for e in stored.events:
        try:
            out.append(event_from_dict(e.payload).public_dict())
        except EngineError:
            out.append({"type": e.type})  # unreadable: say only that something happened
    return False, out
