"""The table's voice: what it says is what the table publishes, switched per kind, quiet in
quiet hours, never late (stale and superseded announcements dropped), never concealed."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, get_args

import pytest
from structlog.testing import capture_logs

from controller.config import ConfigError, VoiceSettings, load_config
from controller.mqtt import Topics
from controller.runtime import running
from controller.store import OutboxMessage
from controller.table.publication import Outlet
from controller.voice.announcer import Announcer, in_quiet_hours
from controller.voice.phrases import Kind, announcements, event_announcement
from engine.round.events import (
    ClaimDeclared,
    Dealt,
    Discarded,
    Drew,
    Event,
    JingFlipped,
    Konged,
    ReplacementDrawn,
    Shuffled,
)
from engine.simulation import play_session
from tests.controller.mosquitto import Mosquitto
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    log_of,
    options,
)
from tests.controller.voice_helpers import RecordingSink

ALL_ON = {k: True for k in VoiceSettings().speak.model_dump()}


def voice(**extra: Any) -> VoiceSettings:
    return VoiceSettings.model_validate({"enabled": True, "speak": ALL_ON} | extra)


def said_of(log: list[Event], settlement: dict[str, Any], hand_id: str) -> list[str]:
    """What the table should say of a finished hand: its public events, then its nets."""
    messages: list[tuple[str, Any]] = [
        ("events", {"hand_id": hand_id, "event": e.public_dict()}) for e in log
    ]
    messages.append(("settlement", settlement | {"hand_id": hand_id}))
    return [a.text for a in announcements(messages)]


@pytest.mark.timeout(300)
def test_a_played_hands_announcements_are_its_public_events(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    sink = RecordingSink()
    config = config_for(
        data_dir(tmp_path), "xingguo", mosquitto.url, voice=voice(max_age=600, queue=100)
    )

    async def main() -> tuple[list[str], list[str], float | None]:
        async with running(config, options(7, 2, audio=sink)) as run:
            assert run.voice is not None
            await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD * 3)
            assert await asyncio.to_thread(run.voice.wait_idle, GUARD)
            expected: list[str] = []
            alerts: list[str] = []
            for stored in finished_hands(run.store):
                settlement = stored.settlement
                assert settlement is not None
                expected += said_of(log_of(stored), settlement, stored.hand.id)
                alerts += [a.message for a in run.store.alerts_of(stored.hand.id)]
            said = run.metrics.registry.get_sample_value(
                "mjtable_voice_announcements_total", {"fate": "said"}
            )
            return expected, alerts, said

    expected, alerts, said = asyncio.run(main())
    assert said == len(sink.said)
    assert len(expected) > 20  # dice, 精, discards, claims, the nets
    assert any(t.startswith("骰子 ") for t in expected)
    assert any(t.startswith("结算 ") for t in expected)
    spoken_alerts = [t for t in sink.said if t.startswith("注意 ")]
    assert [t for t in sink.said if not t.startswith("注意 ")] == expected
    assert len(spoken_alerts) == len(alerts)


def _scrambled(e: Event, rng: random.Random) -> Event:
    """The same event with every concealed field changed: what no one at the table sees."""
    other = rng.randrange(136)
    if isinstance(e, Shuffled) and e.order is not None:
        return dataclasses.replace(e, order=tuple(rng.sample(range(136), len(e.order))))
    if isinstance(e, Dealt):
        return dataclasses.replace(e, tiles=tuple(tuple(reversed(t)) for t in e.tiles))
    if isinstance(e, JingFlipped):
        return dataclasses.replace(e, under_tile=other)
    if isinstance(e, Drew | ReplacementDrawn):
        return dataclasses.replace(e, tile=other, position=rng.randrange(136))
    if isinstance(e, Discarded):
        return dataclasses.replace(e, declined_win=not e.declined_win)
    if isinstance(e, ClaimDeclared):
        return dataclasses.replace(e, tiles=(other,))
    if isinstance(e, Konged) and e.kong == "concealed":
        return dataclasses.replace(e, tiles=tuple(rng.sample(range(136), 4)))
    return e


@pytest.mark.parametrize("ruleset", ["xingguo", "lianhua", "chongji", "yongfeng"])
def test_nothing_concealed_changes_a_word_said(ruleset: str) -> None:
    """Over many simulated hands, each event's announcement is the same whatever its
    concealed fields hold (the wall, drawn and dealt tiles, 暗精, a 暗杠's tiles)."""
    rng = random.Random(ruleset)
    kinds: set[str] = set()
    for hand in play_session(ruleset, 40, random.Random(f"voice {ruleset}")):
        for e in hand.log:
            said = event_announcement(e.public_dict(), "h")
            twin = event_announcement(_scrambled(e, rng).public_dict(), "h")
            assert said == twin, e
            if said is not None:
                kinds.add(said.kind)
            if isinstance(e, Drew | ReplacementDrawn | Dealt | Shuffled):
                assert said is None
    assert {"dice", "jing", "discard", "win"} <= kinds


def test_phrases_say_the_dice_the_jing_and_each_seats_net() -> None:
    said = announcements(
        [
            ("events", {"event": {"type": "dice_rolled", "seat": 0, "a": 3, "b": 5}}),
            ("events", {"event": {"type": "jing_flipped", "purpose": "jing", "tile": 16}}),
            ("events", {"event": {"type": "flip_entered", "indicator": "9p"}}),
            ("events", {"event": {"type": "flip_entered", "indicator": "<b>"}}),  # not said
            ("events", {"event": {"type": "konged", "seat": 3, "kong": "concealed"}}),
            ("events", {"event": {"type": "exhausted"}}),
            ("settlement", {"net": [12, -4, 0, -8.5]}),
            ("hand", {"seats": "anything"}),  # not an announcement
            ("alerts", {"kind": "tile_missing", "message": "少一张牌（hand:2没读到）"}),
        ]
    )
    assert [a.text for a in said] == [
        "骰子 三 五 八点",
        "正精 五万 副精 六万",
        "翻精 九筒",
        "4号位 暗杠",
        "流局",
        "结算 1号位 加12 2号位 减4 3号位 零 4号位 减8点5",
        "注意 少一张牌（3号位手牌没读到）",
    ]


# --- the queue -------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def dice(a: int, b: int) -> tuple[str, Any]:
    return ("events", {"hand_id": "h", "event": {"type": "dice_rolled", "a": a, "b": b}})


def test_a_kind_switched_off_is_not_said() -> None:
    sink = RecordingSink()
    announcer = Announcer(voice(speak=ALL_ON | {"dice": False}), sink)
    try:
        announcer.hear([dice(1, 2), ("events", {"event": {"type": "exhausted"}})])
        assert announcer.wait_idle(GUARD)
    finally:
        announcer.close()
    assert sink.said == ["流局"]


@pytest.mark.parametrize(
    ("now", "quiet"),
    [("22:59", False), ("23:00", True), ("02:00", True), ("08:59", True), ("09:00", False)],
)
def test_nothing_is_said_in_quiet_hours(now: str, quiet: bool) -> None:
    settings = voice(quiet_from="23:00", quiet_until="09:00")
    at = dt.time.fromisoformat(now)
    assert in_quiet_hours(settings, at) is quiet
    sink = RecordingSink()
    announcer = Announcer(settings, sink, local_time=lambda: at)
    try:
        announcer.hear([dice(6, 6)])
        assert announcer.wait_idle(GUARD)
    finally:
        announcer.close()
    assert sink.said == ([] if quiet else ["骰子 六 六 十二点"])
    assert announcer.dropped["quiet"] == (1 if quiet else 0)


def test_quiet_hours_need_both_ends(tmp_path: Path) -> None:
    toml = tmp_path / "table.toml"
    toml.write_text('[voice]\nenabled = true\nquiet_from = "23:00"\n')
    with pytest.raises(ConfigError, match="quiet_from and quiet_until"):
        load_config(toml)
    toml.write_text(
        '[voice]\nquiet_from = 23:00:00\nquiet_until = "07:30"\n[voice.speak]\nchow = false\n'
    )
    settings = load_config(toml).voice
    assert settings.quiet_until == dt.time(7, 30) and not settings.speak.chow


def test_stale_and_superseded_announcements_are_dropped_unsaid() -> None:
    clock, sink = Clock(), RecordingSink()
    announcer = Announcer(voice(max_age=5.0, queue=3), sink, clock=clock)
    try:
        sink.hold.clear()  # the speaker is busy with the first
        announcer.hear([dice(1, 1)])
        assert sink.playing.wait(GUARD)
        announcer.hear([dice(2, 2)])  # waits too long: stale by the time it could be said
        clock.now = 10.0
        for net in ([1, -1, 0, 0], [2, -2, 0, 0]):  # a corrected settlement supersedes
            announcer.hear([("settlement", {"hand_id": "h", "net": net})])
        announcer.hear([dice(3, 3)])
        sink.hold.set()
        assert announcer.wait_idle(GUARD)
        assert sink.said == [
            "骰子 一 一 二点",
            "结算 1号位 加2 2号位 减2 3号位 零 4号位 零",
            "骰子 三 三 六点",
        ]
        assert announcer.dropped["stale"] == 1 and announcer.dropped["superseded"] == 1

        sink.hold.clear()
        sink.playing.clear()
        announcer.hear([dice(4, 4)])
        assert sink.playing.wait(GUARD)  # taken off the queue: now it holds 3 more
        announcer.hear([dice(5, 5), dice(6, 6), dice(1, 2), dice(1, 3)])  # holds 3
        sink.hold.set()
        assert announcer.wait_idle(GUARD)
    finally:
        announcer.close()
    assert sink.said[3:] == [
        "骰子 四 四 八点",
        "骰子 六 六 十二点",
        "骰子 一 二 三点",
        "骰子 一 三 四点",
    ]
    assert announcer.dropped["full"] == 1


def test_the_table_loop_never_waits_for_the_speaker() -> None:
    """``hear`` returns while the speaker is stuck mid-word."""
    sink = RecordingSink()
    sink.hold.clear()
    announcer = Announcer(voice(), sink)
    try:
        for n in range(1, 7):
            announcer.hear([dice(n, n)])  # would hang here if it waited
        assert sink.playing.wait(GUARD)
        assert len(sink.said) == 0
    finally:
        sink.hold.set()
        announcer.close()


class FailingSink(RecordingSink):
    def play(self, text: str) -> None:
        if not self.said:
            self.said.append("(failed)")
            raise OSError("no sound card")
        super().play(text)


def test_a_failing_speaker_goes_on_with_the_next() -> None:
    sink = FailingSink()
    announcer = Announcer(voice(), sink)
    try:
        announcer.hear([dice(1, 2), dice(2, 3)])
        assert announcer.wait_idle(GUARD)
    finally:
        announcer.close()
    assert sink.said == ["(failed)", "骰子 二 三 五点"]


class DeadSink:
    def play(self, text: str) -> None:
        raise OSError("aplay: no such card")


def test_a_dead_speaker_is_logged_once_while_it_lasts() -> None:
    announcer = Announcer(voice(), DeadSink())
    try:
        with capture_logs() as logs:
            announcer.hear([dice(1, 2), dice(2, 3), dice(3, 4)])
            assert announcer.wait_idle(GUARD)
    finally:
        announcer.close()
    assert [e["event"] for e in logs] == ["could not speak"]


class BrokenVoice:
    def hear(self, messages: Any) -> None:
        raise RuntimeError("no sound card")


class RecordingPublisher:
    def __init__(self) -> None:
        self.wakes = 0
        self.unstored: list[OutboxMessage] = []

    def wake(self) -> None:
        self.wakes += 1

    def send_unstored(self, messages: Sequence[OutboxMessage]) -> None:
        self.unstored.extend(messages)


class RecordingLive:
    def __init__(self) -> None:
        self.published: list[str] = []

    def publish(self, topic: str, payload: Any) -> None:
        self.published.append(topic)


def test_a_broken_voice_never_stops_publishing() -> None:
    """A voice that raises on every message: MQTT and the live hub still get each one."""
    publisher, live = RecordingPublisher(), RecordingLive()
    outlet = Outlet(Topics("demo", "t1"), publisher=publisher, live=live, voice=BrokenVoice())
    rolled = {"hand_id": "h", "seat": 0, "purpose": "deal", "a": 1, "b": 2}
    with capture_logs() as logs:
        outlet.committed([("dice", rolled)])  # logged, not raised
        outlet.unstored([("dice", rolled)])
    assert publisher.wakes == 1
    assert [m.topic for m in publisher.unstored][:1] == [Topics("demo", "t1").topic("dice")]
    assert live.published == ["dice", "dice"]
    assert [e["event"] for e in logs] == ["the voice refused a message"] * 2


def test_an_announcement_has_a_kind_the_settings_can_switch() -> None:
    assert set(get_args(Kind)) == set(VoiceSettings().speak.model_dump())
