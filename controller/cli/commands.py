"""Imports every command module so that each registers itself on ``app``."""

from controller.cli import (  # noqa: F401
    analyze,
    enroll,
    owner,
    replay,
    rules,
    settle,
    sim_table,
    simulate,
    version,
)
