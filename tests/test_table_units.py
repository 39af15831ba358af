"""The table page's logic that needs no browser (referee/service/table/*.js), unit-tested by Node's own
runner (``node --test``, no npm package): what a poll takes, what a move changes, labels, the clock's
count-down, a match's flow, links, storage, decks. The tests are tests/table_js/*.test.mjs; this runs them
so that ``make test`` does, and fails with Node's report when one fails."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

NODE = shutil.which("node")
UNITS = ROOT / "tests" / "table_js"
pytestmark = pytest.mark.skipif(NODE is None, reason="nodejs is not installed (apt-get install nodejs)")


def test_the_table_modules_pass_their_node_unit_tests():
    files = sorted(str(p) for p in UNITS.glob("*.test.mjs"))
    out = subprocess.run(
        [str(NODE), "--test", *files], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", out.stdout, re.M)
    assert passed and int(passed.group(1)) >= 30, out.stdout[-2000:]


def test_no_table_module_is_a_god_file():
    """Each module of the page holds one concern: none over 500 lines."""
    sizes = {p.name: len(p.read_text("utf-8").splitlines()) for p in (ROOT / "referee/service/table").glob("*.js")}
    assert max(sizes.values()) <= 500, sizes
