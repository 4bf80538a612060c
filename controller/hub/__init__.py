"""The parlour hub: every table's finished hands, from MQTT into one database.

``store_handlogs`` writes parsed handlogs idempotently; ``HubIngest`` subscribes to every
table's ``handlog`` topic, stores in batches and acknowledges each hand after the commit.
"""

from controller.hub.ingest import StoreResult, store_handlogs
from controller.hub.service import HubIngest

__all__ = ["HubIngest", "StoreResult", "store_handlogs"]
