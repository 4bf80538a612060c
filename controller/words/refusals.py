"""Wording: a catalogue key, or a message in the engine's terms, as the words people read."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from controller.words.catalogue import CATALOGUE, FIELDS, PATTERNS, VALUES
from controller.words.house_rules import CLAIM_ORDERS


@dataclass(frozen=True, slots=True)
class Words:
    """One message: ``zh`` first, ``en`` beside it (the API's ``detail`` and ``en``)."""

    zh: str
    en: str

    def body(self) -> dict[str, str]:
        return {"detail": self.zh, "en": self.en}

    def line(self) -> str:
        """Both on one line, for a terminal: ``zh (en)``."""
        return self.zh if self.zh == self.en else f"{self.zh} ({self.en})"


@dataclass(frozen=True, slots=True)
class Places:
    """Which seat a request's list entry names: ``winners[1]`` is the seat of the second
    winner sent, ``seats[0]`` the first seat sent (absolute seats, 0-3)."""

    winners: Sequence[int | None] = field(default_factory=list)
    seats: Sequence[int | None] = field(default_factory=list)
    dealer: int | None = None
    """The hand's dealer, where known: a seat is then named with its wind, 3号位（西）."""

    @staticmethod
    def of(body: object, dealer: int | None = None) -> Places:
        """The places of a request body as sent (anything: it may be what was refused)."""
        if not isinstance(body, Mapping):
            return Places(dealer=_seat_value(dealer))

        def seats_in(key: str) -> list[int | None]:
            items = body.get(key)
            if not isinstance(items, list):
                return []
            return [_seat_value(i.get("seat")) if isinstance(i, Mapping) else None for i in items]

        return Places(seats_in("winners"), seats_in("seats"), _seat_value(dealer))


def _seat_value(value: object) -> int | None:
    return value if type(value) is int and 0 <= value <= 3 else None


WINDS = {"zh": ("东", "南", "西", "北"), "en": ("East", "South", "West", "North")}


def seat_name(seat: int, lang: str = "zh", dealer: int | None = None) -> str:
    """An absolute seat (0-3) as people count them: ``3号位`` / ``seat 3``; with the hand's
    ``dealer``, its wind beside: ``3号位（西）`` / ``seat 3 (West)`` (the console's names)."""
    number = f"{seat + 1}号位" if lang == "zh" else f"seat {seat + 1}"
    if dealer is None:
        return number
    wind = WINDS["zh" if lang == "zh" else "en"][(seat - dealer) % 4]
    return f"{number}（{wind}）" if lang == "zh" else f"{number} ({wind})"


@cache
def _ruleset_names() -> dict[str, str]:
    from engine.rulesets.preset import builtin_ids, builtin_preset_data

    return {i: str(builtin_preset_data(i).get("name", i)) for i in builtin_ids()}


def ruleset_name(ruleset_id: str) -> str:
    return _ruleset_names().get(ruleset_id, ruleset_id)


def say(key: str, **params: Any) -> Words:
    zh, en = CATALOGUE[key]
    return Words(zh.format(**params), en.format(**params))


_CJK = re.compile(r"[\u3400-\u9fff]")
_ASIDE = re.compile(r"\s*\(([^()]*)\)")
_ENGLISH = re.compile(r"[A-Za-z]{3,}")
_SEAT_PATH = re.compile(r"(?:seats\[(\d)\]|\bseat (\d)\b) ?")
# a field path: name, name[i], name.name[i]…, or the readers' seat the finish names
_PATH = re.compile(
    r"^(?P<path>seat \d \(as the readers saw it: give it in seats\)(?:\.[a-z_]+(?:\[\d+\])?)*"
    r"|[A-Za-z_][\w-]*(?:\[\d+\])?(?:\.[A-Za-z_]+(?:\[\d+\])?)*): (?P<why>.+)$",
    re.DOTALL,
)
_STEP = re.compile(r"(?P<name>seat \d \([^)]*\)|[A-Za-z_][\w-]*)(?:\[(?P<index>\d+)\])?")


def _fill(template: str, groups: Mapping[str, str | None], dealer: int | None) -> str:
    values: dict[str, str] = {}
    for name, value in groups.items():
        text = value or ""
        if name.startswith("seat") and text.isdigit():
            text = seat_name(int(text), dealer=dealer)
        elif name == "ruleset":
            text = ruleset_name(text)
        elif name in ("field", "penalty", "meld"):
            text = FIELDS.get(text) or VALUES.get(text) or text
        elif name == "choice":
            text = CLAIM_ORDERS.get(text, text)
        elif name == "choices":
            text = "、".join(f"「{CLAIM_ORDERS.get(c, c)}」" for c in text.split(", "))
        values[name] = text
    return template.format(**values)


def _why(why: str, dealer: int | None = None) -> str | None:
    """A message (or the part after its field path) in words, or None."""
    for pattern, zh in PATTERNS:
        m = pattern.fullmatch(why)
        if m is not None:
            return _fill(zh, m.groupdict(), dealer)
    return None


def worded(message: str) -> str | None:
    """A message the catalogue words as a whole, or None."""
    return _why(message)


def _worded(aside: str) -> bool:
    """An aside people read (「（小相公）」), not the English gloss beside the words."""
    return bool(_CJK.search(aside)) and _ENGLISH.search(aside) is None


def _said_in_chinese(why: str, dealer: int | None = None) -> str | None:
    """A message raised in Chinese already, without its English aside and seat paths."""
    if not _CJK.search(why):
        return None
    said = _ASIDE.sub(lambda m: m.group(0) if _worded(m.group(1)) else "", why)
    return _plain(said, dealer).strip()


def place(path: Sequence[str | int], places: Places) -> str:
    """A field path (``("winners", 0, "hand")``) in words: ``3号位的手牌``."""
    words: list[str] = []
    steps = list(path)
    i = 0
    while i < len(steps):
        step = steps[i]
        after = steps[i + 1] if i + 1 < len(steps) else None
        index = after if isinstance(after, int) else None
        i += 2 if index is not None else 1
        if isinstance(step, int):
            words.append(f"第{step + 1}项")
            continue
        readers = re.fullmatch(r"seat (\d) \(.*\)", step)
        if readers:
            words.append(seat_name(int(readers.group(1)), dealer=places.dealer))
        elif step in ("winners", "seats", "win") and index is not None:
            listed = places.winners if step != "seats" else places.seats
            seat = listed[index] if index < len(listed) else None
            if step == "seats" and not listed and index <= 3:
                seat = index  # (the settlement's own terms: seats[N] is seat N)
            if seat is not None:
                words.append(seat_name(seat, dealer=places.dealer))
            else:
                words.append(f"第{index + 1}个{'胡牌的一家' if step != 'seats' else '座位'}")
        elif step == "melds" and index is not None:
            words.append(f"第{index + 1}组副露")
        else:
            name = FIELDS.get(step, "这一项")
            words.append(name if index is None else f"{name}第{index + 1}项")
    return "的".join(words)


def _split(path: str) -> list[str | int]:
    steps: list[str | int] = []
    for m in _STEP.finditer(path):
        steps.append(m.group("name"))
        if m.group("index") is not None:
            steps.append(int(m.group("index")))
    return steps


def refusal(message: str, places: Places | None = None) -> Words:
    """A refusal raised in the engine's or the controller's terms, in words; the message
    itself is kept as ``en``. Never a field path, ``seats[N]`` or a 0-based seat."""
    places = places or Places()
    dealer = places.dealer
    whole = _why(message, dealer)
    if whole is not None:
        return Words(whole, message)
    m = _PATH.match(message)
    if m is None:
        said = _said_in_chinese(message, dealer)
        return Words(said or "这次操作没有完成：" + _plain(message, dealer), message)
    if _why(m.group("why")) is None and _PATH.match(m.group("why")):  # a path in a path:
        return Words(refusal(m.group("why"), places).zh, message)  # the inner one says it
    where = place(_split(m.group("path")), places)
    why = _why(m.group("why"), dealer) or _said_in_chinese(m.group("why"), dealer)
    if why is not None and m.group("path").startswith("seat "):  # no reader saw that seat
        why += "（感应器没有看到这一家的牌：请把它填进各家的牌）"
    if why is None:
        return Words(f"{where}填得不对", message)
    if re.match(r"\d号位", why):  # the seat said already: the path adds nothing
        return Words(why, message)
    return Words(f"{where}：{why}", message)


def _plain(message: str, dealer: int | None = None) -> str:
    """A message without seat paths or a 0-based seat: ``seats[2] 有精`` is ``3号位有精``."""
    seat = lambda m: seat_name(int(m.group(1) or m.group(2)), dealer=dealer)  # noqa: E731
    return _SEAT_PATH.sub(seat, message)


# pydantic's error types, in words ({where}: the field; ctx values by name)
_VALIDATION: dict[str, str] = {
    "missing": "{where}没有填",
    "string_too_short": "{where}不能空着",
    "string_too_long": "{where}太长（最多 {max_length} 个字）",
    "too_long": "{where}太多（最多 {max_length} 项）",
    "too_short": "{where}太少（至少 {min_length} 项）",
    "string_pattern_mismatch": "{where}的写法不对",
    "literal_error": "{where}只能是：{expected}",
    "extra_forbidden": "提交的内容里有一项不认识（{where}）",
    "json_invalid": "提交的内容不是有效的 JSON",
    "greater_than_equal": "{where}不能小于 {ge}",
    "less_than_equal": "{where}不能大于 {le}",
    "greater_than": "{where}要大于 {gt}",
    "less_than": "{where}要小于 {lt}",
}


def validation(
    errors: Sequence[Mapping[str, Any]], body: object = None, dealer: int | None = None
) -> Words:
    """pydantic's ``RequestValidationError`` in words: each problem, by field."""
    places = Places.of(body, dealer)
    zh: list[str] = []
    en: list[str] = []
    for err in errors:
        loc = [p for p in err.get("loc", ()) if p not in ("query", "path", "body", "header")]
        kind = str(err.get("type", ""))
        msg = str(err.get("msg", "invalid"))
        if kind == "value_error":  # our own validator's words, without pydantic's
            msg = msg.removeprefix("Value error, ")
        en.append(f"{'.'.join(str(p) for p in loc) or 'request'}: {msg}")
        zh.append(_validation_words(kind, loc, msg, dict(err.get("ctx") or {}), places))
    return Words("；".join(dict.fromkeys(zh)), "; ".join(en))


def _validation_words(
    kind: str, loc: list[Any], msg: str, ctx: dict[str, Any], places: Places
) -> str:
    where = place([p if isinstance(p, int) else str(p) for p in loc], places) or "提交的内容"
    last = loc[-1] if loc else None
    seat_field = last in ("seat", "from_seat", "to_seat", "from", "from_")
    if seat_field and kind in ("greater_than_equal", "less_than_equal", "int_type", "int_parsing"):
        return f"{where}：座位只有1号位到4号位"
    if kind == "string_too_short" and last == "reason":
        return "请写明原因"
    if kind == "value_error":
        dealer = places.dealer
        return _why(msg, dealer) or _said_in_chinese(msg, dealer) or f"{where}填得不对"
    if kind == "literal_error":
        expected = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        ctx["expected"] = "、".join(VALUES.get(e, e) for e in expected)
    template = _VALIDATION.get(kind)
    if template is None:
        return f"{where}填得不对" if not kind.endswith("_type") else f"{where}的类型不对"
    try:
        return template.format(where=where, **ctx)
    except (KeyError, IndexError, ValueError):
        return f"{where}填得不对"


def phrase(message: str) -> Words:
    """A message that is no refusal (a check's finding), in words where the catalogue has
    them; else as it is, its seat paths counted from 1."""
    return Words(_why(message) or _plain(message), message)
