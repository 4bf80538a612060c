"""MQTT: the table's topics, the outbox-backed publisher, the embedded broker."""

from typing import TYPE_CHECKING, Any

from controller.mqtt.publisher import Publisher
from controller.mqtt.topics import OFFLINE, ONLINE, RETAINED, STREAMS, Topics, encode

if TYPE_CHECKING:
    from controller.mqtt.embedded import EmbeddedBroker


def __getattr__(name: str) -> Any:
    # amqtt is only for the demo's embedded broker: a Pi on a parlour broker never loads it
    if name == "EmbeddedBroker":
        from controller.mqtt.embedded import EmbeddedBroker

        return EmbeddedBroker
    raise AttributeError(name)


__all__ = [
    "OFFLINE",
    "ONLINE",
    "RETAINED",
    "STREAMS",
    "EmbeddedBroker",
    "Publisher",
    "Topics",
    "encode",
]
