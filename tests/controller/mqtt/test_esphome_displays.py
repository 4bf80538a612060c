"""The ESPHome display examples (deploy/displays/*.yaml): each one is a valid ESPHome
configuration (`esphome config`, no firmware build), and after a hand played through the
parlour's Mosquitto, the topics each one subscribes to, read with the table's display
account, carry what it shows: each seat's total, net and dealer mark; the 正精/副精 (or
the 财神), the dice, the hand's number, the wall, and the hand's dice commitment and (the
hand settled) its seed."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
import yaml
from pydantic import SecretStr

from controller.mqtt.broker_acl import display_user, table_user
from controller.runtime import running
from engine.round.state import RoundState
from engine.settlement.ledger import plain
from engine.tiles import successor, zh_name
from tests.controller.mosquitto import Mosquitto
from tests.controller.parlour_broker import parlour_broker, password
from tests.controller.service_helpers import (
    GUARD,
    config_for,
    data_dir,
    finished_hands,
    options,
    refold,
)

ROOT = Path(__file__).parents[3]
DISPLAYS = ROOT / "deploy" / "displays"
EXAMPLES = sorted(DISPLAYS.glob("*.yaml"))
SEAT, TFT = DISPLAYS / "seat-score-tm1637.yaml", DISPLAYS / "dealer-tft-ili9341.yaml"
ESPHOME = Path(os.environ.get("MJTABLE_ESPHOME", ROOT / ".venv-esphome" / "bin" / "esphome"))
PARLOUR, TABLE = "demo", "t1"
SUBST = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def test_there_are_examples() -> None:
    assert {SEAT, TFT} <= set(EXAMPLES)


@pytest.mark.timeout(180)
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_esphome_accepts_the_example(example: Path, tmp_path: Path) -> None:
    if not os.access(ESPHOME, os.X_OK):
        pytest.fail(f"no {ESPHOME}: run `make .venv-esphome/.installed` (make test does)")
    copy = tmp_path / example.name  # esphome may write beside the file it reads
    shutil.copy(example, copy)
    done = subprocess.run(
        [str(ESPHOME), "config", str(copy)], capture_output=True, text=True, timeout=150
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    assert "Configuration is valid!" in out


def resolved(example: Path, **overrides: str) -> dict[str, Any]:
    """The example as ESPHome reads it, its substitutions applied (``overrides`` first)."""
    config = yaml.safe_load(example.read_text(encoding="utf-8"))
    subs = {k: str(v) for k, v in config.pop("substitutions", {}).items()} | overrides

    def sub(value: Any) -> Any:
        if isinstance(value, str):
            for _ in range(5):  # substitutions may name others
                value = SUBST.sub(lambda m: subs[m.group(1) or m.group(2)], value)
            return value
        if isinstance(value, dict):
            return {k: sub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [sub(v) for v in value]
        return value

    return dict(sub(config))


def subscriptions(config: dict[str, Any]) -> dict[str, str]:
    """Sensor id -> topic, for every ``mqtt_subscribe`` text sensor."""
    return {
        s["id"]: s["topic"]
        for s in config.get("text_sensor", [])
        if s.get("platform") == "mqtt_subscribe"
    }


async def read_as_display(
    port: int, topics: dict[str, str], sentinel_from: aiomqtt.Client
) -> dict[str, str]:
    """What a display subscribed to ``topics`` is given on connect (retained values; an
    empty value is no message at all)."""
    prefix = f"mahjong/{PARLOUR}/{TABLE}/flat/"
    sentinel = prefix + "zz-test-" + uuid.uuid4().hex
    by_topic = {t: sid for sid, t in topics.items()}
    got: dict[str, str] = {}
    user = display_user(TABLE)
    async with aiomqtt.Client("127.0.0.1", port, username=user, password=password(user)) as c:
        for topic in [*topics.values(), sentinel]:
            await c.subscribe(topic, qos=1)
        await sentinel_from.publish(sentinel, b"end", qos=1)
        async for m in c.messages:
            if m.topic.value == sentinel:
                return got
            assert isinstance(m.payload, bytes)
            got[by_topic[m.topic.value]] = m.payload.decode("utf-8")
    raise AssertionError("disconnected before the sentinel")


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("ruleset", "seed"), [("xingguo", 8), ("chongji", 9)])
def test_the_examples_topics_carry_what_they_show(
    mosquitto_factory: Callable[..., Mosquitto], tmp_path: Path, ruleset: str, seed: int
) -> None:
    users = [table_user(TABLE), display_user(TABLE)]
    broker, _ws = parlour_broker(
        mosquitto_factory, tmp_path, parlour=PARLOUR, tables=[TABLE], users=users
    )
    config = config_for(data_dir(tmp_path), ruleset, broker.url)
    mqtt = config.mqtt.model_copy(
        update={"username": table_user(TABLE), "password": SecretStr(password(table_user(TABLE)))}
    )
    config = config.model_copy(update={"mqtt": mqtt})
    tft = resolved(TFT, parlour=PARLOUR, table=TABLE)
    assert tft["mqtt"]["username"] == display_user(TABLE)  # the table's display account

    async def main() -> tuple[list[dict[str, str]], dict[str, str], RoundState]:
        async with running(config, options(seed, 1)) as run:
            await asyncio.wait_for(run.service.run(asyncio.Event()), GUARD)
            await asyncio.wait_for(run.publisher.wait_drained(), GUARD)
            (stored,) = finished_hands(run.store)
            user = table_user(TABLE)
            async with aiomqtt.Client(
                "127.0.0.1", broker.port, username=user, password=password(user)
            ) as table:
                seats = []
                for seat in range(4):
                    example = resolved(SEAT, parlour=PARLOUR, table=TABLE, seat=str(seat))
                    assert example["mqtt"]["username"] == display_user(TABLE)
                    seats.append(await read_as_display(broker.port, subscriptions(example), table))
                dealer_side = await read_as_display(broker.port, subscriptions(tft), table)
            return seats, dealer_side, refold(stored)

    seats, dealer_side, state = asyncio.run(main())
    assert state.settlement is not None and state.wall is not None
    flip = state.wall.flip
    assert flip is not None and flip.kind is not None
    for seat, shown in enumerate(seats):
        net = str(plain(state.settlement.net[seat]))
        assert shown["total"] == net  # the session's first hand: the total is its net
        assert shown["net"] == net
        assert shown["dealer"] == ("1" if seat == state.dealer else "0")

    last = state.dice[-1]
    assert dealer_side["dice"] == f"{last.a}+{last.b}"
    assert dealer_side["dice_sum"] == str(last.a + last.b)
    assert dealer_side["hand_no"] == "1"
    assert dealer_side["wall"] == str(state.wall.live_count)
    assert "alert" not in dealer_side
    assert state.dice_commit is not None and state.dice_seed == state.dice_commit.seed
    assert dealer_side["dice_commitment"] == state.dice_commit.commitment
    assert dealer_side["dice_seed"] == state.dice_seed  # (settled: revealed)
    if ruleset == "chongji":
        assert dealer_side["caishen"] == zh_name(successor(flip.kind), long=False)
        assert "zheng" not in dealer_side and "fu" not in dealer_side
    else:
        assert dealer_side["zheng"] == zh_name(flip.kind, long=False)
        assert dealer_side["fu"] == zh_name(successor(flip.kind), long=False)
        assert "caishen" not in dealer_side
