"""A hand's events in words: the one place they are said, in Chinese and in English.

Two texts per event: the public text (displays, the loudspeaker, the owners' replay of a
hand still in play) names only what the table shows openly, never a drawn tile, a dealt
hand, whether the wall order is known, a 暗杠's tiles, lianhua's 暗精 or a declined
self-drawn win; the owner's text (a finished hand, ``mjtable replay``) may name them all.
Seats are numbered 1–4, like the stickers on the table. A person's reason (a staff act)
is kept as they wrote it, in both languages.

    public_text(event, "zh")    # "2号位 摸牌"
    owner_text(event, "en")     # "seat 2 draws 5 characters"
    texts(event, public=True)   # {"zh": …, "en": …}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

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
)
from engine.tiles import en_name, format_kinds, kind_of, parse_kind, zh_name

Lang = Literal["zh", "en"]
Names = Sequence[str | None]  # by seat: a member's name, or None (then the seat's number)
LANGS: tuple[Lang, ...] = ("zh", "en")


@dataclass(frozen=True, slots=True)
class Words:
    """One thing said in both languages."""

    zh: str
    en: str

    def __add__(self, other: Words) -> Words:
        return Words(self.zh + other.zh, self.en + other.en)

    def say(self, lang: Lang) -> str:
        return self.zh if lang == "zh" else self.en


def seat_name(seat: int | None, lang: Lang = "zh", names: Names = ()) -> str:
    """A seat as people call it: ``2号位`` / ``seat 2`` for seat index 1, or the name of
    the member who sat there (``names``, by seat; None for a guest)."""
    return _seat(seat, names).say(lang)


def public_text(event: Event, lang: Lang = "zh", names: Names = ()) -> str:
    """The event in words that name nothing concealed: what a display shows and a
    loudspeaker may say. ``names``: as ``seat_name``'s."""
    return _narrate(event, public=True, names=names).say(lang)


def owner_text(event: Event, lang: Lang = "zh", names: Names = ()) -> str:
    """The event in full, concealed tiles included: for a finished hand's owner."""
    return _narrate(event, public=False, names=names).say(lang)


def texts(event: Event, *, public: bool, names: Names = ()) -> dict[str, str]:
    """``{"zh": …, "en": …}``: the public text, or (``public=False``) the owner's."""
    words = _narrate(event, public=public, names=names)
    return {lang: words.say(lang) for lang in LANGS}


# --- the words --------------------------------------------------------------------------


def _seat(seat: int | None, names: Names = ()) -> Words:
    if seat is None:
        return Words("?号位", "seat ?")
    name = names[seat] if 0 <= seat < len(names) else None
    if name:
        return Words(name, name)
    return Words(f"{seat + 1}号位", f"seat {seat + 1}")


def _tile(tile: int | None) -> Words:
    if tile is None:
        return Words("?", "?")
    k = kind_of(tile)
    return Words(zh_name(k), en_name(k))


def _tiles(tiles: tuple[int, ...]) -> str:
    return format_kinds(kind_of(t) for t in tiles)


_DICE = {
    "break": Words("开牌", "to break the wall"),
    "break_second": Words("第二次开牌", "for the second break"),
    "jing": Words("翻精", "for the jing"),
    "xia_jing": Words("下精", "for the xia jing"),
}
_FLIPS = {
    "jing": Words("精", "jing"),
    "caishen": Words("财神", "caishen"),
    "xia_jing": Words("下精", "xia jing"),
}
_CLAIMS = {
    "win": Words("胡", "a win"),
    "kong": Words("杠", "a kong"),
    "pung": Words("碰", "a pung"),
    "chow": Words("吃", "a chow"),
}
_KONGS = {
    "concealed": Words("暗杠", "concealed kong"),
    "exposed": Words("明杠", "exposed kong"),
    "added": Words("补杠", "added kong"),
}
_SOURCES = {
    "self": Words("自摸", "self-drawn"),
    "discard": Words("点炮", "on a discard"),
    "rob_kong": Words("抢杠", "robbing a kong"),
    "kong_replacement": Words("杠上开花", "on a kong replacement"),
}
_PENALTIES = {
    "false_win": Words("诈胡", "false win (诈胡)"),
    "xianggong": Words("相公", "xianggong (相公)"),
}
_ROLES = {
    "staff": Words("工作人员", "staff"),
    "owner": Words("老板", "owner"),
    "player": Words("玩家", "player"),
}


def _narrate(e: Event, *, public: bool, names: Names) -> Words:
    if isinstance(e, StaffAct):
        return _act(e, names)
    who = _seat(getattr(e, "seat", None), names)
    match e:
        case HandStarted():
            dealer = _seat(e.dealer, names)
            return Words(
                f"第{e.hand_no}局 {e.ruleset}，庄家 {dealer.zh}，连庄 {e.dealer_streak}",
                f"hand {e.hand_no}: {e.ruleset}, dealer {dealer.en}, streak {e.dealer_streak}",
            )
        case DiceCommitted():  # the commitment only: the seed is secret until revealed
            short = e.commitment[:16]
            return Words(
                f"骰子承诺 SHA-256 {short}…（牌桌 {e.table}）",
                f"dice committed: SHA-256 {short}… (table {e.table})",
            )
        case DiceSeedRevealed():
            return Words(f"公布骰子种子 {e.seed[:16]}…", f"dice seed revealed: {e.seed[:16]}…")
        case Shuffled():
            if public:  # whether the lift read the order is the table's business
                return Words("洗牌", "the tiles are shuffled")
            if e.order:
                return Words("洗牌（已知牌序）", "shuffled (wall order known)")
            return Words("洗牌（牌序未知）", "shuffled (order unknown)")
        case DiceRolled():
            why = _DICE.get(e.purpose, Words(e.purpose, e.purpose))
            return Words(
                f"{who.zh} 掷骰 {e.a}+{e.b}（{why.zh}）", f"{who.en} rolls {e.a}+{e.b} {why.en}"
            )
        case Dealt():
            if public:
                return Words("发牌", "the tiles are dealt")
            hands = " | ".join(_tiles(h) for h in e.tiles)
            return Words(f"发牌：{hands}", f"dealt: {hands}")
        case JingFlipped():
            what, tile = _FLIPS.get(e.purpose, _FLIPS["jing"]), _tile(e.tile)
            return Words(f"翻{what.zh}：{tile.zh}", f"{what.en} turned up: {tile.en}")
        case Drew():
            if public:
                return Words(f"{who.zh} 摸牌", f"{who.en} draws")
            tile = _tile(e.tile)
            return Words(f"{who.zh} 摸 {tile.zh}", f"{who.en} draws {tile.en}")
        case ReplacementDrawn():
            if public:
                return Words(f"{who.zh} 补牌", f"{who.en} draws a replacement")
            tile = _tile(e.tile)
            return Words(f"{who.zh} 补牌 {tile.zh}", f"{who.en} draws replacement {tile.en}")
        case Discarded():
            tile = _tile(e.tile)
            said = Words(f"{who.zh} 打出 {tile.zh}", f"{who.en} discards {tile.en}")
            if e.declined_win and not public:  # it would tell the table the hand was complete
                said += Words("（放弃自摸）", " (passed a self-drawn win)")
            return said
        case ClaimDeclared():
            claim = _CLAIMS.get(e.claim, Words(e.claim, e.claim))
            return Words(f"{who.zh} 要{claim.zh}", f"{who.en} claims {claim.en}")
        case Passed():
            return Words(f"{who.zh} 过", f"{who.en} passes")
        case ClaimsResolved():
            tile = _tile(e.tile)
            return Words(f"{tile.zh} 叫牌结束", f"claims on {tile.en} resolved")
        case Chowed() | Punged():
            verb = Words("吃", "chows") if isinstance(e, Chowed) else Words("碰", "pungs")
            tile, frm = _tile(e.tile), _seat(e.from_seat, names)
            return Words(
                f"{who.zh} {verb.zh} {tile.zh}（{frm.zh}）",
                f"{who.en} {verb.en} {tile.en} from {frm.en}",
            )
        case Konged():
            kong = _KONGS.get(e.kong, Words("杠", "kong"))
            if public and e.kong == "concealed":  # 暗杠 lies face down
                return Words(f"{who.zh} {kong.zh}", f"{who.en}: {kong.en}")
            tile = _tile(e.tile if e.tile is not None else (e.tiles[0] if e.tiles else None))
            return Words(f"{who.zh} {kong.zh} {tile.zh}", f"{who.en}: {kong.en} of {tile.en}")
        case WinDeclared():
            tile, how = _tile(e.tile), _SOURCES.get(e.source, Words(e.source, e.source))
            frm = Words("", "")
            if e.discarder is not None:
                d = _seat(e.discarder, names)
                frm = Words(f"，{d.zh} 放炮", f", from {d.en}")
                if e.source == "rob_kong":
                    frm = Words(f"，抢{d.zh}的杠", f" of {d.en}")
            return Words(
                f"{who.zh} 胡 {tile.zh}（{how.zh}{frm.zh}）",
                f"{who.en} wins on {tile.en} ({how.en}{frm.en})",
            )
        case WinRejected():
            return Words(f"{who.zh} 胡牌无效：{e.reason}", f"{who.en} win refused: {e.reason}")
        case Exhausted():
            return Words("流局", "流局: the wall is exhausted, nobody won")
        case Settled():
            nets = " ".join(str(n) for n in e.settlement.get("net", []))
            return Words(f"结算：{nets}", f"settled: nets {nets}")
    return Words(e.type, e.type)


def _won(winners: Sequence[Mapping[str, Any]], names: Names) -> Words:
    """An entered result in words: who won, how, on which tile (or 流局)."""
    if not winners:
        return Words("流局", "流局 (a draw)")
    zh, en = [], []
    for w in winners:
        seat, src = w.get("seat"), w.get("from")
        s, t = _seat(seat if isinstance(seat, int) else None, names), _named(w.get("tile"))
        if isinstance(src, int) and not isinstance(src, bool):
            d = _seat(src, names)
            zh.append(f"{s.zh} 胡{d.zh}打的{t.zh}")
            en.append(f"{s.en} won on {d.en}'s {t.en}")
        else:
            how = _HOW.get(str(src).split(":")[0], Words("胡", "won"))
            zh.append(f"{s.zh} {how.zh}{t.zh}")
            en.append(f"{s.en} {how.en} {t.en}")
    return Words("、".join(zh), ", ".join(en))


_HOW = {
    "self": Words("自摸", "self-drawn"),
    "kong_replacement": Words("杠上花", "after a kong"),
    "rob_kong": Words("抢杠", "robbing a kong"),
}


def _named(tile: object) -> Words:
    """A tile in notation by its name (as written when it is none)."""
    try:
        k = parse_kind(str(tile))
    except ValueError:
        return Words(str(tile), str(tile))
    return Words(zh_name(k), en_name(k))


def _act(e: StaffAct, names: Names) -> Words:
    """An act of a person: who, what, why."""
    match e:
        case FinishedByStaff():
            if e.winners:
                won = [_seat(w.get("seat"), names) for w in e.winners]
                what = Words(
                    f"手动结束本局：{'、'.join(w.zh for w in won)} 胡",
                    f"finished by hand: {', '.join(w.en for w in won)} won",
                )
            else:
                what = Words("手动结束本局：流局", "finished by hand: 流局, nobody won")
        case ResultCorrected():
            old, new = _won(e.was, names), _won(e.winners, names)
            what = Words(
                f"更正录入的结果：{old.zh} → {new.zh}", f"result corrected: {old.en} → {new.en}"
            )
        case WinCorrected():
            s, was, now = _seat(e.seat, names), e.read.get("hand"), e.corrected.get("hand")
            what = Words(
                f"更正{s.zh}的牌：{was} → {now}", f"{s.en}'s hand corrected: {was} → {now}"
            )
        case PenaltyApplied():
            s, p = _seat(e.seat, names), _PENALTIES[e.penalty]
            whose = (
                Words("规则", "the ruleset's")
                if e.amount_from == "ruleset"
                else Words("老板设定", "the owner's")
            )
            what = Words(
                f"{s.zh} {p.zh}，赔每家 {e.amount}（{whose.zh}）",
                f"{s.en} {p.en}: pays {e.amount} to each ({whose.en} amount)",
            )
        case Adjusted():
            a, b = _seat(e.from_seat, names), _seat(e.to_seat, names)
            what = Words(
                f"调整：{a.zh} 付 {b.zh} {e.points}", f"{a.en} pays {b.en} {e.points} (adjustment)"
            )
        case HandVoided():
            what = Words(f"第{e.hand_no}局作废", f"hand {e.hand_no} voided")
        case FlipEntered():  # turned up on the table: public
            k = parse_kind(e.indicator)
            what = Words(f"录入翻出的精牌：{zh_name(k)}", f"the flipped tile entered: {en_name(k)}")
        case StaffUndone():
            what = Words("撤销上一步", f"undoes {e.undone}")
        case ClaimMade():
            s = _seat(e.seat, names)
            what = (
                Words(f"{s.zh} 申报胡牌，等待确认", f"{s.en} claims the win, to be confirmed")
                if e.winners
                else Words(f"{s.zh} 申报流局，等待确认", f"{s.en} claims a 流局, to be confirmed")
            )
        case ClaimJoined():
            s = _seat(e.seat, names)
            what = Words(f"{s.zh} 也胡（一炮多响），等待确认", f"{s.en} won on it too")
        case ClaimPassed():
            s = _seat(e.seat, names)
            what = Words(f"{s.zh} 没胡", f"{s.en} did not win on it")
        case ClaimAnswered():
            s = _seat(e.seat, names)
            what = (
                Words(f"{s.zh} 确认", f"{s.en} confirms")
                if e.agree
                else Words(f"{s.zh} 有异议：请工作人员处理", f"{s.en} disputes it: staff called")
            )
        case SessionClosed():
            what = (
                Words("本场结束（每日结算时间）", "the session closed (the daily cut-off)")
                if e.cause == "cutoff"
                else Words("结束本场并结算", "closes the session and cashes out")
            )
        case _:
            what = Words(e.type, e.type)
    who = _ROLES.get(e.role, Words(e.role, e.role))
    said = Words(f"{who.zh} {e.by}：{what.zh}", f"{who.en} {e.by}: {what.en}")
    if e.reason:
        said += Words(f"（{e.reason}）", f" — {e.reason}")
    return said
