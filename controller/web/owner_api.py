"""The owners' REST API: tables, sessions, hands, events, settlements, replays, exports and
totals. Every route needs a login (``controller.web.auth``)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Query, status
from fastapi.responses import Response

from controller.hub.aliases import sent_session
from controller.store import HandRecord, StoredHand, UnknownHand, UnknownSession
from controller.store.members import hand_seat_acts
from controller.store.owners import CashoutTerms
from controller.store.staff_marks import staff_marks
from controller.store.tables import (
    TableRecord,
    has_table,
    list_tables,
    quarantined,
    settlements_for,
    table_hands,
    table_of_hand,
    table_record,
    table_sessions,
)
from controller.table import fairness
from controller.table.cashout import stored_cashout
from controller.table.dice import dice_check_of
from controller.web import charts
from controller.web.auth import current_owner
from controller.web.context import WebContext, context, own_table
from controller.web.export import hands_csv, hands_json
from controller.web.replay import ReplayError, event_payloads, replay
from controller.web.routes import ApiRoute
from controller.web.schemas import (
    AlertOut,
    AlertsOut,
    DiceCheckOut,
    EventOut,
    EventsOut,
    HandDetail,
    HandOut,
    Problem,
    QuarantinedOut,
    ReplayOut,
    ReplayStep,
    SessionOut,
    SettlementOut,
    TableOut,
    TotalsOut,
)
from controller.web.totals import totals
from controller.words.zones import zones_in_words

router = APIRouter(
    route_class=ApiRoute,
    prefix="/api/v1",
    tags=["owners"],
    dependencies=[Depends(current_owner)],
    responses={401: {"model": Problem}, 404: {"model": Problem}},
)
Ctx = Annotated[WebContext, Depends(context)]
# Ids are chosen by the tables (uuid hex by default); no control characters, 1-64 long.
ID = r"^[^\x00-\x1f\x7f]{1,64}$"
TableId = Annotated[str, Path(pattern=ID, description="A table id, as in /api/v1/tables")]
HandId = Annotated[str, Path(pattern=ID)]
SessionId = Annotated[str, Path(pattern=ID)]
EXPORT_LIMIT = 100_000
TOTALS_LIMIT = 20_000


def _aware(value: datetime | None, name: str) -> datetime | None:
    """A naive time is the server's local time (the parlour's clock)."""
    if value is None:
        return None
    try:
        # In UTC here: 9999-12-31T23:59:59-23:59 is past the last datetime in UTC.
        return value.astimezone(UTC)
    except (OverflowError, OSError, ValueError):
        raise HTTPException(422, f"{name}: not a usable time: {value.isoformat()}") from None


@dataclass(frozen=True, slots=True)
class HandFilters:
    since: datetime | None
    until: datetime | None
    ruleset: str | None
    status: str | None
    result: str | None
    seat: int | None
    session_id: str | None

    def query(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "until": self.until,
            "ruleset": self.ruleset,
            "status": self.status,
            "result": self.result,
            "seat": self.seat,
            "session_id": self.session_id,
        }


def hand_filters(
    since: Annotated[
        datetime | None, Query(description="Hands started at or after (date or date-time)")
    ] = None,
    until: Annotated[datetime | None, Query(description="Hands started before (exclusive)")] = None,
    ruleset: Annotated[str | None, Query(max_length=64, pattern=ID)] = None,
    hand_status: Annotated[
        Literal["open", "finished", "aborted"] | None, Query(alias="status")
    ] = None,
    result: Annotated[
        str | None, Query(max_length=32, pattern=ID, description="How it ended: win, draw, …")
    ] = None,
    seat: Annotated[
        int | None, Query(ge=0, le=3, description="Hands this seat (0-3) won or dealt in")
    ] = None,
    session_id: Annotated[str | None, Query(max_length=64, pattern=ID)] = None,
) -> HandFilters:
    since_, until_ = _aware(since, "since"), _aware(until, "until")
    if since_ is not None and until_ is not None and until_ < since_:
        raise HTTPException(422, "until: must not be before since")
    return HandFilters(since_, until_, ruleset, hand_status, result, seat, session_id)


Filters = Annotated[HandFilters, Depends(hand_filters)]
Limit = Annotated[int, Query(ge=1, le=1000)]
Offset = Annotated[int, Query(ge=0, le=1_000_000)]


def _table_out(ctx: WebContext, t: TableRecord) -> TableOut:
    this = t.table_id == own_table(ctx)
    state, current = "unknown", None
    heard = ctx.table_status(t.table_id) if ctx.table_status is not None else None
    if heard in ("online", "offline"):
        state = heard
    if this:
        live_status = ctx.live.last("status")
        if isinstance(live_status, dict) and live_status.get("state") in ("online", "offline"):
            state = live_status["state"]
        hand = ctx.live.last("hand")
        if isinstance(hand, dict):
            keys = ("hand_id", "hand_no", "ruleset", "phase", "dealer", "turn", "live")
            current = {k: hand.get(k) for k in keys}
    return TableOut.of(t, this_table=this, status=state, current=current)


def _tables(ctx: WebContext) -> list[TableOut]:
    s = ctx.settings
    found = list_tables(ctx.store, default_table=own_table(ctx), parlour=s.parlour)
    return [_table_out(ctx, t) for t in found]


def _table(ctx: WebContext, table_id: str) -> TableOut:
    s = ctx.settings
    found = table_record(ctx.store, table_id, default_table=own_table(ctx), parlour=s.parlour)
    if found is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown table {table_id!r}")
    return _table_out(ctx, found)


def _known(ctx: WebContext, table_id: str) -> None:
    if not has_table(ctx.store, table_id, default_table=own_table(ctx)):
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown table {table_id!r}")


def _hands(ctx: WebContext, table_id: str, filters: HandFilters, **kw: Any) -> list[HandRecord]:
    _known(ctx, table_id)
    return table_hands(ctx.store, table_id, default_table=own_table(ctx), **filters.query(), **kw)


def _stored(ctx: WebContext, hand_id: str) -> StoredHand:
    try:
        return ctx.store.load_hand(hand_id)
    except UnknownHand:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"unknown hand {hand_id!r}") from None


@router.get("/tables", summary="Tables this store has seen, with their status")
def get_tables(ctx: Ctx) -> list[TableOut]:
    return _tables(ctx)


@router.get("/tables/{table_id}", summary="One table")
def get_table(ctx: Ctx, table_id: TableId) -> TableOut:
    return _table(ctx, table_id)


@router.get("/tables/{table_id}/sessions", summary="A table's sessions, newest first")
def get_table_sessions(
    ctx: Ctx, table_id: TableId, limit: Limit = 100, offset: Offset = 0
) -> list[SessionOut]:
    _known(ctx, table_id)
    return [
        SessionOut.of(s) for s in table_sessions(ctx.store, table_id, limit=limit, offset=offset)
    ]


@router.get("/tables/{table_id}/hands", summary="A table's hand log, newest first, filtered")
def get_table_hands(
    ctx: Ctx, table_id: TableId, filters: Filters, limit: Limit = 100, offset: Offset = 0
) -> list[HandOut]:
    return _marked(ctx, _hands(ctx, table_id, filters, limit=limit, offset=offset))


def _marked(ctx: WebContext, hands: list[HandRecord]) -> list[HandOut]:
    """The hands as listed, each with what staff did to it (entered, voided)."""
    marks = staff_marks(ctx.store.engine, hands)
    out = []
    for h in hands:
        row, mark = HandOut.of(h), marks.get(h.id)
        if mark is not None:
            row = row.model_copy(update={"entered_by_staff": mark.entered, "voided": mark.voided})
        out.append(row)
    return out


@router.get(
    "/tables/{table_id}/export.csv",
    summary="The filtered hand log as CSV (one row per hand, nets and reasons)",
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, UTF-8 with a BOM"}},
)
def export_csv(ctx: Ctx, table_id: TableId, filters: Filters) -> Response:
    hands = _hands(ctx, table_id, filters, oldest_first=True, limit=EXPORT_LIMIT)
    text = hands_csv(table_id, hands, settlements_for(ctx.store, [h.id for h in hands]))
    return Response(
        "\ufeff" + text,  # the BOM makes spreadsheet programs read the Chinese reasons right
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="hands-{table_id}.csv"'},
    )


@router.get(
    "/tables/{table_id}/export.json",
    summary="The filtered hand log as JSON (hands with their settlements)",
)
def export_json(ctx: Ctx, table_id: TableId, filters: Filters) -> list[dict[str, Any]]:
    hands = _hands(ctx, table_id, filters, oldest_first=True, limit=EXPORT_LIMIT)
    return hands_json(table_id, hands, settlements_for(ctx.store, [h.id for h in hands]))


@router.get("/tables/{table_id}/settlements", summary="Settlements of the filtered hands")
def get_settlements(
    ctx: Ctx, table_id: TableId, filters: Filters, limit: Limit = 100, offset: Offset = 0
) -> list[SettlementOut]:
    hands = _hands(ctx, table_id, filters, limit=limit, offset=offset)
    found = settlements_for(ctx.store, [h.id for h in hands])
    return [
        SettlementOut(
            hand_id=h.id, hand_no=h.hand_no, started_at=h.started_at, settlement=found[h.id]
        )
        for h in hands
        if h.id in found
    ]


@router.get("/tables/{table_id}/totals", summary="Per-seat and per-day totals over time")
def get_totals(ctx: Ctx, table_id: TableId, filters: Filters) -> TotalsOut:
    hands = _hands(ctx, table_id, filters, oldest_first=True, limit=TOTALS_LIMIT)
    return TotalsOut.model_validate(totals(table_id, hands))


_SVG: dict[int | str, dict[str, Any]] = {
    200: {"content": {"image/svg+xml": {}}, "description": "An SVG image"}
}


@router.get(
    "/tables/{table_id}/charts/{chart}.svg",
    summary="Charts: 'seats' (cumulative net per seat) or 'days' (hands per day)",
    responses=_SVG,
)
def get_chart(
    ctx: Ctx,
    table_id: TableId,
    chart: Literal["seats", "days"],
    filters: Filters,
    lang: Annotated[Literal["zh", "en"], Query()] = "zh",
) -> Response:
    hands = _hands(ctx, table_id, filters, oldest_first=True, limit=TOTALS_LIMIT)
    data = totals(table_id, hands)
    zh = lang == "zh"
    if chart == "seats":
        series = [[float(p["cumulative"][s]) for p in data["series"]] for s in range(4)]
        labels = [f"{s + 1}号位" if zh else f"Seat {s + 1}" for s in range(4)]
        svg = charts.line_chart(
            series,
            labels,
            "各位累计输赢" if zh else "Cumulative net per seat",
            "局" if zh else "hands",
        )
    else:
        svg = charts.bar_chart(
            [float(d["hands"]) for d in data["days"]],
            [d["date"] for d in data["days"]],
            "每日局数" if zh else "Hands per day",
        )
    return Response(svg, media_type="image/svg+xml")


def _fairness(ctx: WebContext, table_id: str, filters: HandFilters) -> fairness.FairnessReport:
    finished = dataclasses.replace(filters, status="finished")
    hands = _hands(ctx, table_id, finished, oldest_first=True, limit=TOTALS_LIMIT)
    return fairness.report(fairness.facts_of(ctx.store, hands))


@router.get(
    "/tables/{table_id}/fairness",
    summary="The fairness report: dice, seat and dealer wins, streaks, 精 positions, tests",
)
def get_fairness(ctx: Ctx, table_id: TableId, filters: Filters) -> dict[str, Any]:
    return _fairness(ctx, table_id, filters).as_dict() | {"table_id": table_id}


@router.get(
    "/tables/{table_id}/fairness.csv",
    summary="The fairness report as CSV (counts, expected counts, tests with p-values)",
    responses={200: {"content": {"text/csv": {}}, "description": "CSV, UTF-8 with a BOM"}},
)
def get_fairness_csv(ctx: Ctx, table_id: TableId, filters: Filters) -> Response:
    text = fairness.report_csv(table_id, _fairness(ctx, table_id, filters))
    return Response(
        "\ufeff" + text,
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="fairness-{table_id}.csv"'},
    )


_FAIRNESS_TITLES = {
    "faces": ("骰子点数（横线：公平时的期望）", "Dice faces (line: what fair dice give)"),
    "sums": ("两骰之和（横线：期望）", "Sums of two dice (line: expected)"),
    "seats": ("各位胡牌次数（横线：期望）", "Wins per seat (line: expected)"),
    "streaks": ("连庄长度（横线：几何分布）", "Dealer streak lengths (line: geometric)"),
}


@router.get(
    "/tables/{table_id}/fairness/{chart}.svg",
    summary="Fairness charts: 'faces', 'sums', 'seats' or 'streaks', with expected counts",
    responses=_SVG,
)
def get_fairness_chart(
    ctx: Ctx,
    table_id: TableId,
    chart: Literal["faces", "sums", "seats", "streaks"],
    filters: Filters,
    lang: Annotated[Literal["zh", "en"], Query()] = "zh",
) -> Response:
    observed, expected, labels = fairness.chart_data(_fairness(ctx, table_id, filters), chart)
    zh, en = _FAIRNESS_TITLES[chart]
    svg = charts.count_chart(observed, expected, labels, zh if lang == "zh" else en)
    return Response(svg, media_type="image/svg+xml")


@router.get("/sessions/{session_id}", summary="One session")
def get_session(ctx: Ctx, session_id: SessionId) -> SessionOut:
    try:
        return SessionOut.of(ctx.store.get_session(session_id))
    except UnknownSession:
        raise HTTPException(404, f"unknown session {session_id!r}") from None


@router.get(
    "/sessions/{session_id}/cashout",
    summary="A session's cash-out: each player's net and who pays whom (its standing if open)",
)
def get_session_cashout(ctx: Ctx, session_id: SessionId) -> dict[str, Any]:
    # the hub holds no terms (each table its own): an open session there is in points, a
    # closed one in the terms stored with its close
    terms = CashoutTerms() if ctx.settings.hub else ctx.owners.cashout_terms()[0]
    try:
        return stored_cashout(ctx.store, session_id, terms, datetime.now(UTC))
    except UnknownSession:
        raise HTTPException(404, f"unknown session {session_id!r}") from None


@router.get("/sessions/{session_id}/hands", summary="A session's hands, newest first")
def get_session_hands(
    ctx: Ctx, session_id: SessionId, limit: Limit = 100, offset: Offset = 0
) -> list[HandOut]:
    get_session(ctx, session_id)
    hands = ctx.store.list_hands(session_id=session_id, limit=limit, offset=offset)
    return _marked(ctx, hands)


@router.get("/hands/{hand_id}", summary="One hand with its settlement")
def get_hand(ctx: Ctx, hand_id: HandId) -> HandDetail:
    stored = _stored(ctx, hand_id)
    table = table_of_hand(ctx.store, hand_id, default_table=ctx.settings.table)
    return HandDetail(
        hand=HandOut.of(stored.hand),
        table_id=table or ctx.settings.table,
        settlement=stored.settlement,
        events=len(stored.events),
        concealed=stored.hand.status == "finished",
        seat_acts=hand_seat_acts(ctx.store.engine, hand_id),
    )


@router.get(
    "/hands/{hand_id}/events",
    summary="A hand's events: whole when finished, else only their public projection",
)
def get_events(ctx: Ctx, hand_id: HandId) -> EventsOut:
    stored = _stored(ctx, hand_id)
    concealed, payloads = event_payloads(stored)
    return EventsOut(
        hand_id=hand_id,
        concealed=concealed,
        events=[
            EventOut(seq=e.seq, type=e.type, at=e.created_at, data=p)
            for e, p in zip(stored.events, payloads, strict=True)
        ],
    )


_JSON_LINES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/x-ndjson": {}}, "description": "JSON lines"}
}


@router.get(
    "/hands/{hand_id}/log.jsonl",
    summary="A hand's log as `mjtable replay` reads it: one event a line, as JSON",
    description="The events of the hand, oldest first, each the JSON object the engine "
    "folds (`mjtable replay FILE` re-folds it and checks the settlement). Whole once the "
    "hand is finished; an open or aborted hand gives each event's public projection only.",
    responses=_JSON_LINES,
)
def get_log(ctx: Ctx, hand_id: HandId) -> Response:
    _concealed, payloads = event_payloads(_stored(ctx, hand_id))
    body = "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in payloads)
    return Response(
        body,
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{hand_id}.jsonl"'},
    )


@router.get(
    "/hands/{hand_id}/alerts",
    summary="A hand's alerts; which tile or tag each was about only once it is finished",
)
def get_alerts(ctx: Ctx, hand_id: HandId) -> AlertsOut:
    finished = _stored(ctx, hand_id).hand.status == "finished"
    return AlertsOut(
        hand_id=hand_id,
        concealed=finished,
        alerts=[
            AlertOut(
                at=a.created_at,
                kind=a.kind,
                seat=a.seat,
                message=a.message,
                detail=zones_in_words(a.detail) if finished else None,
            )
            for a in ctx.store.alerts_of(hand_id)
        ],
    )


@router.get("/hands/{hand_id}/settlement", summary="A finished hand's settlement")
def get_settlement(ctx: Ctx, hand_id: HandId) -> SettlementOut:
    stored = _stored(ctx, hand_id)
    if stored.settlement is None:
        raise HTTPException(404, f"hand {hand_id!r} has no settlement ({stored.hand.status})")
    h = stored.hand
    return SettlementOut(
        hand_id=h.id, hand_no=h.hand_no, started_at=h.started_at, settlement=stored.settlement
    )


@router.get(
    "/hands/{hand_id}/replay",
    summary="The hand step by step; every seat's tiles only once it is finished",
    responses={409: {"model": Problem}},
)
def get_replay(ctx: Ctx, hand_id: HandId) -> ReplayOut:
    stored = _stored(ctx, hand_id)
    try:
        concealed, verdict, steps = replay(stored)
    except ReplayError as err:
        raise HTTPException(status.HTTP_409_CONFLICT, str(err)) from None
    dice = None
    if concealed:  # (finished: its seed is public; an open hand's check waits for it)
        h, events = stored.hand, stored.event_dicts()
        session = sent_session(h.parlour or "", h.table_id or "", h.session_id, events)
        found = dice_check_of(events, {"hand_no": h.hand_no, "session_id": session})
        dice = DiceCheckOut(
            verdict=found.verdict, rolls=found.rolls, problems=found.problems, notes=found.notes
        )
    return ReplayOut(
        hand=HandOut.of(stored.hand),
        concealed=concealed,
        check=verdict,
        steps=[ReplayStep.model_validate(s) for s in steps],
        dice=dice,
    )


@router.get(
    "/quarantine",
    summary="Handlogs the hub refused, newest first, with the reason (empty on a table)",
)
def get_quarantine(ctx: Ctx, limit: Limit = 100, offset: Offset = 0) -> list[QuarantinedOut]:
    return [QuarantinedOut(**row) for row in quarantined(ctx.store, limit=limit, offset=offset)]
