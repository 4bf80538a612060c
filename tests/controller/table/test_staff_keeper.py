"""Acts of staff on the hand in progress, at the ``HandKeeper`` over a real store: stored
before published, the hand closed and its log queued for the hub with the audit entries,
the session totals right, and the same after a restart."""

from __future__ import annotations

import errno
import json
import random
from pathlib import Path

import pytest

from controller.cli.settle import settle_data
from controller.mqtt.topics import Topics
from controller.store import EventStore
from controller.table.hand_keeper import HandKeeper
from controller.table.publication import Outlet
from engine.round.commands import Adjust, Audit, Finish, Penalise, StaffInputError, Undo, Void
from engine.round.events import event_from_dict
from engine.round.staff import session_totals
from tests.controller.service_helpers import act_at, play_at_keeper

AUDIT = Audit("ann", "staff", "2026-12-03T20:15:00+00:00", "reader 3 silent")


def _keeper(store: EventStore) -> HandKeeper:
    return HandKeeper(
        store, Outlet(Topics("parlour", "t1")), parlour="parlour", table="t1", ruleset="xingguo"
    )


def _play(keeper: HandKeeper, seed: int, moves: int) -> str:
    return play_at_keeper(keeper, random.Random(seed), moves)


def _handlogs(store: EventStore) -> list[dict[str, object]]:
    out = []
    for entry in store.outbox_peek(1000):
        if entry.topic.endswith("/handlog"):
            out.append(json.loads(entry.payload))
    return out


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    s = EventStore.open(f"sqlite:///{tmp_path / 'table.db'}")
    yield s  # type: ignore[misc]
    s.close()


def test_a_hand_finished_by_staff_is_stored_settled_and_sent(store: EventStore) -> None:
    keeper = _keeper(store)
    keeper.resume()
    hand_id = _play(keeper, 1, 40)
    stored_before = len(store.load_hand(hand_id).events)
    # a non-win: refused, nothing stored, the hand still open
    with pytest.raises(StaffInputError, match=r"winners\[0\]"):
        win = {"seat": 1, "hand": "123456789m1234p", "tile": "1m", "from": "self"}
        act_at(keeper, Finish.of(AUDIT, [win]))
    assert len(store.load_hand(hand_id).events) == stored_before and keeper.in_progress
    act_at(keeper, Penalise(AUDIT, 2, "false_win"))
    act_at(keeper, Adjust(AUDIT, 0, 1, 7))
    act_at(keeper, Undo(AUDIT))  # the adjustment goes
    events = act_at(keeper, Finish(AUDIT))  # 流局 by hand
    assert not keeper.in_progress
    record = store.load_hand(hand_id)
    assert record.hand.status == "finished"
    types = [e.payload["type"] for e in record.events]
    assert types[-6:] == [
        "penalty_applied",
        "adjusted",
        "staff_undone",
        "finished_by_staff",
        "settled",
        "dice_seed_revealed",
    ]
    # the settlement is what ``mjtable settle`` gives on the same input, marked
    request = events[0].to_dict()["request"]
    settled = events[1].to_dict()["settlement"]
    assert settle_data(request)["lines"] == settled["lines"]
    assert settled["notes"][-1] == "工作人员录入 (entered by staff ann)"
    # the hub's copy carries the audit entries
    (handlog,) = _handlogs(store)
    sent = [e["type"] for e in handlog["events"]]  # type: ignore[union-attr,index]
    assert "finished_by_staff" in sent and "penalty_applied" in sent
    assert keeper.session.totals == [20, 20, -60, 20]
    log = [event_from_dict(e.payload) for e in record.events]
    assert tuple(keeper.session.totals) == session_totals(log)
    # a restart finds the same totals
    again = _keeper(store)
    again.resume()
    assert again.session.totals == keeper.session.totals


def test_a_voided_hand_moves_nothing_and_keeps_the_deal(store: EventStore) -> None:
    keeper = _keeper(store)
    keeper.resume()
    _play(keeper, 2, 30)
    dealer = keeper.session.dealer
    act_at(keeper, Adjust(AUDIT, 3, 1, 5))
    with pytest.raises(StaffInputError, match="reason"):
        act_at(keeper, Void(Audit("ann", "staff", "t", "")))
    act_at(keeper, Void(AUDIT))
    assert not keeper.in_progress
    assert keeper.session.totals == [0, 5, 0, -5] and keeper.session.dealer == dealer
    assert keeper.session.next_hand().hand_no == 2
    with pytest.raises(StaffInputError, match="voided already"):
        act_at(keeper, Void(AUDIT))


def test_an_act_the_store_refuses_leaves_the_totals_and_the_hand_as_stored(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk refuses an adjustment: the session's totals (what the next screens are
    computed from) and the hand stay as the store holds them."""
    keeper = _keeper(store)
    keeper.resume()
    _play(keeper, 1, 40)
    totals, seen = list(keeper.session.totals), len(keeper.log)

    def disk_full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store, "append", disk_full)
    with pytest.raises(OSError):
        act_at(keeper, Adjust(AUDIT, 0, 1, 7))
    assert keeper.session.totals == totals and len(keeper.log) == seen
    monkeypatch.undo()
    act_at(keeper, Adjust(AUDIT, 0, 1, 7))
    assert keeper.session.totals == [totals[0] - 7, totals[1] + 7, *totals[2:]]


def test_penalties_in_an_open_hand_survive_a_restart(store: EventStore) -> None:
    keeper = _keeper(store)
    keeper.resume()
    _play(keeper, 3, 20)
    act_at(keeper, Penalise(AUDIT, 0, "false_win"))
    again = _keeper(store)
    again.resume()
    assert again.in_progress and again.session.totals == [-60, 20, 20, 20]


def test_a_win_entered_by_staff_is_filed_as_a_win(store: EventStore) -> None:
    from engine.round.staff import read_winners
    from engine.simulation import play_session

    played = next(r for r in play_session("xingguo", 6, random.Random(1)) if r.state.wins)
    keeper = _keeper(store)
    keeper.resume()
    # the same hand, played at the keeper up to its winning move (its own shuffle)
    i = next(n for n, e in enumerate(played.log) if e.type == "win_declared")
    hand_id = keeper.start_hand(played.state.order)
    from engine.round.fold import advance

    seq = len(keeper.log)  # (hand_started, dice_committed, shuffled)
    keeper.log.extend(played.log[2:i])  # (fold the played moves as if read)
    keeper.state = advance(keeper.state, played.log[2:i])  # type: ignore[arg-type]
    store.append(hand_id, [e.to_dict() for e in played.log[2:i]], expected_seq=seq)
    win = read_winners(played.state)[0]
    act_at(keeper, Finish.of(AUDIT, [win]))
    record = store.load_hand(hand_id).hand
    assert record.winner == win["seat"] and record.result in ("win", "self_draw")


def test_after_a_restart_mid_hand_staff_void_it_and_the_next_hand_plays(
    store: EventStore,
) -> None:
    keeper = _keeper(store)
    keeper.resume()
    _play(keeper, 4, 35)
    again = _keeper(store)  # the service restarted: the hand resumes from its log
    again.resume()
    assert again.in_progress
    act_at(again, Void(AUDIT))
    assert not again.in_progress
    hand_id = _play(again, 5, 10)  # the next hand starts and plays
    assert again.hand_id == hand_id and again.in_progress
    assert again.state is not None and again.state.started.hand_no == 2


def test_an_act_whose_sender_gave_up_is_not_done() -> None:
    import asyncio

    from controller.table.table_inputs import StaffInput

    async def main() -> None:
        answer: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
        answer.cancel()  # the web app answered 503: nothing was done
        done: list[int] = []
        StaffInput("act", answer).settle(lambda: done.append(1) or {})
        assert done == []

    asyncio.run(main())


def test_an_undo_never_reopens_a_settled_hand_but_takes_back_a_later_act(
    store: EventStore,
) -> None:
    """What docs/staff.md says: the finish that closed the hand is not undone (corrected or
    voided instead); a penalty on the settled hand is."""
    keeper = _keeper(store)
    keeper.resume()
    hand_id = _play(keeper, 1, 40)
    act_at(keeper, Finish(AUDIT))  # 流局 by hand
    stored = len(store.load_hand(hand_id).events)
    with pytest.raises(StaffInputError, match="reopen a closed hand; correct or void it"):
        act_at(keeper, Undo(AUDIT))
    assert len(store.load_hand(hand_id).events) == stored and not keeper.in_progress
    totals = list(keeper.session.totals)
    act_at(keeper, Penalise(AUDIT, 2, "false_win"))
    assert keeper.session.totals != totals
    act_at(keeper, Undo(AUDIT))  # the penalty goes, the hand stays settled
    assert keeper.session.totals == totals and store.load_hand(hand_id).hand.status == "finished"
