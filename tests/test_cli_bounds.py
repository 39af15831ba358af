"""Hostile files and arguments on the command line (issue 39): a YAML alias bomb, an integer of 5,000
digits, nesting deeper than any format, a catalog no deck can be built from, a negative timeout, an
interpreter that cannot be run. Each is one line ``referee: error: ...`` and exit 2, never a traceback,
and reading a file costs work bounded by its size (the bomb is refused after a budget of values the
size of the text, not after a billion)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from referee.engine.yaml_text import YamlTextError, parse_documents
from tests.conftest import ROOT

# Nine levels of ten aliases each: 332 bytes, a billion values once expanded.
BOMB = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]\n" for i in range(1, 10)
)
BIG_INT = "id: x\ncards: []\nn: " + "9" * 5000 + "\n"
ONLY_CASES = (
    "id: only-cases\ncards:\n"
    "  - {id: C-1, name: Case one, kind: case, level: 3, hit: 1}\n"
    "  - {id: C-2, name: Case two, kind: case, level: 4, hit: 2}\n"
)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    where = tmp_path_factory.mktemp("hostile-files")
    written = {
        "bomb.yaml": BOMB,
        "bigint.yaml": BIG_INT,
        "deep.yaml": "[" * 100_000 + "]" * 100_000,
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "cases.yaml": ONLY_CASES,
        "noexec": "",
    }
    for name, text in written.items():
        (where / name).write_text(text, "utf-8")
    (where / "noexec").chmod(0o644)  # a file, and no one may execute it
    return {name: str(where / name) for name in written}


def run(
    args: list[str], env: dict[str, str] | None = None, code: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m referee ARGS`` (or ``python -c CODE``) in a process of its own, at most 60 s."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")}
    full_env.update(env or {})
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "referee", *args]
    return subprocess.run(command, cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=60)


def assert_one_line_exit_2(done: subprocess.CompletedProcess[str], *words: str) -> None:
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert lines[-1].startswith("referee") and "error:" in lines[-1], lines
    for word in words:
        assert word in lines[-1], lines[-1]


SCENARIO = str(ROOT / "examples")
CASES = {
    # the file read, then the command
    "check FILE": ("bomb.yaml", ["check", "{file}"], "alias"),
    "replay FILE": ("bomb.yaml", ["replay", "{file}"], "alias"),
    "expand FILE": ("bomb.yaml", ["expand", "{file}"], "alias"),
    "record --catalog": ("bomb.yaml", ["record", "--seed", "1", "--catalog", "{file}"], "alias"),
    "fuzz CATALOG": ("bomb.yaml", ["fuzz", "{file}", "--games", "1", "-q"], "alias"),
    "check --catalog": ("bomb.yaml", ["check", "--catalog", "{file}", SCENARIO], "alias"),
    "serve --catalog (bomb)": ("bomb.yaml", ["serve", "--port", "0", "--catalog", "{file}"], "alias"),
    "check FILE (5,000 digits)": ("bigint.yaml", ["check", "{file}"], "4300 digits"),
    "replay FILE (5,000 digits)": ("bigint.yaml", ["replay", "{file}"], "4300 digits"),
    "expand FILE (5,000 digits)": ("bigint.yaml", ["expand", "{file}"], "4300 digits"),
    "record --catalog (5,000 digits)": ("bigint.yaml", ["record", "--seed", "1", "--catalog", "{file}"], "4300 digits"),
    "serve --catalog (5,000 digits)": ("bigint.yaml", ["serve", "--port", "0", "--catalog", "{file}"], "4300 digits"),
    "check FILE (deep YAML)": ("deep.yaml", ["check", "{file}"], "deep.yaml"),
    "verify-deal (deep JSON)": ("deep.json", ["verify-deal", "{file}"], "nested too deep"),
    "fuzz (only cases)": ("cases.yaml", ["fuzz", "{file}", "--games", "1", "-q"], "legal deck"),
    "fuzz --jobs 100000": ("cases.yaml", ["fuzz", "{file}", "--jobs", "100000"], "--jobs"),
    "check --jobs 9999": ("cases.yaml", ["check", "--jobs", "9999", SCENARIO], "--jobs"),
    "check --url --timeout -1": (
        "cases.yaml",
        ["check", "--url", "http://127.0.0.1:9", "--timeout", "-1", SCENARIO],
        "--timeout",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_hostile_file_or_argument_is_one_line_and_exit_2(files, case):
    name, args, word = CASES[case]
    done = run([a.replace("{file}", files[name]) for a in args])
    if case.startswith("check FILE"):  # check reports a malformed file in its summary, then exits 2
        assert done.returncode == 2 and "Traceback" not in done.stderr + done.stdout
        assert word in done.stdout + done.stderr
        return
    assert_one_line_exit_2(done, word)


@pytest.mark.parametrize("name,word", [("bomb.yaml", "alias"), ("bigint.yaml", "4300 digits")])
def test_serve_with_referee_catalog_set_to_a_hostile_file_is_one_line(files, name, word):
    done = run(["serve", "--port", "0"], env={"REFEREE_CATALOG": files[name]})
    assert_one_line_exit_2(done, "REFEREE_CATALOG=", word)


def test_serve_when_the_interpreter_cannot_be_executed_is_one_line(files):
    """The interpreter named for gunicorn is a file no one may execute: os.execv fails, in a process of
    its own (it would replace this one, did it succeed)."""
    code = (
        "import sys; sys.executable = " + repr(files["noexec"]) + "\n"
        "from referee.cli import main\n"
        "sys.exit(main(['serve', '--port', '0']))\n"
    )
    done = run([], code=code)
    assert_one_line_exit_2(done, "cannot start gunicorn")


def test_an_alias_bomb_is_refused_within_a_budget_the_size_of_its_text():
    """Counted, not timed: the values read before the refusal are at most the text's length plus the spare."""
    with pytest.raises(YamlTextError) as refused:
        parse_documents(BOMB, "bomb.yaml")
    assert "alias" in str(refused.value) and "\n" not in str(refused.value)


def test_aliases_within_the_budget_are_read():
    """A text may still use aliases: ten references to a list of ten."""
    (doc,) = parse_documents(
        "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n", "ok"
    )
    assert len(doc.data["b"]) == 10 and doc.data["b"][9][9] == 10


def test_an_integer_of_4300_digits_is_still_an_integer():
    (doc,) = parse_documents("n: " + "9" * 4300 + "\n", "ok")
    assert doc.data["n"] == int("9" * 4300)
