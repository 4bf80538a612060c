"""The live hub: retained state, secrets kept out, dealer words, alerts' advice, streams."""

from __future__ import annotations

import asyncio
import threading

import pytest

from controller.web.live import RESYNC, TIMEOUT, LiveHub, dealer_text, public_only


def test_retained_topics_keep_their_last_value_and_none_clears() -> None:
    hub = LiveHub()
    hub.publish("dice", {"hand_id": "h", "seat": 0, "purpose": "break", "a": 1, "b": 2})
    hub.publish("dice", {"hand_id": "h", "seat": 0, "purpose": "jing", "a": 3, "b": 4})
    hub.publish("events", {"type": "passed", "seat": 1, "hand_id": "h", "seq": 9})
    assert hub.last("dice")["purpose"] == "jing"
    assert "events" not in hub.snapshot()
    hub.publish("dice", None)
    assert hub.last("dice") is None


def test_unknown_topic_and_non_json_payload_are_refused() -> None:
    hub = LiveHub()
    with pytest.raises(ValueError, match="unknown live topic"):
        hub.publish("wall", {})
    with pytest.raises(ValueError, match="not JSON"):
        hub.publish("hand", {"x": object()})


def test_secret_fields_never_pass() -> None:
    dealt = {"type": "dealt", "tiles": [[1, 2]], "hand_id": "h", "seq": 3}
    out, dropped = public_only("events", dealt)
    assert "tiles" not in out and dropped == ["tiles"]
    drew, _ = public_only("events", {"type": "drew", "seat": 1, "tile": 5, "position": 9})
    assert drew == {"type": "drew", "seat": 1}
    kong, _ = public_only(
        "events", {"type": "konged", "seat": 0, "kong": "concealed", "tiles": [1]}
    )
    assert kong["tiles"] == []
    hub = LiveHub()
    hub.publish(
        "hand", {"hand_id": "h", "seats": [{"tiles": 13, "concealed": [1, 2]}], "order": []}
    )
    assert hub.last("hand") == {"hand_id": "h", "seats": [{"tiles": 13}]}
    hub.publish("jing", {"hand_id": "h", "zheng_jing": "5m", "under_tile": 7})
    assert "under_tile" not in hub.last("jing")


def test_dealer_words_from_the_fields() -> None:
    base = {"dealer": 0, "wall_seat": 1, "stack": 13, "count_from": "right"}
    assert (
        dealer_text(base | {"step": "break", "start": "at"})["zh"] == "从下家门前右数第13墩开始抓牌"
    )
    tail = dealer_text({"dealer": 2, "step": "flip", "stack": 7, "count_from": "tail"})
    assert tail["zh"] == "从牌尾数第7墩翻精"
    assert "7 stacks from the tail" in tail["en"]
    left = dealer_text(
        {"dealer": 3, "wall_seat": 1, "step": "caishen", "stack": 7, "count_from": "left"}
    )
    assert left["zh"] == "从对家门前左数第7墩翻财神"
    # no dealer known: the wall's seat as on its sticker (wall_seat 1 is 2号位)
    bare = dealer_text({"wall_seat": 1, "step": "flip", "stack": 7, "count_from": "left"})
    assert bare["zh"] == "从2号位门前左数第7墩翻精" and "seat 2's wall" in bare["en"]
    after = dealer_text(base | {"step": "break", "start": "after"})
    assert after["zh"].startswith("从下家门前右数留13墩")
    hub = LiveHub()
    hub.publish("dealer", base | {"step": "break", "start": "at", "hand_id": "h"})
    assert hub.last("dealer")["text"]["zh"] == "从下家门前右数第13墩开始抓牌"
    own = {"zh": "庄家自己说", "en": "own words"}
    hub.publish("dealer", base | {"step": "break", "text": own})
    assert hub.last("dealer")["text"] == own


def test_alerts_get_advice_and_the_recent_ones_are_kept() -> None:
    hub = LiveHub()
    for n in range(25):
        hub.publish("alerts", {"kind": "false_win", "seat": n % 4, "message": f"#{n}"})
    hub.publish("alerts", {"kind": "smoke", "seat": None, "message": "?"})
    alerts = hub.snapshot()["alerts"]
    assert len(alerts) == 20 and alerts[-1]["kind"] == "smoke"
    assert alerts[0]["title"]["zh"] == "诈胡" and alerts[0]["advice"]["en"]
    assert alerts[-1]["advice"]["zh"]  # unknown kinds get generic advice


def test_subscription_gets_snapshot_then_stream_from_other_threads() -> None:
    hub = LiveHub()
    hub.publish("scores", {"session_id": "s", "hand_no": 1, "totals": [1, -1, 0, 0]})

    async def run() -> list[str]:
        seen: list[str] = []
        async with hub.subscription() as sub:
            seen += [f"snap:{m.topic}" for m in sub.snapshot]
            assert all(m.replayed for m in sub.snapshot)
            thread = threading.Thread(
                target=lambda: [
                    hub.publish("events", {"type": "passed", "seat": s}) for s in range(3)
                ]
            )
            thread.start()
            for _ in range(3):
                item = await sub.get(5)
                seen.append(f"live:{item.topic}")  # type: ignore[union-attr]
            thread.join()
            assert await sub.get(0.01) is TIMEOUT
            hub.close()
            assert await sub.get(1) is None
        return seen

    assert asyncio.run(run()) == ["snap:scores", "live:events", "live:events", "live:events"]
    assert hub.subscribers == 0


def test_a_page_that_falls_behind_is_resynced() -> None:
    hub = LiveHub(queue_size=4)

    async def run() -> object:
        async with hub.subscription() as sub:
            for n in range(10):
                hub.publish("hand", {"hand_id": "h", "n": n})
            await asyncio.sleep(0.05)  # let the loop run the deliveries
            item = await sub.get(1)
            assert hub.resync()[-1].payload["n"] == 9
            return item

    assert asyncio.run(run()) is RESYNC


def test_sse_format() -> None:
    hub = LiveHub(clock=lambda: 12.5)
    message = hub.publish("status", {"state": "online"})
    text = message.sse()
    assert text.startswith(f"id: {message.id}\nevent: status\ndata: ")
    assert '"payload":{"state":"online"}' in text and text.endswith("\n\n")


def test_the_dealer_waits_for_dice_only_when_a_roll_is_due() -> None:
    """Not 等待掷骰 all through the hand: only while the dealer is due to roll."""
    assert dealer_text({"step": "wait", "dealer": 0, "roller": 0})["zh"] == "等待掷骰"
    assert dealer_text({"step": "wait", "dealer": 0})["zh"].startswith("对局中")
