"""MQTT: the table's topics, the outbox-backed publisher, the embedded broker."""

from controller.mqtt.embedded import EmbeddedBroker
from controller.mqtt.publisher import Publisher
from controller.mqtt.topics import OFFLINE, ONLINE, RETAINED, STREAMS, Topics, encode

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
