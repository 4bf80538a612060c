"""Imports every command module so that each registers itself on ``app``."""

from controller.cli import analyze, enroll, rules, settle, version  # noqa: F401
