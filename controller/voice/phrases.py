"""What the table says aloud, in Mandarin: announcements made from public messages only.

The voice hears exactly what the service publishes (``controller.table.publication``: the
``events``, ``settlement`` and ``alerts`` messages, already in their public form), so what
is concealed (a drawn or dealt tile, the wall, lianhua's 暗精, a 暗杠's tiles, a declined
self-drawn win) is not here to be said. Each announcement has a ``kind``: the switch in
the settings' ``[voice.speak]`` that turns it on or off.

    骰子 三 五 八点                  dice (each roll)
    正精 五万 副精 六万              jing (财神 …; 下精 …; 翻精 五万 as staff entered it)
    2号位 吃 / 碰 / 杠 / 暗杠 / 胡   chow, pung, kong, win
    流局                              exhausted
    结算 1号位 加12 2号位 减4 …      settlement
    注意 <the alert's public text>    alerts
    本场结算：王五 加30，2号位 减30；2号位 付 王五 30    cashout (the session's)

Seats are said 1–4, as the stickers on the table number them; a player of the cash-out
by the label every view of it uses (``controller.cashout_labels``: a member's name
as said, a guest's seat; never an id or a card), so each person is said once and no two
alike: a member whose name has nothing sayable is "3号位会员", never the guest "3号位".
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from controller.cashout_labels import player_labels
from controller.words.zones import zones_in_words
from engine.round.narration import seat_name
from engine.tiles import kind_of, parse_kind, successor, zh_name

Kind = Literal[
    "dice",
    "jing",
    "chow",
    "pung",
    "kong",
    "win",
    "exhausted",
    "settlement",
    "alerts",
    "discard",
    "cashout",
]

_NUMERALS = "零一二三四五六七八九十"
_KONGS = {"concealed": "暗杠", "exposed": "杠", "added": "补杠"}
# what is left in Latin letters (a reader's port, /dev/ttyUSB0) is for the screen: the
# Mandarin voice would read it as pinyin
_LATIN = re.compile(r"[A-Za-z/][A-Za-z0-9/_.:@-]*")
MAX_TEXT = 200  # characters: an announcement is a call-out, never a page
# The cash-out, said in full for a table's four players, bounded for a session of many
# (members who came and went): the rest is on the display.
MAX_NAME = 10  # characters of a display name said
MAX_PLAYERS_SAID = 6
MAX_TRANSFERS_SAID = 5
MAX_POINTS = 10**6  # a larger amount is not a session's: not said
CASHOUT_WAIT = 60.0  # s: play is over, the cash-out is still news behind the last 结算


@dataclass(frozen=True, slots=True)
class Announcement:
    """One thing to say. ``key``: a newer announcement with the same key supersedes an
    older one still waiting (a corrected settlement, a flood's summary). ``wait``: seconds
    it may wait for its turn when longer than the settings' ``max_age`` (what play does
    not overtake: the cash-out, said after the last hand's settlement)."""

    kind: Kind
    text: str
    hand_id: str | None = None
    key: str | None = None
    wait: float = 0.0


def announcements(messages: Sequence[tuple[str, Any]]) -> list[Announcement]:
    """The announcements of a batch of published messages, in their order."""
    out: list[Announcement] = []
    for name, payload in messages:
        if not isinstance(payload, Mapping):
            continue
        hand_id = payload.get("hand_id")
        said: Announcement | None = None
        if name == "events":
            said = event_announcement(payload.get("event", {}), hand_id)
        elif name == "settlement":
            said = settlement_announcement(payload, hand_id)
        elif name == "alerts":
            said = alert_announcement(payload, hand_id)
        elif name == "cashout":
            said = cashout_announcement(payload)
        if said is not None:
            out.append(said)
    return out


def seat(s: object) -> str:
    return seat_name(s) if isinstance(s, int) and 0 <= s <= 3 else ""


def tile(t: object) -> str:
    return zh_name(kind_of(t)) if isinstance(t, int) and 0 <= t <= 135 else ""


def small_number(n: int) -> str:
    """0–99 in Chinese numerals (the dice: 三, 十二)."""
    if n <= 10:
        return _NUMERALS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else _NUMERALS[tens]) + "十" + (_NUMERALS[ones] if ones else "")


def event_announcement(event: Mapping[str, Any], hand_id: str | None) -> Announcement | None:
    """A public event (``Event.public_dict``) said, or None for one the table does not say."""
    kind = event.get("type")
    who = seat(event.get("seat"))
    if kind == "dice_rolled":
        a, b = event.get("a"), event.get("b")
        if not (isinstance(a, int) and isinstance(b, int) and 1 <= a <= 6 and 1 <= b <= 6):
            return None
        text = f"骰子 {small_number(a)} {small_number(b)} {small_number(a + b)}点"
        return Announcement("dice", text, hand_id)
    if kind == "jing_flipped":
        shown = event.get("tile")
        if not (isinstance(shown, int) and 0 <= shown <= 135):
            return None
        k = kind_of(shown)
        zheng, fu = zh_name(k), zh_name(successor(k))
        purpose = event.get("purpose")
        if purpose == "caishen":
            text = f"财神 {fu}"
        elif purpose == "xia_jing":
            text = f"下精 正精 {zheng} 副精 {fu}"
        else:
            text = f"正精 {zheng} 副精 {fu}"
        return Announcement("jing", text, hand_id, key=f"jing {hand_id} {purpose}")
    if kind == "flip_entered":  # staff's entry: the ruleset (精 or 财神) is not in it
        try:
            shown_kind = parse_kind(str(event.get("indicator")))
        except ValueError:
            return None
        return Announcement("jing", f"翻精 {zh_name(shown_kind)}", hand_id, f"jing {hand_id} jing")
    if kind == "chowed":
        return Announcement("chow", f"{who} 吃", hand_id)
    if kind == "punged":
        return Announcement("pung", f"{who} 碰", hand_id)
    if kind == "konged":
        return Announcement("kong", f"{who} {_KONGS.get(str(event.get('kong')), '杠')}", hand_id)
    if kind == "win_declared":
        how = "自摸" if event.get("source") == "self" else "胡"
        return Announcement("win", f"{who} {how}", hand_id)
    if kind == "exhausted":
        return Announcement("exhausted", "流局", hand_id)
    if kind == "finished_by_staff":
        winners = event.get("winners") or []
        if not winners:
            return Announcement("exhausted", "流局", hand_id)
        seats = " ".join(seat(w.get("seat")) for w in winners if isinstance(w, Mapping))
        return Announcement("win", f"{seats} 胡", hand_id)
    if kind == "discarded":
        return Announcement("discard", tile(event.get("tile")), hand_id)
    return None


def _points(n: object) -> str | None:
    """``abs(n)`` as said: 12, 3点5, 0点25 (espeak-ng drops the 点 of "3.5"); None for
    what is no amount (not a number, not finite, beyond ``MAX_POINTS``)."""
    if not isinstance(n, int | float) or isinstance(n, bool):
        return None
    if not math.isfinite(n) or abs(n) > MAX_POINTS:
        return None
    return f"{abs(n):.2f}".rstrip("0").rstrip(".").replace(".", "点")


def _amount(n: object) -> str:
    text = _points(n)
    if text is None or not isinstance(n, int | float):
        return "?"
    return "零" if text == "0" else f"加{text}" if n > 0 else f"减{text}"


def settlement_announcement(payload: Mapping[str, Any], hand_id: str | None) -> Announcement:
    """Each seat's net (a voided hand: just that)."""
    key = f"settlement {hand_id}"
    if payload.get("void"):
        return Announcement("settlement", "本局作废", hand_id, key)
    nets = payload.get("net") or []
    parts = [f"{seat(s)} {_amount(n)}" for s, n in enumerate(nets[:4])]
    return Announcement("settlement", "结算 " + " ".join(parts), hand_id, key)


def alert_announcement(payload: Mapping[str, Any], hand_id: str | None) -> Announcement | None:
    """The alert's public text (``PublicAlert.message``), its zone names said in Chinese,
    a device's name left out."""
    message = payload.get("message")
    if not isinstance(message, str) or not message:
        return None
    said = _LATIN.sub("", zones_in_words(message))
    text = "注意 " + " ".join(said.split())[:MAX_TEXT]
    key = f"alert {payload.get('kind')} {payload.get('seat')}"
    return Announcement("alerts", text, hand_id, key)


def spoken_name(name: object) -> str:
    """A display name as said: its letters, digits and marks (NFKC: a full-width Ｗ is W,
    ① is 1), anything else a space, at most ``MAX_NAME`` characters; "" when nothing is
    left to say (emoji, punctuation). Only letters reach espeak-ng: no ``[[`` (its
    phoneme input) nor anything it could take for markup."""
    if not isinstance(name, str):
        return ""
    text = unicodedata.normalize("NFKC", name[: 4 * MAX_NAME])
    kept = "".join(c if unicodedata.category(c)[0] in "LNM" else " " for c in text)
    said = " ".join(kept.split())[:MAX_NAME].strip()
    return said if any(unicodedata.category(c)[0] in "LN" for c in said) else ""


def cashout_announcement(payload: Mapping[str, Any]) -> Announcement | None:
    """A session's cash-out (``controller.table.cashout.public_cashout``): each player's
    net, then who pays whom; None for the display's clearing (``{}``) or a payload that
    does not hold together (a player neither named nor seated, an amount that is none)."""
    players, transfers = payload.get("players"), payload.get("transfers")
    if not isinstance(players, list) or not players or not isinstance(transfers, list):
        return None

    if not all(isinstance(p, Mapping) for p in players):
        return None
    labels = player_labels(
        [
            (
                p.get("seat") if isinstance(p.get("seat"), int) else -1,
                None if p.get("name") is None else spoken_name(p.get("name")),
            )
            for p in players
        ]
    )

    def who(i: object) -> str:
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(players):
            return ""
        return labels[i] if seat(players[i].get("seat")) else ""

    nets: list[str] = []
    for i, p in enumerate(players[:MAX_PLAYERS_SAID]):
        name, net = who(i), _amount(p.get("net") if isinstance(p, Mapping) else None)
        if not name or net == "?":
            return None
        nets.append(f"{name} {net}")
    if len(players) > MAX_PLAYERS_SAID:
        nets.append(f"另有{len(players) - MAX_PLAYERS_SAID}人")
    pays: list[str] = []
    for t in transfers[:MAX_TRANSFERS_SAID]:
        if not isinstance(t, Mapping):
            return None
        payer, payee, points = who(t.get("from")), who(t.get("to")), _points(t.get("points"))
        if not payer or not payee or points is None:
            return None
        pays.append(f"{payer} 付 {payee} {points}")
    if len(transfers) > MAX_TRANSFERS_SAID:
        pays.append(f"另有{len(transfers) - MAX_TRANSFERS_SAID}笔")
    text = "本场结算：" + "，".join(nets) + ("；" + "，".join(pays) if pays else "")
    key = f"cashout {payload.get('session_id')}"
    return Announcement("cashout", text, None, key, wait=CASHOUT_WAIT)
