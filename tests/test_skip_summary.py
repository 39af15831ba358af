"""A run that skips tests for want of a system package says so at the end, loudly (issue 19)."""

from __future__ import annotations

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
        capture_output=True,
        text=True,
        timeout=120,
    )
    return out.stdout


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
