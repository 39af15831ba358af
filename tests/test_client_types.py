"""The client's types, as a user's type checker sees them: ``referee`` ships ``py.typed``.

mypy (strict) checks ``tests/typecheck/client_usage.py``, whose ``assert_type`` lines
state what each method returns: a result from :class:`RefereeClient` and
:class:`PrivateGame`, an awaitable from the async ones. A descriptor whose
overloads do not match a private game, say, is an error there.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent
USAGE = ROOT / "tests" / "typecheck" / "client_usage.py"


def test_what_each_client_method_returns_is_typed_for_users(tmp_path, monkeypatch):
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    out, err, status = api.run(
        [
            "--strict",
            "--no-incremental",
            f"--cache-dir={tmp_path / 'cache'}",
            f"--python-executable={sys.executable}",
            "--config-file=",
            str(USAGE),
        ]
    )
    assert status == 0, out + err
    assert "Success" in out
