"""The root of the engine's errors: a caller catches ``EngineError`` for "the engine refused
this", whatever the part. Each error also keeps the builtin base its callers knew
(``ValueError`` for bad input, ``RuntimeError`` for a refused bot move)."""

from __future__ import annotations


class EngineError(Exception):
    """Something the engine refused; the message says what and where."""


class CorruptLog(EngineError, ValueError):
    """A hand log (or one of its events) that cannot have happened: an event that cannot
    follow the ones before it, or one this engine cannot read."""
