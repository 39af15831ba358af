"""The progress bar of long work: drawn on a terminal (games done, rate, time left), silent anywhere else
and under --quiet, so logs and pipes get exactly the output they had."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

import referee

BUILTIN = str(Path(referee.__file__).parent / "data" / "af-ref.yaml")
REFEREE = [sys.executable, "-m", "referee"]


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("archive") / "games.jsonl"
    lines = [
        subprocess.run([*REFEREE, "record", "--seed", str(i), "--jsonl"], capture_output=True, check=True).stdout
        for i in range(3)
    ]
    path.write_bytes(b"".join(lines))
    return path


def on_a_terminal(args: list[str]) -> tuple[int, str, str]:
    """Run ``referee ARGS`` with standard error on a pseudo-terminal; (exit status, stdout, what the terminal got)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [*REFEREE, *args], stdout=subprocess.PIPE, stderr=follower, env={**os.environ, "COLUMNS": "100", "LINES": "24"}
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        seen += chunk
    out, _ = proc.communicate(timeout=300)
    os.close(leader)
    return proc.returncode, out.decode(), seen.decode(errors="replace")


def test_recheck_draws_a_bar_on_a_terminal_and_none_under_quiet(archive):
    rc, out, terminal = on_a_terminal(["recheck", str(archive), "--jobs", "1"])
    assert rc == 0 and "3 game(s) re-checked" in out
    assert "/3 [" in terminal and "games/s" in terminal  # done of total, then time and rate
    rc, out, terminal = on_a_terminal(["recheck", str(archive), "--jobs", "1", "--quiet"])
    assert rc == 0 and terminal == ""


def test_fuzz_draws_a_bar_on_a_terminal():
    rc, _, terminal = on_a_terminal(["fuzz", BUILTIN, "--games", "2", "--seed", "bar"])
    assert rc == 0 and "/2 [" in terminal and "games/s" in terminal


def test_off_a_terminal_nothing_is_drawn(archive):
    for args in (["recheck", str(archive), "--jobs", "2"], ["fuzz", BUILTIN, "--games", "1"]):
        done = subprocess.run([*REFEREE, *args], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0 and done.stderr == ""


def test_check_with_jobs_draws_a_bar_on_a_terminal(tmp_path):
    for i in range(2):
        subprocess.run(
            [*REFEREE, "record", "--seed", str(i), "--max-actions", "20", "--out", str(tmp_path / f"{i}.yaml")],
            check=True,
            capture_output=True,
        )
    rc, out, terminal = on_a_terminal(["check", str(tmp_path), "--jobs", "2"])
    assert rc == 0 and "2 passed, 0 failed" in out and "/2 [" in terminal
    rc, out, terminal = on_a_terminal(["check", str(tmp_path), "--jobs", "2", "--quiet"])
    assert rc == 0 and terminal == ""
