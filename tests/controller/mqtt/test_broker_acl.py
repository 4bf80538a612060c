"""The parlour broker's accounts and ACLs, on a real Mosquitto started with
deploy/mosquitto/mjtable.conf and the acl_file `mjtable broker-acl` writes."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from typer.testing import CliRunner

from controller.cli import app
from controller.cli import broker_acl as _broker_acl  # noqa: F401  (registers the command)
from controller.cli import commands as _commands  # noqa: F401  (and the others)
from controller.mqtt.broker_acl import display_user, render_acl, table_user
from tests.controller.mosquitto import Mosquitto
from tests.controller.mqtt_helpers import guarded
from tests.controller.parlour_broker import parlour_broker, password

pytestmark = pytest.mark.timeout(120)
BASE = "mahjong/p1"
USERS = [
    "hub",
    "floor",
    table_user("t1"),
    table_user("t2"),
    display_user("t1"),
    display_user("t2"),
]


@pytest.fixture
def broker(mosquitto_factory: Callable[..., Mosquitto], tmp_path: Path) -> Mosquitto:
    broker, _ws = parlour_broker(
        mosquitto_factory, tmp_path, parlour="p1", tables=["t1", "t2"], users=USERS
    )
    return broker


def client(broker: Mosquitto, user: str | None) -> aiomqtt.Client:
    creds: dict[str, Any] = {}
    if user is not None:
        creds = {"username": user, "password": password(user)}
    return aiomqtt.Client(
        "127.0.0.1", broker.port, identifier=f"{user}-{uuid.uuid4().hex}", **creds
    )


async def receive_until_sentinel(
    c: aiomqtt.Client, sentinel: str, publish: Callable[[], Any]
) -> list[str]:
    """Topics ``c`` receives before ``sentinel``, which ``publish`` sends after the rest:
    the broker routes in order, so anything allowed through arrives before it."""
    got: list[str] = []

    async def read() -> None:
        async for m in c.messages:
            if m.topic.value == sentinel:
                return
            got.append(m.topic.value)

    reader = asyncio.create_task(read())
    await publish()
    await guarded(reader, f"the sentinel {sentinel}")
    return got


def test_anonymous_and_wrong_passwords_are_refused(broker: Mosquitto) -> None:
    async def main() -> None:
        with pytest.raises(aiomqtt.MqttError):
            async with client(broker, None):
                pass
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client(
                "127.0.0.1", broker.port, username="table-t1", password="wrong"
            ):
                pass

    asyncio.run(main())


def test_display_reads_only_its_tables_public_topics(broker: Mosquitto) -> None:
    async def main() -> None:
        async with (
            client(broker, "display-t1") as display,
            client(broker, "table-t1") as t1,
            client(broker, "table-t2") as t2,
        ):
            for topic in (
                f"{BASE}/#",
                f"{BASE}/t2/scores",
                f"{BASE}/t1/handlog",
                f"{BASE}/t1/scores",
            ):
                await display.subscribe(topic, qos=1)

            async def publish() -> None:
                await t2.publish(f"{BASE}/t2/scores", b"{}", qos=1)  # another table
                await t1.publish(f"{BASE}/t1/handlog", b"{}", qos=1)  # secret
                await t1.publish(f"{BASE}/t1/handlog_ack", b"{}", qos=1)
                await t1.publish(f"{BASE}/t1/events", b"{}", qos=1)  # public: delivered
                await t1.publish(f"{BASE}/t1/flat/seat/2/total", b"-3", qos=1)  # public
                await t1.publish(f"{BASE}/t1/scores", b"{}", qos=1)  # the sentinel

            got = await receive_until_sentinel(display, f"{BASE}/t1/scores", publish)
            # Once per matching subscription it holds (the # and the exact one may overlap).
            assert set(got) == {f"{BASE}/t1/events", f"{BASE}/t1/flat/seat/2/total"}

    asyncio.run(main())


def test_floor_reads_every_tables_public_topics_only(broker: Mosquitto) -> None:
    async def main() -> None:
        async with (
            client(broker, "floor") as floor,
            client(broker, "table-t1") as t1,
            client(broker, "table-t2") as t2,
        ):
            await floor.subscribe(f"{BASE}/#", qos=1)

            async def publish() -> None:
                await t1.publish(f"{BASE}/t1/handlog", b"{}", qos=1)  # secret
                await t2.publish(f"{BASE}/t2/flat/state", b"in_hand", qos=1)
                await t1.publish(f"{BASE}/t1/hand", b"{}", qos=1)
                await t2.publish(f"{BASE}/t2/alerts", b"{}", qos=1)
                await t1.publish(f"{BASE}/t1/status", b"{}", qos=1)  # the sentinel

            got = await receive_until_sentinel(floor, f"{BASE}/t1/status", publish)
            assert got == [f"{BASE}/t2/flat/state", f"{BASE}/t1/hand", f"{BASE}/t2/alerts"]
            await floor.publish(f"{BASE}/t1/scores", b"forged", qos=1)  # refused silently

    asyncio.run(main())


def test_display_cannot_write(broker: Mosquitto) -> None:
    async def main() -> None:
        async with client(broker, "display-t1") as display, client(broker, "table-t1") as t1:
            await t1.subscribe(f"{BASE}/t1/#", qos=1)

            async def publish() -> None:
                await display.publish(f"{BASE}/t1/scores", b"forged", qos=1)
                await display.publish(f"{BASE}/t1/alerts", b"forged", qos=1)
                await t1.publish(f"{BASE}/t1/status", b"{}", qos=1)

            assert await receive_until_sentinel(t1, f"{BASE}/t1/status", publish) == []

    asyncio.run(main())


def test_table_cannot_write_another_tables_subtree(broker: Mosquitto) -> None:
    async def main() -> None:
        async with (
            client(broker, "hub") as hub,
            client(broker, "table-t1") as t1,
            client(broker, "table-t2") as t2,
        ):
            await hub.subscribe(f"{BASE}/+/handlog", qos=1)
            await t2.subscribe(f"{BASE}/t2/#", qos=1)

            async def publish() -> None:
                await t1.publish(f"{BASE}/t2/handlog", b"forged", qos=1)
                await t1.publish(f"{BASE}/t2/handlog_ack", b"forged", qos=1)
                await t1.publish(f"{BASE}/t2/scores", b"forged", qos=1)
                await t2.publish(f"{BASE}/t2/handlog", b"real", qos=1)

            got = await receive_until_sentinel(hub, f"{BASE}/t2/handlog", publish)
            assert got == []
            # t2 saw only its own handlog: none of t1's forgeries reached its subtree.
            first = await guarded(anext(aiter(t2.messages)), "t2's own message")
            assert (first.topic.value, first.payload) == (f"{BASE}/t2/handlog", b"real")

    asyncio.run(main())


def test_hub_reads_every_handlog_and_acknowledges(broker: Mosquitto) -> None:
    async def main() -> None:
        async with (
            client(broker, "hub") as hub,
            client(broker, "table-t1") as t1,
            client(broker, "table-t2") as t2,
        ):
            await hub.subscribe(f"{BASE}/+/handlog", qos=1)
            await t1.subscribe(f"{BASE}/t1/handlog_ack", qos=1)

            async def publish() -> None:
                await t1.publish(f"{BASE}/t1/handlog", b"1", qos=1)
                await t1.publish(f"{BASE}/t1/scores", b"{}", qos=1)  # not the hub's business
                await t2.publish(f"{BASE}/t2/handlog", b"2", qos=1)
                await t2.publish(f"{BASE}/t2/handlog", b"sentinel", qos=1)

            got: list[bytes] = []

            async def read() -> None:
                async for m in hub.messages:
                    assert isinstance(m.payload, bytes)
                    if m.payload == b"sentinel":
                        return
                    got.append(m.payload)

            reader = asyncio.create_task(read())
            await publish()
            await guarded(reader, "the sentinel")
            assert got == [b"1", b"2"]
            await hub.publish(f"{BASE}/t1/handlog_ack", b'{"hand_id": "h"}', qos=1)
            ack = await guarded(anext(aiter(t1.messages)), "the ack")
            assert ack.payload == b'{"hand_id": "h"}'

    asyncio.run(main())


def test_broker_acl_command(tmp_path: Path) -> None:
    out = tmp_path / "acl"
    result = CliRunner().invoke(
        app, ["broker-acl", "--parlour", "p1", "t1", "t2", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.read_text() == render_acl("p1", ["t1", "t2"])
    bad = CliRunner().invoke(app, ["broker-acl", "--parlour", "p1", "t/1"])
    assert bad.exit_code == 2 and "table id: letters" in bad.output


@pytest.mark.parametrize(
    "option",
    [
        ["--hub-user", "hub\ntopic readwrite #"],
        ["--hub-user", "hub topic"],
        ["--hub-user", ""],
        ["--root", "#"],
        ["--root", "mahjong/+"],
        ["--root", "mahjong\nuser x"],
        ["--root", "a//b"],
        ["--parlour", "p1\n"],
    ],
)
def test_broker_acl_refuses_names_that_would_write_rules(tmp_path: Path, option: list[str]) -> None:
    """Every name that goes into the acl_file is checked (a name could write rules)."""
    out = tmp_path / "acl"
    args = ["broker-acl", "--parlour", "p1", *option, "t1", "--out", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and "error:" in result.output, result.output
    assert not out.exists()
    users = render_acl("p1", ["t1"], root="x/mahjong", hub_user="hub-2").count("\nuser ")
    assert users == 4  # hub, table, display, floor
