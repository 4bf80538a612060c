"""The virtual table's people and trials: the bots that play it, the reader-less demo's
staff, whole hands read through a reader model."""
