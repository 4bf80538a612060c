"""An MQTT broker inside the service (amqtt) for the demo and a lone table.

A parlour runs Mosquitto instead (deploy/); this one keeps retained messages in memory
only, so the publisher republishes current state when it reconnects.
"""

from __future__ import annotations

import logging
from typing import Any

from amqtt.broker import Broker  # type: ignore[import-untyped]

_ANONYMOUS = "amqtt.plugins.authentication.AnonymousAuthPlugin"


class _Broker(Broker):  # type: ignore[misc]
    """amqtt 0.12 sends a connecting client the retained messages of every filter any
    client subscribed to (``for topic in self._subscriptions`` on connect), so a display
    got whatever a wider subscriber's filter matched. Retained messages go only to a
    client that holds the filter itself."""

    async def _publish_retained_messages_for_subscription(
        self, subscription: tuple[str, int], session: Any
    ) -> None:
        holders = self._subscriptions.get(subscription[0], ())
        if any(held.client_id == session.client_id for held, _qos in holders):
            await super()._publish_retained_messages_for_subscription(subscription, session)


class EmbeddedBroker:
    """``async with EmbeddedBroker(port=0) as broker:`` … ``broker.url``; port 0 picks one."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self._broker: Broker | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    async def start(self) -> None:
        if self._broker is not None:
            raise RuntimeError("embedded broker already started")
        config: dict[str, Any] = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            # Only anonymous auth: no $SYS publisher, no per-packet logging plugins.
            "plugins": {_ANONYMOUS: {"allow_anonymous": True}},
        }
        broker = _Broker(config)
        await broker.start()
        self._broker = broker
        server = broker._servers["default"].instance  # amqtt exposes no bound-port API
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = int(sockets[0].getsockname()[1])
        logging.getLogger(__name__).info("embedded MQTT broker on %s", self.url)

    async def stop(self) -> None:
        broker, self._broker = self._broker, None
        if broker is not None:
            await broker.shutdown()

    async def __aenter__(self) -> EmbeddedBroker:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
