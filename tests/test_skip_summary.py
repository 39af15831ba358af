"""A run that skips tests for want of a system package says so at the end, loudly (issue 19)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

SKIPPING = """
import pytest

def test_needs_a_browser():
    pytest.skip("/usr/bin/chromium is missing: apt-get install chromium (.ci/run does)")

def test_needs_nothing():
    pytest.skip("not this one")

def test_runs():
    pass
"""


def run_with_the_suites_conftest(tmp_path, source: str) -> str:
    test = tmp_path / "test_sample.py"
    test.write_text(source, "utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "tests.conftest", "-p", "no:cacheprovider", str(test)],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "CI"},  # on CI a missing program fails instead
        capture_output=True,
        text=True,
        timeout=120,
    )
    return out.stdout


# A machine without nginx or redis-server, as the fixtures see it: their programs' paths are None.
WITHOUT_PROGRAMS = """
import benchmarks.nginx
import tests.redis_server
from tests.conftest import nginx_over

benchmarks.nginx.NGINX = None
tests.redis_server.REDIS_SERVER = None

def test_behind_nginx(tmp_path):
    with nginx_over(tmp_path, []):
        pass

def test_on_redis(redis_server):
    pass
"""


def test_a_fixture_whose_program_is_missing_skips_and_the_summary_says_so(tmp_path):
    """README: a test whose program is missing is skipped and the summary says so (no error: nginx_over once
    handed None to Popen)."""
    out = run_with_the_suites_conftest(tmp_path, WITHOUT_PROGRAMS)
    assert "2 skipped" in out and "error" not in out.lower(), out
    assert "1 skipped: nginx is not installed (apt-get install nginx-light)" in out
    assert "1 skipped: redis-server is not installed (apt-get install redis-server)" in out


def test_a_skip_for_a_missing_package_is_in_the_summary_with_every_package_the_suite_needs(tmp_path):
    out = run_with_the_suites_conftest(tmp_path, SKIPPING)
    assert "1 TESTS SKIPPED: SYSTEM PACKAGES MISSING" in out
    assert "1 skipped: /usr/bin/chromium is missing" in out
    assert "not this one" not in out.split("SYSTEM PACKAGES MISSING", 1)[1]
    for package in ("chromium", "fonts-noto-cjk", "nginx-light", "redis-server", "nodejs, npm"):
        assert package in out


def test_a_run_that_skips_nothing_for_want_of_a_package_says_nothing(tmp_path):
    out = run_with_the_suites_conftest(tmp_path, "def test_runs():\n    pass\n")
    assert "SYSTEM PACKAGES MISSING" not in out
