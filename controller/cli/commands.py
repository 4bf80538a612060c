"""Imports every command module so that each registers itself on ``app``."""

from controller.cli import version  # noqa: F401
