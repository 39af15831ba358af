"""Docs that run: every fenced block of README.md and docs/*.md, run as written (tests/docs_blocks.py says
how each kind runs and which markers the runner reads). A block that fails fails the suite; a block that
cannot run here is marked so, and is reported as skipped with its reason."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import STATE_KEY, Server, launch_server, need_program, stop_servers, wait_ready
from tests.docs_blocks import KINDS, PARSED, SHOWN, Block, blocks, console_script, documents, in_order, served

ALL = [block for doc in documents() for block in blocks(doc)]
TIMEOUT = 180  # seconds for one block; the slowest (a bot arena) takes a few
PROGRAMS = {"jq": "jq", "curl": "curl", "node": "nodejs"}  # programs the blocks call, and their Debian packages


class Referees:
    """The referees the blocks talk to, each started the first time a block needs it, stopped by PID after."""

    def __init__(self, logs: Path):
        self.logs = logs
        self.started: dict[str, Server] = {}

    def url(self, kind: str) -> str:
        if kind not in self.started:
            env = {}
            if kind == "private":
                env = {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": f"sqlite:///{self.logs}/ledger.db"}
            self.started[kind] = wait_ready(launch_server(self.logs, workers=2, env=env))
        return self.started[kind].url


@pytest.fixture(scope="module")
def referees(tmp_path_factory) -> Iterator[Referees]:
    refs = Referees(tmp_path_factory.mktemp("docs-referees"))
    try:
        yield refs
    finally:
        stop_servers(refs.started.values())


@pytest.fixture(scope="module")
def workdirs(tmp_path_factory) -> dict[str, Path]:
    """One working directory a document, shared by its blocks in order, holding the repository's examples."""

    class Dirs(dict):
        def __missing__(self, doc: str) -> Path:
            path = tmp_path_factory.mktemp("docs-" + doc.replace("/", "-"))
            for shared in ("examples", "referee"):  # read by the blocks, as from a clone's folder
                (path / shared).symlink_to(Path(__file__).resolve().parents[1] / shared)
            self[doc] = path
            return path

    return Dirs()


def _env() -> dict[str, str]:
    """The user's environment as the docs assume it: the project's `referee` and `python` first on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=_env(), input=stdin, capture_output=True, text=True, timeout=TIMEOUT)


def _failed(block: Block, done: subprocess.CompletedProcess, why: str) -> str:
    return f"{block.id} ({block.kind}) {why}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"


@pytest.mark.parametrize("block", ALL, ids=[b.id for b in ALL])
def test_the_block_runs_as_written(block: Block, referees: Referees, workdirs: dict[str, Path]):
    assert block.kind in KINDS, (
        f"{block.id}: say what the block is with its info string ({', '.join(sorted(KINDS))}), "
        "and mark one that cannot run here with <!-- docs: skip REASON -->"
    )
    cwd = workdirs[block.doc]
    if block.file:
        target = cwd / block.file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text, "utf-8")
    if block.skip is not None:
        pytest.skip(f"not run here: {block.skip}")
    if block.kind in SHOWN:
        pytest.skip("text: shown, not run")
    if block.kind in PARSED:
        (json.loads if block.kind == "json" else yaml.safe_load)(block.text)
        return
    for program, package in PROGRAMS.items():
        if re.search(rf"\b{program}\b", block.text):
            need_program(shutil.which(program), f"{program} is not installed (apt-get install {package})")
    text = served(block.text, referees.url(block.server)) if block.server else block.text
    if block.kind == "python":
        done = _run([sys.executable, "-"], cwd, text)
        assert done.returncode == 0, _failed(block, done, f"exited {done.returncode}")
    elif block.kind == "sh":
        done = _run(["bash", "-euo", "pipefail", "-c", text], cwd)
        assert done.returncode == 0, _failed(block, done, f"exited {done.returncode}")
    else:
        script, expected = console_script(text)
        done = _run(["bash", "-c", script], cwd)
        missing = in_order(expected, done.stdout + done.stderr)
        assert not missing, _failed(block, done, f"did not print, in order: {missing}")


SAMPLE = """# A page

<!-- docs: file deck.txt -->
```text
3 AF-040
```

<!-- docs: skip needs docker -->
```sh
docker build .
```

<!-- docs: server private -->
```python
print("http://127.0.0.1:8000")
```

```
no info string
```

```sh skip="runs until stopped"
make serve
```

```console
$ printf 'a\\nb\\nc\\n'
a
...
c
```
"""


def test_the_runner_reads_kinds_markers_and_console_promises(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(SAMPLE, "utf-8")
    found = blocks(page)
    assert [(b.kind, b.file, b.skip, b.server) for b in found] == [
        ("text", "deck.txt", None, None),
        ("sh", None, "needs docker", None),
        ("python", None, None, "private"),
        ("", None, None, None),  # refused by the runner: say what it is
        ("sh", None, "runs until stopped", None),  # the marker in the info string
        ("console", None, None, None),
    ]
    assert served(found[2].text, "http://127.0.0.1:5555") == 'print("http://127.0.0.1:5555")\n'
    script, expected = console_script(found[5].text)
    assert script == "printf 'a\\nb\\nc\\n'\n" and expected == ["a", "c"]
    assert in_order(expected, "a\nb\nc\n") == [] and in_order(expected, "c\na\n") == ["c"]
