"""Every ``referee`` subcommand, given a bad file (missing, a directory, not UTF-8, not YAML, not of its
format) to read or a place it cannot write to: exit 2 and one line ``referee: error: ...`` that names
the option and the file once, never a traceback."""

from __future__ import annotations

import json
import os

import pytest

from referee.cli import main as referee

# What each kind of bad input file holds (None: it is not made).
BAD_INPUTS = {
    "missing": None,
    "directory": "dir",
    "not UTF-8": b"\xff\xfe\x00id",
    "not YAML": b"id: x\ncards: [\n",
}
BAD_CATALOGS = {**BAD_INPUTS, "unknown field": b"id: x\ncards: [{id: X-1, name: x, kind: dragon}]\n"}
# Every command that reads a catalog, the other files it reads being good ({scenario}: see `good`).
READERS = {
    "check --catalog": ["check", "--catalog", "{bad}", "{scenario}"],
    "record --catalog": ["record", "--seed", "1", "--catalog", "{bad}"],
    "replay --catalog": ["replay", "{scenario}", "--catalog", "{bad}"],
    "recheck --catalog": ["recheck", "{archive}", "--catalog", "{bad}"],
    "expand --catalog": ["expand", "{scenario}", "--catalog", "{bad}"],
    "verify-deal --catalog": ["verify-deal", "{revealed}", "--catalog", "{bad}"],
    "serve --catalog": ["serve", "--port", "0", "--catalog", "{bad}"],
}
INPUT_FILES = {
    "replay FILE": ["replay", "{bad}"],
    "expand FILE": ["expand", "{bad}"],
    "verify-deal FILE": ["verify-deal", "{bad}"],
    "record --game": ["record", "--seed", "1", "--game", "{bad}"],
    "record --actions": ["record", "--seed", "1", "--actions", "{bad}"],
}
WRITERS = {
    "check --junit": ["check", "-q", "{scenario}", "--junit", "{bad}"],
    "record --out": ["record", "--seed", "1", "--max-actions", "2", "--out", "{bad}"],
    "replay --out": ["replay", "{scenario}", "--out", "{bad}"],
    "recheck --report": ["recheck", "{archive}", "--report", "{bad}"],
    "expand --out": ["expand", "{scenario}", "--out", "{bad}"],
    "verify-deal --out": ["verify-deal", "{revealed}", "--out", "{bad}"],
    "openapi --output": ["openapi", "--output", "{bad}"],
}


@pytest.fixture(scope="module")
def good(tmp_path_factory, catalog, new_game_body) -> dict[str, str]:
    """A scenario, an archive and a revealed private game that the commands accept."""
    from test_fair_play_engine import finished_private_game

    where = tmp_path_factory.mktemp("good")
    scenario, archive, revealed = where / "game.yaml", where / "games.jsonl", where / "revealed.json"
    assert referee(["record", "--seed", "1", "--max-actions", "4", "--out", str(scenario)]) == 0
    assert referee(["record", "--seed", "1", "--max-actions", "4", "--jsonl", "--out", str(archive)]) == 0
    revealed.write_text(json.dumps({"state": finished_private_game(catalog, new_game_body, rounds=4)[1]}), "utf-8")
    return {"scenario": str(scenario), "archive": str(archive), "revealed": str(revealed)}


def bad_file(tmp_path, kind: str, contents: dict) -> str:
    path = tmp_path / f"bad-{kind.replace(' ', '-')}.yaml"
    data = contents[kind]
    if data == "dir":
        path.mkdir()
    elif data is not None:
        path.write_bytes(data)
    return str(path)


def run(argv: list[str], capsys) -> tuple[int, str]:
    code = referee(argv)
    return code, capsys.readouterr().err


def assert_names_it_once(code: int, err: str, flag: str, path: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee: error: "), err
    assert lines[0].count(path) == 1, lines[0]
    assert flag in lines[0].split(path)[0], lines[0]  # the option (or variable) stands before its file


def argv_of(template: list[str], good: dict[str, str], bad: str) -> list[str]:
    return [arg.format(bad=bad, **good) for arg in template]


@pytest.fixture
def clean_env(monkeypatch):
    """``serve`` passes its flags on in the environment: a copy, dropped after the test."""
    monkeypatch.setattr(os, "environ", {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")})


@pytest.mark.parametrize("kind", BAD_CATALOGS)
@pytest.mark.parametrize("command", READERS)
def test_a_bad_catalog_is_named_once(tmp_path, capsys, good, clean_env, command, kind):
    bad = bad_file(tmp_path, kind, BAD_CATALOGS)
    assert_names_it_once(*run(argv_of(READERS[command], good, bad), capsys), "--catalog", bad)


@pytest.mark.parametrize("kind", BAD_CATALOGS)
@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["verify-deal", "{revealed}"]], ids=lambda c: c[0])
def test_a_bad_catalog_variable_is_named_once(tmp_path, capsys, good, clean_env, command, kind):
    bad = bad_file(tmp_path, kind, BAD_CATALOGS)
    os.environ["REFEREE_CATALOG"] = bad
    assert_names_it_once(*run(argv_of(command, good, bad), capsys), "REFEREE_CATALOG=", bad)


@pytest.mark.parametrize("kind", BAD_INPUTS)
@pytest.mark.parametrize("command", INPUT_FILES)
def test_a_bad_input_file_is_named_once(tmp_path, capsys, good, command, kind):
    bad = bad_file(tmp_path, kind, BAD_INPUTS)
    flag = INPUT_FILES[command][INPUT_FILES[command].index("{bad}") - 1]
    assert_names_it_once(
        *run(argv_of(INPUT_FILES[command], good, bad), capsys), flag if flag.startswith("-") else "", bad
    )


@pytest.mark.parametrize("where", ["a directory", "no such directory"])
@pytest.mark.parametrize("command", WRITERS)
def test_an_output_that_cannot_be_written_is_named_once(tmp_path, capsys, good, command, where):
    bad = str(tmp_path) if where == "a directory" else str(tmp_path / "nowhere" / "out.txt")
    flag = WRITERS[command][WRITERS[command].index("{bad}") - 1]
    code, err = run(argv_of(WRITERS[command], good, bad), capsys)
    assert_names_it_once(code, err, flag, bad)
    assert "cannot write" in err


def test_check_junit_into_a_missing_directory_stops_before_any_scenario_runs(tmp_path, capsys, good):
    """Given --junit into a folder that does not exist, when checking, then the error comes first: no scenario
    has run (nothing on stdout), instead of a report lost after the whole run."""
    bad = str(tmp_path / "nowhere" / "junit.xml")
    code = referee(["check", good["scenario"], "--junit", bad])
    out, err = capsys.readouterr()
    assert_names_it_once(code, err, "--junit", bad)
    assert "cannot write: No such file or directory" in err
    assert out == ""


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["check", "{bad}"], ""),
        (["replay", "{bad}"], ""),
        (["check", "--catalog", "{bad}", "{scenario}"], "--catalog"),
        (["recheck", "{bad}"], ""),
    ],
    ids=["check PATH", "replay FILE", "check --catalog", "recheck ARCHIVE"],
)
def test_a_missing_file_is_worded_the_same_everywhere(tmp_path, capsys, good, argv, flag):
    bad = str(tmp_path / "missing.yaml")
    code, err = run(argv_of(argv, good, bad), capsys)
    assert_names_it_once(code, err, flag, bad)
    assert err.strip().endswith(f"{bad}: cannot read: No such file or directory"), err


def test_a_missing_catalog_variable_is_worded_as_every_reader_words_it(tmp_path):
    from referee.service.config import ConfigError, Settings

    bad = str(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"REFEREE_CATALOG": bad})
    assert str(caught.value) == f"REFEREE_CATALOG={bad}: cannot read: No such file or directory"
