"""Set-up for every test: the failure logs hook, plain tracebacks in log lines, and each
parallel worker's share of the local ports."""

import os

import structlog

from controller.process.local_ports import PORT_SHARE_VARIABLE
from tests.failure_logs import pytest_runtest_makereport  # noqa: F401  (the hook)

# A service run inside a test logs through structlog's defaults unless the test configures
# logging: with rich installed those render each traceback with every frame's locals, on
# the event loop, seconds a traceback on a busy machine, while the table waits. The service
# itself prints plain ones from a writer thread (controller.process.logs).
structlog.configure(
    processors=[
        *structlog.get_config()["processors"][:-1],
        structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback),
    ]
)

# pytest-xdist's workers (gw0, gw1, …) choose servers' ports at the same time: each, and what
# it starts, takes its own share of them (controller.process.local_ports).
if (worker := os.environ.get("PYTEST_XDIST_WORKER", "")).startswith("gw"):
    os.environ[PORT_SHARE_VARIABLE] = f"{worker[2:]}/{os.environ['PYTEST_XDIST_WORKER_COUNT']}"
