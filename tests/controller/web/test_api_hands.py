"""The owners' API over a real store of hands the engine played: lists, filters, events,
replays (concealed only when finished), settlements, exports and totals."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from controller.store import EventStore
from controller.web import LiveHub, WebAppSettings, create_app
from engine.round.events import EVENT_TYPES
from tests.controller.web.helpers import Filled, fill_store


def test_tables_and_sessions(authed: TestClient, filled: Filled, hub: object) -> None:
    tables = authed.get("/api/v1/tables").json()
    assert [t["table_id"] for t in tables] == ["t1"]
    t1 = tables[0]
    assert (t1["hands"], t1["open_hands"], t1["sessions"], t1["this_table"]) == (4, 1, 1, True)
    assert t1["status"] == "unknown"
    sessions = authed.get("/api/v1/tables/t1/sessions").json()
    assert [s["id"] for s in sessions] == [filled.session_id]
    assert authed.get(f"/api/v1/sessions/{filled.session_id}").json()["ruleset"] == "xingguo"
    assert len(authed.get(f"/api/v1/sessions/{filled.session_id}/hands").json()) == 4
    r = authed.get("/api/v1/tables/nope")
    assert r.status_code == 404 and "unknown table" in r.json()["en"]
    assert "没有这张桌" in r.json()["detail"]
    assert authed.get("/api/v1/sessions/nope").status_code == 404


def test_live_status_of_this_table(authed: TestClient, hub) -> None:  # type: ignore[no-untyped-def]
    hub.publish("status", {"state": "online"})
    hub.publish("hand", {"hand_id": "h9", "hand_no": 9, "phase": "turn", "dealer": 1, "turn": 2})
    t1 = authed.get("/api/v1/tables/t1").json()
    assert t1["status"] == "online" and t1["current"]["hand_no"] == 9


def test_several_tables(store: EventStore, filled: Filled, authed: TestClient) -> None:
    fill_store(store, hands=2, table_id="t2", seed=3, open_hand=False)
    tables = {t["table_id"]: t for t in authed.get("/api/v1/tables").json()}
    assert set(tables) == {"t1", "t2"} and tables["t2"]["hands"] == 2
    assert tables["t2"]["status"] == "unknown" and not tables["t2"]["this_table"]
    assert len(authed.get("/api/v1/tables/t2/hands").json()) == 2
    assert len(authed.get("/api/v1/tables/t1/hands").json()) == 4


def test_hand_filters(authed: TestClient, filled: Filled) -> None:
    def ids(query: str) -> set[str]:
        r = authed.get(f"/api/v1/tables/t1/hands?{query}")
        assert r.status_code == 200, r.text
        return {h["id"] for h in r.json()}

    everything = ids("")
    assert everything == {*filled.finished, filled.open_hand}
    assert ids("status=finished") == set(filled.finished)
    assert ids("status=open") == {filled.open_hand}
    assert ids("ruleset=jian") == set()
    assert ids("ruleset=xingguo") == everything
    for result in set(filled.results.values()):
        assert ids(f"result={result}") == {h for h, r in filled.results.items() if r == result}
    hands = authed.get("/api/v1/tables/t1/hands?status=finished").json()
    for seat in range(4):
        expected = {h["id"] for h in hands if seat in (h["winner"], h["discarder"])}
        assert ids(f"seat={seat}") == expected
    today = datetime.now(UTC).date()
    assert ids(f"since={today - timedelta(days=1)}") == everything
    assert ids(f"until={today - timedelta(days=1)}") == set()
    assert ids(f"since={today + timedelta(days=2)}") == set()
    assert len(ids("limit=2")) == 2 and len(ids("limit=2&offset=3")) == 1


def test_bad_requests_get_clear_4xx(authed: TestClient) -> None:
    for query, word in (
        ("seat=4", "seat"),
        ("status=lost", "status"),
        ("since=yesterday", "since"),
        ("limit=0", "limit"),
        ("since=2026-02-02&until=2026-01-01", "until"),
    ):
        r = authed.get(f"/api/v1/tables/t1/hands?{query}")
        assert r.status_code == 422, query
        assert word in r.json()["en"], r.json()
    assert authed.get("/api/v1/hands/nope").status_code == 404
    assert authed.get("/api/v1/hands/nope/replay").status_code == 404
    assert authed.get("/api/v1/tables/t1/charts/pie.svg").status_code == 422


def test_finished_hand_events_replay_and_settlement(authed: TestClient, filled: Filled) -> None:
    hid = filled.finished[0]
    detail = authed.get(f"/api/v1/hands/{hid}").json()
    assert detail["concealed"] and detail["hand"]["status"] == "finished"
    assert sum(detail["settlement"]["net"]) == 0
    events = authed.get(f"/api/v1/hands/{hid}/events").json()
    assert events["concealed"]
    dealt = next(e for e in events["events"] if e["type"] == "dealt")
    assert len(dealt["data"]["tiles"]) == 4  # the whole log, concealed tiles included
    replay = authed.get(f"/api/v1/hands/{hid}/replay").json()
    assert replay["concealed"] and replay["check"] is None
    steps = replay["steps"]
    assert [s["seq"] for s in steps] == list(range(len(events["events"])))
    after_deal = next(s for s in steps if s["type"] == "dealt")
    hands = [seat["hand"] for seat in after_deal["view"]["seats"]]
    assert sorted(len(h) for h in hands) == [13, 13, 13, 14]
    assert all(s["text"]["zh"] and s["text"]["en"] for s in steps)
    assert steps[-1]["type"] == "settled" and steps[-1]["view"]["settlement"]["net"]
    settlement = authed.get(f"/api/v1/hands/{hid}/settlement").json()
    assert settlement["settlement"] == detail["settlement"]
    reasons = [line["reason"] for line in settlement["settlement"]["lines"]]
    assert any("精" in r for r in reasons)


def test_a_damaged_settlement_is_refused_with_the_reason(
    authed: TestClient, filled: Filled, store: EventStore
) -> None:
    """A stored settlement line paying from seat 9: the replay answered 500 before (its
    check of the settlement read the nets by seat); now the reading names the field."""
    hid = filled.finished[0]
    settled = store.load_hand(hid).events[-1].payload
    assert settled["type"] == "settled"
    settled["settlement"]["lines"][0]["from"] = 9
    with store.engine.begin() as c:
        c.execute(
            text("UPDATE events SET payload = :p WHERE hand_id = :h AND type = 'settled'"),
            {"p": json.dumps(settled), "h": hid},
        )
    r = authed.get(f"/api/v1/hands/{hid}/replay")
    assert r.status_code == 409, r.text
    assert "settled.settlement.lines.0.from" in r.json()["en"]
    assert authed.get(f"/api/v1/hands/{hid}/events").status_code == 200  # still listed


@pytest.mark.parametrize("where", ["events", "settlements"])
def test_a_settlement_whose_reasons_were_altered_is_not_verified(
    authed: TestClient, filled: Filled, store: EventStore, where: str
) -> None:
    """The nets unchanged, one line's reason rewritten, in the log's
    Settled event or in the stored settlement the pages show: not "结算已复核"."""
    hid = next(
        h
        for h in filled.finished
        if store.load_hand(h).settlement["lines"]  # type: ignore[index]
    )
    assert authed.get(f"/api/v1/hands/{hid}/replay").json()["check"] is None
    stored = store.load_hand(hid)
    settled = stored.events[-1].payload
    with store.engine.begin() as c:
        if where == "events":
            settled["settlement"]["lines"][0]["reason"] = "庄家包赔"
            c.execute(
                text("UPDATE events SET payload = :p WHERE hand_id = :h AND type = 'settled'"),
                {"p": json.dumps(settled), "h": hid},
            )
        else:
            payload = dict(stored.settlement or {})
            payload["lines"] = [dict(line) for line in payload["lines"]]
            payload["lines"][0]["reason"] = "庄家包赔"
            c.execute(
                text("UPDATE settlements SET payload = :p WHERE hand_id = :h"),
                {"p": json.dumps(payload), "h": hid},
            )
    check = authed.get(f"/api/v1/hands/{hid}/replay").json()["check"]
    assert check is not None and "line 1 reason: '庄家包赔'" in check


def _secret_fields(event: dict[str, object]) -> set[str]:
    cls = EVENT_TYPES[str(event["type"])]
    return set(cls.secret) & set(event)


def test_a_fault_of_the_replay_itself_is_not_called_a_damaged_log(
    authed: TestClient, filled: Filled, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only what the engine refuses (an EngineError) makes a log "cannot be replayed"; any
    other error is a fault of ours, and is not hidden behind a 409."""

    def broken(state: object) -> None:
        raise ValueError("a fault of the page, not of the log")

    monkeypatch.setattr("controller.web.replay.owner_view", broken)
    with pytest.raises(ValueError, match="a fault of the page"):
        authed.get(f"/api/v1/hands/{filled.finished[0]}/replay")


def test_unfinished_hand_shows_only_the_public_projection(
    authed: TestClient, filled: Filled
) -> None:
    hid = filled.open_hand
    assert authed.get(f"/api/v1/hands/{hid}").json()["concealed"] is False
    events = authed.get(f"/api/v1/hands/{hid}/events").json()
    assert events["concealed"] is False
    assert all(not _secret_fields(e["data"]) for e in events["events"])
    assert authed.get(f"/api/v1/hands/{hid}/settlement").status_code == 404
    replay = authed.get(f"/api/v1/hands/{hid}/replay").json()
    assert replay["concealed"] is False
    for step in replay["steps"]:
        assert not _secret_fields(step["event"])
        assert all("hand" not in seat for seat in step["view"]["seats"])
        assert "an" not in step["view"]["jing"]
    # Draws say who drew, not what: no drawn tile appears in the words either.
    draws = [s for s in replay["steps"] if s["type"] == "drew"]
    assert draws and all(s["text"]["zh"].endswith("摸牌") for s in draws)
    text = json.dumps(replay, ensure_ascii=False)
    assert '"order"' not in text and '"under_tile"' not in text


def test_exports(authed: TestClient, filled: Filled) -> None:
    r = authed.get("/api/v1/tables/t1/export.csv?status=finished")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert "attachment" in r.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(r.text.lstrip("\ufeff"))))
    assert [row["hand_id"] for row in rows] == filled.finished  # oldest first
    for row in rows:
        assert sum(float(row[f"net_{s}"]) for s in range(4)) == 0
        assert "精" in row["reasons"] or row["result"] == "draw"
    data = authed.get("/api/v1/tables/t1/export.json").json()
    assert [h["id"] for h in data] == [*filled.finished, filled.open_hand]
    assert data[0]["settlement"]["lines"] and data[-1]["settlement"] is None
    assert data[0]["table_id"] == "t1"


def test_totals_and_charts(authed: TestClient, filled: Filled) -> None:
    totals = authed.get("/api/v1/tables/t1/totals").json()
    assert totals["hands"] == 3 and len(totals["series"]) == 3
    nets = [authed.get(f"/api/v1/hands/{h}").json()["hand"]["net"] for h in filled.finished]
    assert totals["seats"] == [sum(n[s] for n in nets) for s in range(4)]
    assert totals["series"][-1]["cumulative"] == totals["seats"]
    assert sum(d["hands"] for d in totals["days"]) == 3
    for chart in ("seats", "days"):
        r = authed.get(f"/api/v1/tables/t1/charts/{chart}.svg")
        assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
        assert r.text.startswith("<svg") and r.text.endswith("</svg>")
    assert "各位累计输赢" in authed.get("/api/v1/tables/t1/charts/seats.svg").text
    assert "Cumulative" in authed.get("/api/v1/tables/t1/charts/seats.svg?lang=en").text


def test_settlements_list(authed: TestClient, filled: Filled) -> None:
    found = authed.get("/api/v1/tables/t1/settlements").json()
    assert {s["hand_id"] for s in found} == set(filled.finished)


def test_pages_allow_nothing_from_elsewhere(client: TestClient) -> None:
    r = client.get("/")
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "http" not in csp
    assert '<script src="/static/common.js"' in r.text
    for page in ("/", "/dealer", "/owner"):
        html = client.get(page).text
        assert "http://" not in html and "https://" not in html
    # (SVG's namespace is a name, never fetched)
    js = client.get("/static/common.js").text.replace('"http://www.w3.org/2000/svg"', "")
    assert "https://" not in js and "http://" not in js


def test_pages_reach_only_this_hosts_broker_and_the_configured_ones(
    store: EventStore, filled: Filled
) -> None:
    """connect-src: the broker's port of the page's own host (never another port: another
    program's) and web.brokers, never any ws: host (a link's ?broker= would send the
    account in its fragment there); no inline style."""
    settings = WebAppSettings(
        parlour="p1", table="t1", secret_key=b"k" * 32, brokers=("ws://hub:9001",)
    )
    with TestClient(create_app(store, LiveHub(), settings)) as client:
        for host, mine in (("tablet.lan:8080", "tablet.lan"), ("[::1]:80", "[::1]")):
            csp = client.get("/floor", headers={"host": host}).headers["content-security-policy"]
            connect = next(d for d in csp.split("; ") if d.startswith("connect-src"))
            assert connect.split() == [
                "connect-src",
                "'self'",
                f"ws://{mine}:9001",
                f"wss://{mine}:9001",
                "ws://hub:9001",
            ], csp
            style = next(d for d in csp.split("; ") if d.startswith("style-src"))
            assert style == "style-src 'self'", csp
        odd = client.get("/", headers={"host": "a b;c"}).headers["content-security-policy"]
        assert "connect-src 'self' ws://hub:9001;" in odd
        table = client.get("/api/v1/public/table").json()
        assert (table["brokers"], table["broker_port"]) == (["ws://hub:9001"], 9001)
    elsewhere = WebAppSettings(secret_key=b"k" * 32, broker_port=None)  # (mqtt.ws_port = 0)
    with TestClient(create_app(store, LiveHub(), elsewhere)) as client:
        csp = client.get("/floor", headers={"host": "tablet.lan"}).headers
        assert "connect-src 'self';" in csp["content-security-policy"]
        assert client.get("/api/v1/public/table").json()["broker_port"] is None


def test_hub_hands_carry_their_own_table(
    store: EventStore, filled: Filled, authed: TestClient
) -> None:
    # No session: the hand names its own table, as the hub's hands do.
    hid = store.start_hand(ruleset="jian", hand_no=1, parlour="p", table_id="t9")
    tables = {t["table_id"]: t for t in authed.get("/api/v1/tables").json()}
    assert tables["t9"]["hands"] == 1 and tables["t1"]["hands"] == 4
    assert [h["id"] for h in authed.get("/api/v1/tables/t9/hands").json()] == [hid]
    assert authed.get(f"/api/v1/hands/{hid}").json()["table_id"] == "t9"


def test_a_hands_alerts_name_the_tile_to_the_owner_once_it_is_finished(
    authed: TestClient, filled: Filled, store: EventStore
) -> None:
    assert filled.open_hand is not None
    for hid in (filled.finished[0], filled.open_hand):
        store.record_alert(hid, "tile_missing", 2, "2号位少一张牌", "2s (tile 77) is not read")
    done = authed.get(f"/api/v1/hands/{filled.finished[0]}/alerts").json()
    assert done["concealed"] and done["alerts"][0]["detail"] == "2s (tile 77) is not read"
    playing = authed.get(f"/api/v1/hands/{filled.open_hand}/alerts").json()
    (alert,) = playing["alerts"]
    assert not playing["concealed"] and alert["detail"] is None
    assert alert["message"] == "2号位少一张牌" and alert["seat"] == 2
    assert authed.get("/api/v1/hands/nope/alerts").status_code == 404


def test_a_hands_log_downloads_as_the_json_lines_mjtable_replay_reads(
    authed: TestClient, filled: Filled, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from controller.cli import app, commands  # noqa: F401  (registers the commands)

    hid = filled.finished[0]
    r = authed.get(f"/api/v1/hands/{hid}/log.jsonl")
    assert r.status_code == 200 and r.headers["content-type"] == "application/x-ndjson"
    assert f'filename="{hid}.jsonl"' in r.headers["content-disposition"]
    lines = [json.loads(ln) for ln in r.text.splitlines()]
    events = authed.get(f"/api/v1/hands/{hid}/events").json()["events"]
    assert lines == [e["data"] for e in events]  # the whole log, concealed tiles included
    log = tmp_path / "hand.jsonl"
    log.write_text(r.text, encoding="utf-8")
    replayed = CliRunner().invoke(app, ["replay", "--quiet", str(log)])
    assert replayed.exit_code == 0, replayed.output
    assert "replay: settlement matches" in replayed.output

    # a hand still in play: only what the table showed openly
    open_log = authed.get(f"/api/v1/hands/{filled.open_hand}/log.jsonl").text
    dealt = next(json.loads(ln) for ln in open_log.splitlines() if '"dealt"' in ln)
    assert "tiles" not in dealt
    assert authed.get("/api/v1/hands/nope/log.jsonl").status_code == 404


def test_an_alert_detail_names_its_zones_in_words(
    authed: TestClient, filled: Filled, store: EventStore
) -> None:
    # a detail stored before the tracker said zones in words: its ids are worded on the way out
    hid = filled.finished[0]
    detail = "2s lies in hand:2, jing"
    store.record_alert(hid, "tile_misplaced", 2, "3号位有一张牌放错了地方", detail)
    done = authed.get(f"/api/v1/hands/{hid}/alerts").json()
    assert done["alerts"][-1]["detail"] == "2s lies in 3号位手牌, 精位"
