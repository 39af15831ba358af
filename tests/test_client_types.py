"""The client's types, as a user's type checker sees them: ``referee`` ships ``py.typed``.

mypy (strict) checks ``tests/typecheck/client_usage.py``, whose ``assert_type`` lines
state what each method returns: a result from :class:`RefereeClient` and
:class:`PrivateGame`, an awaitable from the async ones. A descriptor whose
overloads do not match a private game, say, is an error there.

mypy runs the way it runs in a user's project: in a process of its own, from a
directory of its own, with no ``MYPYPATH``, ``PYTHONPATH`` or configuration, so it
can only find ``referee`` where the interpreter's site-packages put it (in this
process pytest has put the checkout on ``sys.path``, which would hide the question). That is the ``make``-built editable install,
which must therefore be one a static checker can read (a path entry, not
setuptools' import-hook finder: see the Makefile and docs/decisions.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
USAGE = ROOT / "tests" / "typecheck" / "client_usage.py"


def test_what_each_client_method_returns_is_typed_for_users(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(USAGE, project / USAGE.name)
    env = {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "PYTHONPATH")}
    mypy = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-incremental",
            f"--cache-dir={tmp_path / 'cache'}",
            "--config-file=",
            USAGE.name,
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
    assert "Success" in mypy.stdout
