"""Imports every command module so that each registers itself on ``app``."""

from controller.cli import analyze, enroll, replay, rules, settle, sim_table, simulate, version  # noqa: F401
