"""Set-up for every test: the failure logs hook, and plain tracebacks in log lines."""

import structlog

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
