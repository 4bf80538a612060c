"""Hardware side: bytes <-> table messages. Knows tiles only as tag UIDs and zones; no rules."""
