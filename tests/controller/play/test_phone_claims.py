"""Players score their own hand on a table without readers (xingguo, a jing ruleset),
over HTTP as their phones send it: a self-drawn win confirmed by the three others with
their 精, a win on a discard, a 流局, a refused non-win; a claim for another seat, a
confirmation from a seat that does not pay, a second claim, a replayed request: refused
in words, nothing stored. Each settlement equals ``mjtable settle`` on the kept request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.cli.settle import settle_data
from engine.round.events import (
    ClaimAnswered,
    ClaimJoined,
    ClaimMade,
    ClaimPassed,
    FinishedByStaff,
    Settled,
)
from tests.controller.mosquitto import Mosquitto
from tests.controller.play.phones import call, join_all, staff_token
from tests.controller.service_helpers import wait_for
from tests.controller.web.readerless_table import ReaderlessTable

WIN = "123m456m789m234p99p"  # no 精 (the flip below is 5s: 正精 5s, 副精 6s)


def _me(base: str, token: str) -> dict[str, Any]:
    got = call(f"{base}/api/v1/play/me", token=token)
    assert got.status == 200, got.body
    return dict(got.body)


def _ready(base: str, tokens: list[str]) -> dict[str, Any]:
    """The hand rolled and its 精 entered by the dealer's phone: the view of seat 0."""
    me = _me(base, tokens[0])
    dealer = tokens[me["dealer"]]
    act = {"hand_id": me["hand_id"], "seen": me["seen"]}
    if me["dice_due"]:
        assert call(f"{base}/api/v1/play/dice", act, token=dealer).status == 200
        me = _me(base, tokens[0])
        act = {"hand_id": me["hand_id"], "seen": me["seen"]}
    flip = call(f"{base}/api/v1/play/flip", act | {"indicator": "5s"}, token=dealer)
    assert flip.status == 200, flip.body
    return _me(base, tokens[0])


def _act(me: dict[str, Any]) -> dict[str, Any]:
    return {"hand_id": me["hand_id"], "seen": me["seen"]}


def _settled_as_mjtable_settle(keeper: Any) -> dict[str, Any]:
    finished = next(e for e in reversed(keeper.log) if isinstance(e, FinishedByStaff))
    settled = next(e for e in reversed(keeper.log) if isinstance(e, Settled))
    assert finished.role == "player"
    assert settle_data(finished.request)["lines"] == settled.settlement["lines"]
    return dict(settled.settlement)


@pytest.mark.timeout(300)
def test_players_claim_and_confirm_hands_and_strangers_acts_are_refused(table: Any) -> None:
    base = f"http://127.0.0.1:{table.port}"
    api = f"{base}/api/v1/play"
    keeper = table.run.keeper
    tokens = join_all(base)
    me = _ready(base, tokens)

    # refused, nothing stored
    seen = len(keeper.log)
    win = {"hand": WIN, "tile": "9p", "from": "self"}
    hostile = [
        (0, {"seat": 1, "result": "win", "win": win}, 403, "只能为自己的座位"),
        (
            0,
            {"seat": 0, "result": "win", "win": win | {"hand": "1m2m3m4m5m6m7m8m9m1p3p5p7p9p"}},
            422,
            "胡牌不成立",
        ),
        (0, {"seat": 0, "result": "win", "win": win | {"hand": "1111m1m" + WIN[7:]}}, 422, ""),
        (0, {"seat": 0, "result": "win", "win": win | {"from": 0}}, 422, "放炮"),
        (0, {"seat": 0, "result": "win"}, 422, ""),
        (0, {"seat": 0, "result": "win", "win": win, "hand_id": "x"}, 409, "请看清后再操作"),
    ]
    for phone, body, status, words in hostile:
        got = call(f"{api}/claim", _act(me) | body, token=tokens[phone])
        assert got.status == status, (body, got.body)
        assert words in got.detail, got.detail
    assert len(keeper.log) == seen

    # a self-drawn win: the three others confirm with their 精
    claimed = call(
        f"{api}/claim", _act(me) | {"seat": 0, "result": "win", "win": win}, token=tokens[0]
    )
    assert claimed.status == 200, claimed.body
    view = _me(base, tokens[2])
    claim = view["claim"]
    assert claim["seat"] == 0 and claim["payers"] == [1, 2, 3] and claim["jing_counts"]
    assert claim["lines"] and all(ln["to"] == 0 for ln in claim["lines"])
    again = call(f"{api}/claim", _act(view) | {"seat": 1, "result": "exhausted"}, token=tokens[1])
    assert again.status == 422 and "等待确认" in again.detail
    not_payer = call(f"{api}/answer", _act(view) | {"seat": 0, "agree": True}, token=tokens[0])
    assert not_payer.status == 422 and "不需要确认" in not_payer.detail, not_payer.body
    other = call(f"{api}/answer", _act(view) | {"seat": 2, "agree": True}, token=tokens[1])
    assert other.status == 403 and "不能代3号位" in other.detail
    no_jing = call(f"{api}/answer", _act(view) | {"seat": 1, "agree": True}, token=tokens[1])
    assert no_jing.status == 422 and "精" in no_jing.detail
    for seat, jing in ((1, [1, 0]), (2, [0, 2]), (3, [0, 0])):
        view = _me(base, tokens[seat])
        body = _act(view) | {"seat": seat, "agree": True, "jing": jing}
        got = call(f"{api}/answer", body, token=tokens[seat])
        assert got.status == 200, got.body
        replayed = call(f"{api}/answer", body, token=tokens[seat])
        if seat != 3:  # (sent twice: nothing stored; after the last, the hand is settled)
            assert replayed.status == 422 and "已经回答过" in replayed.detail, replayed.body
        else:
            assert replayed.status == 422 and "没有待确认" in replayed.detail, replayed.body
    settlement = _settled_as_mjtable_settle(keeper)
    assert any("玩家录入" in n for n in settlement["notes"])
    acts = [e for e in keeper.log if isinstance(e, ClaimMade | ClaimAnswered)]
    assert [type(e).__name__ for e in acts] == ["ClaimMade"] + ["ClaimAnswered"] * 3
    assert all(e.by.startswith(f"seat{e.seat}:guest:phone:") for e in acts)
    finished = next(e for e in reversed(keeper.log) if isinstance(e, FinishedByStaff))
    hands = {s["hand"] for s in finished.request["seats"]}
    assert any("5s" in h for h in hands)  # seat 1's 正精 and seat 2's 副精 counted

    # the next hand: a 流局 claimed by seat 2, confirmed by the others
    me = _ready(base, tokens)
    got = call(f"{api}/claim", _act(me) | {"seat": 2, "result": "exhausted"}, token=tokens[2])
    assert got.status == 200, got.body
    for seat in (0, 1, 3):
        view = _me(base, tokens[seat])
        body = _act(view) | {"seat": seat, "agree": True, "jing": [0, 0]}
        assert call(f"{api}/answer", body, token=tokens[seat]).status == 200
    _settled_as_mjtable_settle(keeper)


def _self_drawn_claim(table: Any, seat: int) -> tuple[str, str, Any, list[str]]:
    """Four phones joined, the 精 entered, and ``seat``'s self-drawn win (WIN) claimed."""
    base = f"http://127.0.0.1:{table.port}"
    api = f"{base}/api/v1/play"
    tokens = join_all(base)
    me = _ready(base, tokens)
    win = {"hand": WIN, "tile": "9p", "from": "self"}
    body = _act(me) | {"seat": seat, "result": "win", "win": win}
    claimed = call(f"{api}/claim", body, token=tokens[seat])
    assert claimed.status == 200, claimed.body
    return base, api, table.run.keeper, tokens


@pytest.mark.timeout(300)
def test_a_disputed_claim_is_finished_by_staff_as_mjtable_settles_it(table: Any) -> None:
    """A payer disputes: every phone says staff are called, the console's look holds the
    claim and the answer (who, when), and staff finish the hand with the result; its
    settlement is ``mjtable settle``'s on the finish's request."""
    base, api, keeper, tokens = _self_drawn_claim(table, 1)
    view = _me(base, tokens[2])
    disputed = call(f"{api}/answer", _act(view) | {"seat": 2, "agree": False}, token=tokens[2])
    assert disputed.status == 200, disputed.body
    for token in tokens:  # (the table loop holds the hand on its next tick)
        called = wait_for(lambda t=token: _me(base, t)["staff_called"], what="staff called")
        assert called["zh"] == "3号位有异议"

    staff = {"Authorization": f"Bearer {staff_token(base)}"}
    look = call(f"{base}/api/v1/staff/hands/current", headers=staff).body
    acts = look["acts"][-2:]
    assert [a["type"] for a in acts] == ["claim_made", "claim_answered"]
    assert "2号位" in acts[0]["text"]["zh"] and "申报胡牌" in acts[0]["text"]["zh"]
    assert "3号位" in acts[1]["text"]["zh"] and "有异议" in acts[1]["text"]["zh"]
    assert all(a["by"].startswith("seat") and a["at"] for a in acts)
    finish = {
        "hand_id": look["hand_id"],
        "seen": look["seen"],
        "reason": "3号位有异议：核对后按申报结束",
        "winners": [{"seat": 1, "hand": WIN, "tile": "9p", "from": "self"}],
        "seats": [
            {"seat": s, "partial": True, "hand": h} for s, h in ((0, ""), (2, "5s"), (3, ""))
        ],
    }
    done = call(f"{base}/api/v1/staff/hands/current/finish", finish, headers=staff)
    assert done.status == 200, done.body
    finished = next(e for e in reversed(keeper.log) if isinstance(e, FinishedByStaff))
    settled = next(e for e in reversed(keeper.log) if isinstance(e, Settled))
    assert finished.role == "staff" and finished.by == "ann"
    assert settle_data(finished.request)["lines"] == settled.settlement["lines"]
    assert settled.settlement["net"][1] > 0
    assert _me(base, tokens[0])["staff_called"] is None


@pytest.mark.timeout(300)
def test_several_winners_of_one_discard_are_claimed_and_confirmed_from_the_phones(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """一炮多响 on guangdong (which pays every winner): 1号位 claims for itself and 2号位,
    both on 3号位's discard; 3号位 pays and 2号位 confirms its own hand; the settlement
    pays both, as ``mjtable settle`` does. On xingguo (胡前不胡后) such a claim is refused
    in words, nothing stored."""
    site = ReaderlessTable(mosquitto, tmp_path, "guangdong")
    site.start()
    try:
        base, keeper = site.url, site.run.keeper
        api = f"{base}/api/v1/play"
        tokens = join_all(base)
        me = _me(base, tokens[0])
        if me["dice_due"]:
            dealer = tokens[me["dealer"]]
            assert call(f"{api}/dice", _act(me), token=dealer).status == 200
            me = _me(base, tokens[0])
        winners = [
            {"seat": 0, "hand": WIN, "tile": "9p", "from": 2},
            {"seat": 1, "hand": "123s456s789s111z99p", "tile": "9p", "from": 2},
        ]
        body = _act(me) | {"seat": 0, "result": "win", "winners": winners}
        claimed = call(f"{api}/claim", body, token=tokens[0])
        assert claimed.status == 200, claimed.body
        claim = _me(base, tokens[3])["claim"]
        assert [w["seat"] for w in claim["winners"]] == [0, 1]
        assert 1 in claim["payers"] and 2 in claim["payers"] and 0 not in claim["payers"]
        for seat in claim["payers"]:
            view = _me(base, tokens[seat])
            got = call(
                f"{api}/answer", _act(view) | {"seat": seat, "agree": True}, token=tokens[seat]
            )
            assert got.status == 200, got.body
        # 4号位 could have won on the discard too: the claim waits until it says 没胡
        claim = _me(base, tokens[3])["claim"]
        assert claim is not None and claim["undecided"] == [3]
        assert not any(isinstance(e, Settled) for e in keeper.log)
        said = call(f"{api}/pass", _act(_me(base, tokens[3])) | {"seat": 3}, token=tokens[3])
        assert said.status == 200, said.body
        settlement = _settled_as_mjtable_settle(keeper)
        paid = {ln["to"] for ln in settlement["lines"] if ln["code"].startswith("win")}
        assert paid == {0, 1}
    finally:
        site.halt()


@pytest.mark.timeout(300)
def test_another_winner_joins_the_pending_claim_from_its_own_phone(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """一炮多响 on guangdong, each winner entering only its own hand: 1号位 claims its win
    on 3号位's discard and 3号位, the only payer, confirms at once; the claim waits for the
    seats that could have won on it too, so 2号位's phone still claims its own on the same
    discard and joins the claim (no confirmation of its own); the discarder, another tile,
    a second join: refused in words, nothing stored; 3号位 confirms anew, 4号位 says 没胡
    (another seat's 没胡, the discarder's: refused) and the settlement pays both, as
    ``mjtable settle`` does."""
    site = ReaderlessTable(mosquitto, tmp_path, "guangdong")
    site.start()
    try:
        base, keeper = site.url, site.run.keeper
        api = f"{base}/api/v1/play"
        tokens = join_all(base)
        me = _me(base, tokens[0])
        if me["dice_due"]:
            dealer = tokens[me["dealer"]]
            assert call(f"{api}/dice", _act(me), token=dealer).status == 200
            me = _me(base, tokens[0])
        first = {"hand": WIN, "tile": "9p", "from": 2}
        claimed = call(
            f"{api}/claim", _act(me) | {"seat": 0, "result": "win", "win": first}, token=tokens[0]
        )
        assert claimed.status == 200, claimed.body
        view = _me(base, tokens[1])
        assert view["claim"]["joinable"] is True and view["claim"]["payers"] == [2]
        assert view["claim"]["undecided"] == [1, 3]
        early = call(f"{api}/answer", _act(view) | {"seat": 2, "agree": True}, token=tokens[2])
        assert early.status == 200, early.body
        view = _me(base, tokens[1])
        assert view["claim"] is not None and view["in_progress"]  # the 确认 settled nothing
        own = {"hand": "123s456s789s111z99p", "tile": "9p", "from": 2}
        seen = len(keeper.log)
        hostile = [
            (2, own, "放炮的不能是自己"),
            (3, own | {"hand": "123s456s789s111z11m", "tile": "1m"}, "须胡同一张牌"),
            (3, own | {"from": 1}, "须胡同一张牌"),
        ]
        for seat, win, words in hostile:
            body = _act(view) | {"seat": seat, "result": "win", "win": win}
            got = call(f"{api}/claim", body, token=tokens[seat])
            assert got.status == 422 and words in got.detail, (seat, got.body)
            assert "(" not in got.detail, got.detail  # in words, no English aside
        assert len(keeper.log) == seen
        body = _act(view) | {"seat": 1, "result": "win", "win": own}
        joined = call(f"{api}/claim", body, token=tokens[1])
        assert joined.status == 200, joined.body
        twice = call(f"{api}/claim", body | _act(_me(base, tokens[1])), token=tokens[1])
        assert twice.status == 422 and "2号位已经在胡牌的几家里" in twice.detail, twice.body
        claim = _me(base, tokens[3])["claim"]
        assert [w["seat"] for w in claim["winners"]] == [0, 1] and claim["payers"] == [2]
        view = _me(base, tokens[1])
        not_payer = call(f"{api}/answer", _act(view) | {"seat": 1, "agree": True}, token=tokens[1])
        assert not_payer.status == 422 and "不需要确认" in not_payer.detail, not_payer.body
        view = _me(base, tokens[2])
        got = call(f"{api}/answer", _act(view) | {"seat": 2, "agree": True}, token=tokens[2])
        assert got.status == 200, got.body
        assert _me(base, tokens[3])["claim"]["undecided"] == [3]
        seen = len(keeper.log)
        for seat, token, words in ((3, 2, "不能代4号位"), (2, 2, "3号位不需要回答是否也胡")):
            got = call(f"{api}/pass", _act(view) | {"seat": seat}, token=tokens[token])
            assert got.status in (403, 422) and words in got.detail, got.body
        assert len(keeper.log) == seen
        said = call(f"{api}/pass", _act(view) | {"seat": 3}, token=tokens[3])
        assert said.status == 200, said.body
        settlement = _settled_as_mjtable_settle(keeper)
        paid = {ln["to"] for ln in settlement["lines"] if ln["code"].startswith("win")}
        assert paid == {0, 1}
        kinds = ClaimMade | ClaimJoined | ClaimAnswered | ClaimPassed
        acts = [e for e in keeper.log if isinstance(e, kinds)]
        assert [type(e).__name__ for e in acts] == [
            "ClaimMade",
            "ClaimAnswered",
            "ClaimJoined",
            "ClaimAnswered",
            "ClaimPassed",
        ]
        assert acts[2].by.startswith("seat1:guest:phone:")
        assert acts[4].by.startswith("seat3:guest:phone:") and acts[4].seat == 3
    finally:
        site.halt()


def test_several_winners_are_refused_where_the_ruleset_pays_one(table: Any) -> None:
    base = f"http://127.0.0.1:{table.port}"
    keeper = table.run.keeper
    tokens = join_all(base)
    me = _ready(base, tokens)
    seen = len(keeper.log)
    winners = [
        {"seat": 0, "hand": WIN, "tile": "9p", "from": 2},
        {"seat": 1, "hand": "123s456s789s111z99p", "tile": "9p", "from": 2},
    ]
    body = _act(me) | {"seat": 0, "result": "win", "winners": winners}
    got = call(f"{base}/api/v1/play/claim", body, token=tokens[0])
    assert got.status == 422 and "一炮只算一家胡" in got.detail, got.body
    mine = _act(me) | {"seat": 0, "result": "win", "winners": winners[1:] * 2}
    got = call(f"{base}/api/v1/play/claim", mine, token=tokens[0])
    assert got.status == 422 and "没有您" in got.detail, got.body
    assert len(keeper.log) == seen
    # nor does another winner of the discard join a pending claim
    first = _act(me) | {"seat": 0, "result": "win", "win": winners[0] | {"seat": None}}
    del first["win"]["seat"]
    assert call(f"{base}/api/v1/play/claim", first, token=tokens[0]).status == 200
    seen = len(keeper.log)
    second = {"hand": winners[1]["hand"], "tile": "9p", "from": 2}
    view = _me(base, tokens[1])
    assert view["claim"]["joinable"] is False
    body = _act(view) | {"seat": 1, "result": "win", "win": second}
    got = call(f"{base}/api/v1/play/claim", body, token=tokens[1])
    assert got.status == 422 and "一炮只算一家胡" in got.detail, got.body
    assert len(keeper.log) == seen


@pytest.mark.timeout(300)
def test_paying_phones_enter_what_the_settlement_reads_of_their_seats(table: Any) -> None:
    """A payer answers with its partial seat (its 精 as tiles, its kongs) instead of the
    counts; a tile the settlement does not read is refused in words, nothing stored."""
    base, api, keeper, tokens = _self_drawn_claim(table, 0)
    view = _me(base, tokens[1])
    seen = len(keeper.log)
    bad = _act(view) | {"seat": 1, "agree": True, "held": {"hand": "5s1m"}}
    refused = call(f"{api}/answer", bad, token=tokens[1])
    assert refused.status == 422 and "不成立" in refused.detail, refused.body
    assert "2号位" in refused.detail and len(keeper.log) == seen
    helds = {1: {"hand": "5s"}, 2: {"hand": "6s6s", "kongs": ["kong_concealed"]}, 3: {}}
    for seat, held in helds.items():
        view = _me(base, tokens[seat])
        body = _act(view) | {"seat": seat, "agree": True, "held": held}
        got = call(f"{api}/answer", body, token=tokens[seat])
        assert got.status == 200, got.body
    _settled_as_mjtable_settle(keeper)
    finished = next(e for e in reversed(keeper.log) if isinstance(e, FinishedByStaff))
    seats = finished.request["seats"]
    assert seats[2]["partial"] and seats[2]["hand"] == "6s6s"
    assert seats[2]["kongs"] == ["kong_concealed"]
