"""tests/failure_logs.py: a failing test's report carries the logs it named; a passing
test's does not, and a long log is cut to its tail."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]

INNER = """
from pathlib import Path

from tests.failure_logs import TAIL_BYTES, show_log_on_failure


def _log(tmp_path, text):
    log = tmp_path / "broker.log"
    log.write_text(text)
    return log


def test_fails(request, tmp_path):
    said = "the broker said " + "FAILED" + "-ONE\\n"
    show_log_on_failure(request.node, "broker log", _log(tmp_path, said))
    assert False


def test_passes(request, tmp_path):
    show_log_on_failure(request.node, "broker log", _log(tmp_path, "PASSED" + "-ONE\\n"))


def test_fails_with_a_long_log(request, tmp_path):
    text = "EAR" + "LY\\n" + "x" * (2 * TAIL_BYTES) + "\\nLA" + "TE\\n"
    show_log_on_failure(request.node, "long log", _log(tmp_path, text))
    assert False


def test_fails_with_a_missing_log(request, tmp_path):
    show_log_on_failure(request.node, "gone log", tmp_path / "never-written.log")
    assert False
"""


def test_a_failing_test_shows_the_logs_it_named(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(INNER)
    command = [sys.executable, "-m", "pytest", "-p", "tests.failure_logs", "-p", "no:cacheprovider"]
    command += ["-q", "--rootdir", str(tmp_path), str(tmp_path / "test_inner.py")]
    run = subprocess.run(
        command,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = run.stdout
    assert "3 failed, 1 passed" in out, out
    assert "broker log (" in out and "the broker said FAILED-ONE" in out
    assert "PASSED-ONE" not in out
    assert "LATE" in out and "EARLY" not in out and "bytes left out" in out
    assert "gone log (" in out and "No such file or directory" in out
