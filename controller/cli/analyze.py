"""``mjtable analyze``: readings, waits and shanten of a hand (a contract; keep the names)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from controller.cli.json_input import MAX_CHARS, bounded_lines, dumps_line, loads
from controller.cli.options import Lang, Language
from controller.json_bounds import JsonBoundsError
from engine.analysis import analyze as analyze_hand
from engine.analysis import shanten, waits
from engine.hand import Meld, MeldError, MeldType, Reading
from engine.rulesets import PresetError, load_ruleset
from engine.rulesets.base import SHAPE_ZH
from engine.tiles import TileNotationError, format_kinds, parse_kind, parse_kinds, zh_name

cli = typer.Typer(add_completion=False)


MELD_WORDS = {
    "chow": MeldType.CHOW,
    "pung": MeldType.PUNG,
    "kong": MeldType.KONG_EXPOSED,
    "kong_exposed": MeldType.KONG_EXPOSED,
    "kong_concealed": MeldType.KONG_CONCEALED,
    "kong_added": MeldType.KONG_ADDED,
}


class AnalyzeInputError(ValueError):
    pass


@dataclass(frozen=True)
class Request:
    concealed: list[int]
    melds: list[Meld]
    wild: frozenset[int]
    ruleset_id: str


def parse_meld(item: Any) -> Meld:
    """``"pung 777p"`` or ``{"type": "pung", "tiles": "777p"}``."""
    if isinstance(item, dict):
        unknown = set(item) - {"type", "tiles", "from"}
        if unknown:
            raise AnalyzeInputError(f"melds: unknown field {sorted(unknown)[0]!r}")
        word, tiles = str(item.get("type", "")), str(item.get("tiles", ""))
    elif isinstance(item, str) and " " in item.strip():
        word, tiles = item.strip().split(None, 1)
    else:
        raise AnalyzeInputError(f"melds: {item!r} is not 'TYPE TILES' (e.g. 'pung 777p')")
    if word not in MELD_WORDS:
        raise AnalyzeInputError(f"melds: unknown meld type {word!r}; use {', '.join(MELD_WORDS)}")
    try:
        kinds = tuple(parse_kinds(tiles))
        return Meld(MELD_WORDS[word], kinds, None if word == "kong_concealed" else 0)
    except (TileNotationError, MeldError) as err:
        raise AnalyzeInputError(f"melds: {err}") from None


def parse_melds_text(text: str | None) -> list[Meld]:
    if not text:
        return []
    return [parse_meld(part) for part in text.split(",") if part.strip()]


def build_request(
    hand: str, melds: list[Meld], indicator: str | None, ruleset_id: str | None
) -> Request:
    try:
        concealed = parse_kinds(hand)
    except TileNotationError as err:
        raise AnalyzeInputError(f"hand: {err}") from None
    ruleset_id = ruleset_id or "xingguo"
    try:
        ruleset = load_ruleset(ruleset_id)
    except PresetError as err:
        raise AnalyzeInputError(str(err)) from None
    wild: frozenset[int] = frozenset()
    if indicator:
        try:
            wild = ruleset.wild_kinds(parse_kind(indicator))
        except TileNotationError as err:
            raise AnalyzeInputError(f"indicator: {err}") from None
    size = len(concealed) + 3 * len(melds)
    if size not in (13, 14):
        raise AnalyzeInputError(
            f"hand: {len(concealed)} tiles with {len(melds)} melds; "
            f"expected {14 - 3 * len(melds)} (a win) or {13 - 3 * len(melds)} (waits)"
        )
    counts = [0] * 34
    for k in concealed + [k for m in melds for k in m.kinds]:
        counts[k] += 1
        if counts[k] > 4:
            raise AnalyzeInputError(f"hand: five or more {format_kinds([k])}")
    return Request(concealed, melds, wild, ruleset_id)


def reading_json(r: Reading) -> dict[str, Any]:
    return {
        "shape": r.shape.value,
        "wildcards_used": r.wildcards_used,
        "deguo": r.deguo,
        "jingdiao": r.jingdiao,
        "sets": [g.notation() for g in r.sets],
        "pair": r.pair.notation() if r.pair is not None else "",
    }


def run(req: Request) -> dict[str, Any]:
    options = load_ruleset(req.ruleset_id).shape_options()
    n = len(req.concealed) + 3 * len(req.melds)
    readings: list[Reading] = []
    wait_kinds: list[int] = []
    if n == 14:
        readings = analyze_hand(
            req.concealed, req.melds, req.wild, options, winning_kind=req.concealed[-1]
        )
    else:
        wait_kinds = waits(req.concealed, req.melds, req.wild, options)
    return {
        "win": bool(readings),
        "readings": [reading_json(r) for r in readings],
        "waits": [format_kinds([k]) for k in wait_kinds],
        "shanten": shanten(req.concealed, req.melds, req.wild, options),
    }


def json_lines(lines: Iterable[str | None]) -> Iterable[str]:
    """One JSON object per input line; a bad line gets ``{"error": ...}`` and the run goes on.

    None stands for a line too long to read (``bounded_lines``)."""
    for raw in lines:
        if raw is not None and not raw.strip():
            continue
        try:
            if raw is None:
                raise AnalyzeInputError(f"input: a line longer than {MAX_CHARS} characters")
            obj = loads(raw)
            if not isinstance(obj, dict):
                raise AnalyzeInputError("input: expected a JSON object")
            unknown = set(obj) - {"hand", "melds", "indicator", "ruleset"}
            if unknown:
                raise AnalyzeInputError(f"{sorted(unknown)[0]}: unknown field")
            if not isinstance(obj.get("hand"), str):
                raise AnalyzeInputError("hand: required, a tile string")
            for name in ("indicator", "ruleset"):
                if not isinstance(obj.get(name), str | None):
                    raise AnalyzeInputError(f"{name}: expected a string")
            melds_in = obj.get("melds") or []
            if not isinstance(melds_in, list):
                raise AnalyzeInputError("melds: expected a list")
            if len(melds_in) > 4:
                raise AnalyzeInputError("melds: at most 4")
            req = build_request(
                obj["hand"],
                [parse_meld(m) for m in melds_in],
                obj.get("indicator"),
                obj.get("ruleset"),
            )
            out: dict[str, Any] = run(req)
        except (JsonBoundsError, AnalyzeInputError) as err:
            out = {"error": str(err)}
        yield dumps_line(out)


def _human(req: Request, result: dict[str, Any], lang: Lang) -> None:
    from rich.console import Console  # only for people: --json and JSON lines skip it
    from rich.table import Table

    console = Console()
    zh = lang is Lang.zh
    names = SHAPE_ZH if zh else {}
    tiles = (
        " ".join(zh_name(k, long=False) for k in req.concealed)
        if zh
        else format_kinds(req.concealed)
    )
    console.print(f"{'手牌' if zh else 'hand'}: {tiles}  ({format_kinds(req.concealed)})")
    if req.melds:
        console.print(f"{'副露' if zh else 'melds'}: " + ", ".join(str(m) for m in req.melds))
    if req.wild:
        label = "精/财神" if zh else "wildcards"
        console.print(f"{label}: " + " ".join(format_kinds([k]) for k in sorted(req.wild)))
    if len(req.concealed) + 3 * len(req.melds) == 14:
        if not result["win"]:
            console.print("不是胡牌" if zh else "not a win")
        else:
            table = Table(title="胡牌读法" if zh else "winning readings")
            for col in ("牌型 shape", "精 wild", "德国", "精吊", "sets", "将 pair"):
                table.add_column(col)
            for r in result["readings"]:
                table.add_row(
                    names.get(r["shape"], r["shape"]),
                    str(r["wildcards_used"]),
                    "✓" if r["deguo"] else "",
                    "✓" if r["jingdiao"] else "",
                    " ".join(r["sets"]),
                    r["pair"],
                )
            console.print(table)
    else:
        waits_text = " ".join(result["waits"]) or ("无" if zh else "none")
        console.print(f"{'听' if zh else 'waits'}: {waits_text}")
    console.print(f"{'向听' if zh else 'shanten'}: {result['shanten']}")


@cli.command()
def analyze(
    hand: Annotated[
        str, typer.Argument(help='Tiles, e.g. "123m 456p 789s EEE 55m"; - for JSON lines.')
    ],
    melds: Annotated[str | None, typer.Option(help='e.g. "pung 777p, kong 9999s".')] = None,
    indicator: Annotated[str | None, typer.Option(help="The flipped tile (翻精/财神).")] = None,
    ruleset: Annotated[str | None, typer.Option(help="Ruleset id (default xingguo).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON in and out.")] = False,
    lang: Language = Lang.zh,
) -> None:
    """Readings of a 14-tile hand, or waits of a 13-tile hand, and shanten."""
    if hand == "-":
        for out in json_lines(bounded_lines(sys.stdin)):
            typer.echo(out)
        return
    try:
        req = build_request(hand, parse_melds_text(melds), indicator, ruleset)
    except AnalyzeInputError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None
    result = run(req)
    if as_json:
        typer.echo(dumps_line(result))
    else:
        _human(req, result, lang)
