"""An MQTT broker inside the service (amqtt) for the demo and a lone table.

A parlour runs Mosquitto instead (deploy/); this one keeps retained messages in memory
only, so the publisher republishes current state when it reconnects. Besides MQTT over TCP
it can listen for MQTT over WebSocket (``ws_port``), which the browser pages fed straight
from the broker use (/floor, /display?broker=; docs/displays.md).

It has no accounts, so it listens on loopback only (a parlour's tablets reach Mosquitto with
the accounts of ``mjtable broker-acl``), and even there a client's hand logs (concealed
hands, the wall order) go to nobody, and a client writes only under the table's own topics.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from amqtt.broker import Broker  # type: ignore[import-untyped]
from amqtt.contexts import Action  # type: ignore[import-untyped]
from amqtt.plugins.base import BaseTopicPlugin  # type: ignore[import-untyped]

from controller.config import require_loopback
from controller.mqtt.topics import HANDLOG_NAME

_ANONYMOUS = "amqtt.plugins.authentication.AnonymousAuthPlugin"
_TOPICS = f"{__name__}.AnonymousTopics"


class AnonymousTopics(BaseTopicPlugin):  # type: ignore[misc]
    """What an anonymous client may do here: read anything but a hand log (it carries the
    concealed hands and the wall order; the hub reads it on a parlour broker, with its
    account), and write only under ``writable`` (the table's own topics; "": anywhere)."""

    @dataclass
    class Config:
        writable: str = ""

    async def topic_filtering(
        self, *, session: Any = None, topic: str | None = None, action: Any = None
    ) -> bool:
        if topic is None:
            return False
        if action in (Action.SUBSCRIBE, Action.RECEIVE):
            return topic.rsplit("/", 1)[-1] != HANDLOG_NAME
        if action == Action.PUBLISH:
            writable: str = self.config.writable
            return not writable or topic.startswith(writable)
        return False


class _Broker(Broker):  # type: ignore[misc]
    """No retained hand log (below). amqtt 0.12 sends a connecting client the retained
    messages of every filter any client subscribed to (``for topic in self._subscriptions``
    on connect), so a display got whatever a wider subscriber's filter matched. Retained
    messages go only to a client that holds the filter itself."""

    async def retain_message(
        self, source_session: Any, topic_name: str | None, data: Any, qos: int | None = None
    ) -> None:
        # Retained messages reach a subscriber with no RECEIVE check: never hold a hand log.
        if topic_name is not None and topic_name.rsplit("/", 1)[-1] == HANDLOG_NAME:
            return
        await super().retain_message(source_session, topic_name, data, qos)

    async def _publish_retained_messages_for_subscription(
        self, subscription: tuple[str, int], session: Any
    ) -> None:
        holders = self._subscriptions.get(subscription[0], ())
        if any(held.client_id == session.client_id for held, _qos in holders):
            await super()._publish_retained_messages_for_subscription(subscription, session)


class EmbeddedBroker:
    """``async with EmbeddedBroker(port=0) as broker:`` … ``broker.url``; port 0 picks one.
    ``ws_port``: also MQTT over WebSocket (``broker.ws_url``), 0 picks one; None: not."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        ws_port: int | None = None,
        *,
        writable: str = "",
    ) -> None:
        require_loopback(host)
        self.host = host
        self.writable = writable
        """Where clients may publish (a topic prefix, the table's ``<root>/<parlour>/<id>/``)."""
        self.port = port
        self.ws_port = ws_port
        self._broker: Broker | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def ws_url(self) -> str | None:
        return None if self.ws_port is None else f"ws://{self.host}:{self.ws_port}"

    async def start(self) -> None:
        if self._broker is not None:
            raise RuntimeError("embedded broker already started")
        require_loopback(self.host)
        listeners = {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}}
        if self.ws_port is not None:  # (amqtt speaks the "mqtt" subprotocol MQTT.js asks for)
            listeners["ws"] = {"type": "ws", "bind": f"{self.host}:{self.ws_port}"}
        config: dict[str, Any] = {
            "listeners": listeners,
            # Anonymous on loopback only, limited topics: no $SYS publisher, no per-packet
            # logging plugins.
            "plugins": {
                _ANONYMOUS: {"allow_anonymous": True},
                _TOPICS: {"writable": self.writable},
            },
        }
        broker = _Broker(config)
        await broker.start()
        self._broker = broker
        self.port = _bound_port(broker, "default", self.port)
        if self.ws_port is not None:
            self.ws_port = _bound_port(broker, "ws", self.ws_port)
        logging.getLogger(__name__).info(
            "embedded MQTT broker on %s%s", self.url, f" and {self.ws_url}" if self.ws_url else ""
        )

    async def stop(self) -> None:
        broker, self._broker = self._broker, None
        if broker is not None:
            await broker.shutdown()

    async def __aenter__(self) -> EmbeddedBroker:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


def _bound_port(broker: Broker, listener: str, asked: int) -> int:
    """The port a listener got (asked for 0: the one the system picked)."""
    server = broker._servers[listener].instance  # amqtt exposes no bound-port API
    # asyncio.Server and websockets' Server both have .sockets
    sockets = getattr(server, "sockets", None) or []
    return int(next(iter(sockets)).getsockname()[1]) if sockets else asked
