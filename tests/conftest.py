from tests.failure_logs import pytest_runtest_makereport  # noqa: F401  (the hook)
