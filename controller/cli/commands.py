"""Imports every command module so that each registers itself on ``app``."""

from controller.cli import (  # noqa: F401
    analyze,
    broker_acl,
    demo,
    enroll,
    hub,
    owner,
    replay,
    rules,
    run,
    settle,
    sim_table,
    simulate,
    version,
)
