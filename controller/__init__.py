"""The table service: where the bridge and the engine meet (time, storage, MQTT, web, CLI)."""
