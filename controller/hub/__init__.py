"""The parlour hub, and each table's side of it.

The hub's service: ``ingest`` (``store_handlogs`` writes parsed handlogs idempotently),
``service`` (``HubIngest`` subscribes to every table's ``handlog`` topic, stores in batches
and acknowledges each hand after the commit), ``queries``, ``restore``.
A table's side: ``handlog`` (the log it sends), ``handlog_sync`` (acks, re-sends),
``handlog_restore`` (hands the hub gives back), ``member_sync`` (the members' registry).
Nothing is imported here: a table imports its side without the hub's service.
"""
