"""Alerts: a public form anyone at the table may see, and a private detail for the owner.

An alert on the public channels (MQTT ``alerts``, the live hub, the dealer page) must not
say which tile or tag: a device that names the tiles in a hand, or the wall's next tile,
is a cheating tool (docs/design.md). So an ``Alert`` is two parts. ``PublicAlert`` holds only
public facts (the kind, the seat, the reader zones, tile *counts*) and writes its text
from them; it has no free-text field a tile name could ride in. ``detail`` is free text
(tile names, tag UIDs, an engine's reason) and goes only to the store and the log: code
that publishes takes a ``PublicAlert`` and so cannot reach it.

``AlertGate`` keeps a flood (a foreign RFID tag storm, a reader gone mad) from becoming a
flood of messages: per kind and place, the first alert goes out at once, and what follows
within ``window`` seconds is counted and sent as one summary when the window ends.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final

from controller.words.zones import zone_words
from engine.round.narration import seat_name
from firmware_bridge.rfid.zones import Zone


class AlertKind(StrEnum):
    FALSE_WIN = "false_win"
    XIANGGONG = "xianggong"
    UNKNOWN_TAG = "unknown_tag"
    AMBIGUOUS_TAG = "ambiguous_tag"
    FIFTH_COPY = "fifth_copy"
    BAD_KIND = "bad_kind"
    DUPLICATE_TAG = "duplicate_tag"
    TILE_MISPLACED = "tile_misplaced"
    TILE_MISSING = "tile_missing"
    REFUSED = "refused"
    READER_SILENT = "reader_silent"
    READER_FAULT = "reader_fault"
    BOARD_SILENT = "board_silent"
    TABLE_FAULT = "table_fault"
    LIFT_ORDER = "lift_order"
    WALLS_CHANGED = "walls_changed"
    INTERNAL_ERROR = "internal_error"
    DISK_FULL = "disk_full"
    STORE_DAMAGED = "store_damaged"


ADVICE: Final[Mapping[str, tuple[str, str, str, str]]] = {
    # kind: (title zh, title en, advice zh, advice en)
    "false_win": (
        "诈胡",
        "False win",
        "核对该家的牌；按规则罚分后继续打。",
        "Check that seat's tiles; the penalty is settled by the rules, play goes on.",
    ),
    "xianggong": (
        "相公",
        "Wrong tile count (相公)",
        "该家牌数不对：数一数手牌，多的放回或补牌；按店规处理。",
        "That seat holds the wrong number of tiles: count them and fix it per house rules.",
    ),
    "unknown_tag": (
        "未知标签",
        "Unknown tag",
        "有一张牌未登记：把它拿出来，用 mjtable enroll 登记或换一张。",
        "A tile is not enrolled: take it out, enrol it (mjtable enroll) or replace it.",
    ),
    "duplicate_tag": (
        "牌重复",
        "Tile seen twice",
        "同一张牌出现在两处：看看是否有人拿错，把牌放回原处。",
        "One tile was seen in two places: check for a misplaced tile and put it back.",
    ),
    "reader_silent": (
        "读卡器无响应",
        "Reader silent",
        "检查该读卡器的线和电源；恢复前请手动记牌。",
        "Check that reader's cable and power; track this hand by hand until it is back.",
    ),
    "reader_fault": (
        "读卡器故障",
        "Reader fault",
        "按提示检查该读卡器或天线的接线、位置和功率（见 docs/rfid.md）。",
        "Check that reader or antenna's cable, placement and power (docs/rfid.md).",
    ),
    "board_silent": (
        "牌桌主板无响应",
        "Table board silent",
        "检查牌桌串口线；必要时重启牌桌。",
        "Check the table's serial cable; restart the table if needed.",
    ),
    "tile_misplaced": (
        "牌放错",
        "Tile misplaced",
        "有一张牌不在该在的地方：看看是否有人拿错，把牌放回原处。",
        "A tile lies where the hand does not have it: check for a mistake and put it back.",
    ),
    "fifth_copy": (
        "标签登记有误",
        "Tag enrolled wrongly",
        "有一张牌的标签登记有误：把它拿出来，重新登记或换一张。",
        "A tile's tag is enrolled wrongly: take it out, enrol it again or replace it.",
    ),
    "tile_missing": (
        "少牌",
        "Tile missing",
        "有牌没被读到：把牌摆正放在感应区内。",
        "A tile is not read: place it squarely over the reader zone.",
    ),
    "refused": (
        "动作不合规则",
        "Move refused",
        "桌上的牌显示了一个不合规则的动作：把牌放回，按规则重新出牌。",
        "The tiles show a move the rules refuse: put them back and play it again.",
    ),
    "table_fault": (
        "牌桌故障",
        "Table fault",
        "看牌桌面板的故障提示；必要时重启牌桌。",
        "Read the table panel's fault; restart the table if needed.",
    ),
    "disk_full": (
        "存储已满",
        "Disk full",
        "牌桌的存储空间不足，暂停开局：请工作人员清理空间，空间恢复后自动继续。",
        "The table's storage is full, so no hand starts: call staff to free space; play "
        "resumes by itself once there is room.",
    ),
    "store_damaged": (
        "记录受损",
        "Records damaged",
        "牌桌的记录文件受损或丢了最近的牌局：请工作人员查看日志；受损文件已另存，上级服务器保存着它确认过的牌局。",
        "The table's records were damaged or lost their latest hands: call staff to read the "
        "log; the damaged file is kept aside, and the hub holds the hands it acknowledged.",
    ),
    "walls_changed": (
        "牌墙不符",
        "Walls changed",
        "桌上的牌墙不是这一局的：请工作人员确认这一局怎么处理。",
        "The walls on the table are not this hand's: call staff to settle how to go on.",
    ),
}
_SAME_ADVICE = {"ambiguous_tag": "fifth_copy", "bad_kind": "fifth_copy"}
_GENERIC = ("查看牌桌，必要时请工作人员处理。", "Check the table; call staff.")


def advice(kind: str) -> dict[str, dict[str, str]]:
    """An alert kind's title and what to do, in Chinese and English (public: by kind only)."""
    zh_t, en_t, zh, en = ADVICE.get(_SAME_ADVICE.get(kind, kind), (kind, kind, *_GENERIC))
    return {"title": {"zh": zh_t, "en": en_t}, "advice": {"zh": zh, "en": en}}


_READER_PROBLEMS = {
    "corrupt_frames": "数据出错",
    "no_answer": "无应答",
    "reader_error": "报错",
    "antenna_missing": "天线未接",
    "unknown_antenna": "天线不在区域配置里",
    "crowded_round": "一轮读到的标签过多，已忽略",
    "many_antennas": "一个标签同时被多个天线读到",
}


def _where(zones: tuple[Zone, ...]) -> str:
    return "、".join(zone_words(z) for z in zones) if zones else "牌桌"


def _seat(seat: int | None) -> str:
    return "" if seat is None else seat_name(seat, "zh")


@dataclass(frozen=True, slots=True)
class PublicAlert:
    """What an alert says in public: built from public facts only (never a tile or a tag)."""

    kind: AlertKind
    seat: int | None = None
    zones: tuple[Zone, ...] = ()
    """Reader zones involved: where to look, never what lies there."""
    reader: int | None = None
    have: int | None = None
    """Tiles a seat's hand holds, and ``want`` it should (相公): anyone can count them."""
    want: int | None = None
    repeats: int = 0
    """A summary: how many more alerts like this one came within the gate's window."""
    device: str | None = None
    """A reader fault: the reader (its port and bus address) and ``problem``, its code;
    ``reader`` is then the antenna port."""
    problem: str | None = None

    @property
    def message(self) -> str:
        text = self._text()
        return text if not self.repeats else f"{text}（又出现{self.repeats}次）"

    def _text(self) -> str:
        k, seat, where = self.kind, _seat(self.seat), _where(self.zones)
        if k is AlertKind.XIANGGONG:
            have, want = self.have or 0, self.want or 0
            more = f"多{have - want}张" if have > want else f"少{want - have}张"
            return f"相公：{seat}手里有{have}张牌，应有{want}张（{more}）"
        if k is AlertKind.FALSE_WIN:
            return f"诈胡：{seat}"
        if k is AlertKind.UNKNOWN_TAG:
            return f"{where}读到一个未登记的标签"
        if k in (AlertKind.AMBIGUOUS_TAG, AlertKind.FIFTH_COPY, AlertKind.BAD_KIND):
            return f"{where}读到一个登记有误的标签"
        if k is AlertKind.DUPLICATE_TAG:
            return f"同一张牌在{where}都被读到"
        if k is AlertKind.TILE_MISPLACED:
            return f"{where}有一张牌放错了地方"
        if k is AlertKind.TILE_MISSING:
            return f"{seat or where}少一张牌（{where}没读到）"
        if k is AlertKind.REFUSED:
            return f"{seat}的动作不合规则，没有记入" if seat else "一个动作不合规则，没有记入"
        if k is AlertKind.READER_SILENT:
            return f"读卡器 {self.reader}（{where}）无响应"
        if k is AlertKind.READER_FAULT:
            antenna = f" 天线 {self.reader}" if self.reader is not None else ""
            what = _READER_PROBLEMS.get(self.problem or "", self.problem or "故障")
            return f"读卡器 {self.device}{antenna}：{what}"
        if k is AlertKind.BOARD_SILENT:
            return "牌桌主板无响应"
        if k is AlertKind.TABLE_FAULT:
            return "牌桌报告故障"
        if k is AlertKind.LIFT_ORDER:
            return "上牌顺序里有不是牌的标签"
        if k is AlertKind.WALLS_CHANGED:
            return "桌上的牌墙不是这一局的"
        if k is AlertKind.DISK_FULL:
            return "存储空间已满，暂停开局"
        if k is AlertKind.STORE_DAMAGED:
            return "牌桌记录受损，最近的牌局可能丢失"
        return "控制程序出错，请查看日志"

    def as_dict(self) -> dict[str, object]:
        """The public payload: which seat, what went wrong, what to do (``hand_id`` is added
        by ``publication.alert_message``)."""
        out: dict[str, object] = {
            "kind": self.kind.value,
            "seat": self.seat,
            "message": self.message,
            **advice(self.kind.value),
        }
        if self.repeats:
            out["repeats"] = self.repeats
        return out


@dataclass(frozen=True, slots=True)
class Alert:
    public: PublicAlert
    detail: str = ""
    """Private: which tile, which tag, why. The store and the log only, never published."""

    @property
    def kind(self) -> AlertKind:
        return self.public.kind

    @property
    def seat(self) -> int | None:
        return self.public.seat


@dataclass(slots=True)
class _Window:
    until: float
    repeats: int = 0
    last: Alert | None = None
    details: list[str] = field(default_factory=list)


class AlertGate:
    """Per kind and place (seat, zones, reader): the first alert at once, then one summary
    per ``window`` seconds while more come. ``send`` gets what is to go out."""

    SAMPLE_DETAILS = 5

    def __init__(self, send: Callable[[Alert], None], window: float = 10.0) -> None:
        self._send = send
        self.window = window
        self._open: dict[Hashable, _Window] = {}

    @staticmethod
    def _key(a: Alert) -> Hashable:
        p = a.public
        return (p.kind, p.seat, p.zones, p.reader)

    def offer(self, a: Alert, now: float) -> None:
        key = self._key(a)
        w = self._open.get(key)
        if w is not None and now >= w.until:
            w = self._close(key, w, now)
        if w is None:
            self._open[key] = _Window(now + self.window)
            self._send(a)
            return
        w.repeats += 1
        w.last = a
        if len(w.details) < self.SAMPLE_DETAILS and a.detail:
            w.details.append(a.detail)

    def flush(self, now: float) -> None:
        """Send the summaries of windows that ended; forget the quiet ones."""
        for key, w in list(self._open.items()):
            if now >= w.until:
                self._close(key, w, now)

    def _close(self, key: Hashable, w: _Window, now: float) -> _Window | None:
        """An ended window: its summary out and a new window to count in (still flooding),
        or, if it stayed quiet, none (the next alert goes out at once)."""
        if not w.repeats:
            del self._open[key]
            return None
        self._summary(w)
        fresh = self._open[key] = _Window(now + self.window)
        return fresh

    def _summary(self, w: _Window) -> None:
        assert w.last is not None
        more = "; ".join(w.details)
        if w.repeats > len(w.details):
            more += f"; … {w.repeats - len(w.details)} more"
        self._send(Alert(replace(w.last.public, repeats=w.repeats), more))
