"""Hand analysis: win check, readings, waits and shanten, wildcard-aware.

Every ruleset calls these; bots call ``is_win``, ``waits`` and ``shanten`` thousands of
times, so the standard shape runs on memoised per-suit tables (``suit_tables``).
"""

from engine.analysis.readings import analyze
from engine.analysis.shanten import shanten
from engine.analysis.suit_tables import clear_tables, table_sizes
from engine.analysis.waits import waits
from engine.analysis.win import is_win

__all__ = ["analyze", "clear_tables", "is_win", "shanten", "table_sizes", "waits"]
