"""clients/typescript/: the TypeScript types generated from openapi.yaml are checked in and current,
and the table page's fetch wrapper type-checks against them (one source of truth for the shapes).

The generator and the compiler are the versions pinned in clients/typescript/package-lock.json,
installed once with ``npm ci`` (from npm's cache when it has them) into clients/typescript/node_modules.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TS = ROOT / "clients" / "typescript"
GENERATOR = TS / "node_modules" / ".bin" / "openapi-typescript"
TSC = TS / "node_modules" / ".bin" / "tsc"


@pytest.fixture(scope="module")
def npm_tools() -> Path:
    npm = shutil.which("npm")
    if npm is None:
        if os.environ.get("CI"):
            pytest.fail("npm is missing: .ci/run installs nodejs and npm")
        pytest.skip("npm is missing (apt-get install nodejs npm)")
    if not (GENERATOR.exists() and TSC.exists()):
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"],
            cwd=TS,
            check=True,
            capture_output=True,
            timeout=300,
        )
    return TS


def test_the_committed_types_are_generated_from_openapi_yaml(npm_tools, tmp_path):
    """Fails when openapi.yaml changes without `make types`."""
    out = tmp_path / "openapi.d.ts"
    subprocess.run(
        [str(GENERATOR), str(ROOT / "openapi.yaml"), "--output", str(out)],
        cwd=TS,
        check=True,
        capture_output=True,
        timeout=120,
    )
    committed = (TS / "openapi.d.ts").read_text("utf-8")
    assert committed == out.read_text("utf-8"), "clients/typescript/openapi.d.ts is stale: run `make types`"


def test_the_table_client_type_checks_against_the_types(npm_tools):
    result = subprocess.run(
        ["npm", "run", "--silent", "check-table"], cwd=TS, capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stdout + result.stderr
