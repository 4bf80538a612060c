"""Pure mahjong rules: tiles, the wall, hand analysis, rulesets and settlement.

No I/O, no clock, no randomness it did not receive. Imports nothing of ours.
"""
