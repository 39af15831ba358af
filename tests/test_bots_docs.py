"""docs/bots.md's training loop runs as written (for two episodes), and its action-space figures hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

DOC = (Path(__file__).resolve().parent.parent / "docs" / "bots.md").read_text("utf-8")


def test_the_training_loop_runs():
    section = DOC.split("## A training loop", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 22
    scope: dict = {}
    exec(code.replace("range(20)", "range(2)"), scope)
    assert scope["weights"].any()  # it learned something from the two games' outcomes


def test_the_documented_sizes_are_the_builtin_catalogs():
    from referee.bots.encoding import ActionSpace, Observation
    from referee.engine import Catalog

    catalog = Catalog.builtin()
    assert f"`n` = {ActionSpace(catalog).n:,}" in DOC
    assert f"({Observation(catalog).size} for the built-in one)" in DOC


def test_every_referee_command_on_the_page_parses():
    """Each `referee ...` command of docs/bots.md's shell blocks is one the command line accepts as written
    (synopses, with their [brackets] and ..., aside)."""
    import shlex

    from referee.cli import build_parser

    commands = []
    for block in re.findall(r"```sh\n(.*?)```", DOC, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("referee ") and "[" not in line and "..." not in line:
                commands.append(shlex.split(line)[1:])
    assert len(commands) >= 4
    parser = build_parser()
    for argv in commands:
        parser.parse_args(argv)  # exits (SystemExit) on a command the parser refuses
