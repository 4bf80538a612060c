"""Imports every command module so that each registers itself on ``app``."""

from controller.cli import enroll, version  # noqa: F401
