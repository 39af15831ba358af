"""Game records on the command line (docs/records.md, docs/scenarios.md): ``referee record`` writes them (one or
``--games N``, in ``--jobs`` processes) from random play, a replay body or a record; ``replay`` names a record's
first illegal line; ``check`` and ``recheck`` read records; bad files are one line and exit 2."""

from __future__ import annotations

import json

import pytest

from referee.cli import main as referee
from referee.engine import Catalog
from referee.engine.playout import play_out
from referee.engine.records import read, record_text
from referee.service.app import create_app
from referee.service.config import Settings

BUILTIN = Catalog.builtin()


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = referee(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_a_replay_body_given_as_actions_is_played_on_its_own_game_without_a_seed(tmp_path, capsys):
    """docs/scenarios.md promises it: the body's game is the one played (not random decks), --seed not needed."""
    game, state, actions = play_out(BUILTIN, "cli-body")
    body = tmp_path / "game.json"
    body.write_text(json.dumps({"game": game, "actions": actions}))
    out = tmp_path / "game.afr"
    code, _, err = run(capsys, "record", "--actions", str(body), "--out", str(out))
    assert code == 0, err
    text = out.read_text("utf-8")
    assert text == record_text(BUILTIN, game, actions)
    assert read(text).result == state["result"]


def test_a_newgame_without_first_player_is_dealt_as_the_service_deals_it(tmp_path, capsys):
    """The scenario default first_player 0 is not the service's: the seed chooses (RULES 5.2), and both agree."""
    game, _, _ = play_out(BUILTIN, "cli-first")
    game = {"decks": game["decks"], "seed": "first-3"}
    dealt = create_app(Settings(log_requests=False), BUILTIN).test_client().post("/v1/games", json=game).json["state"]
    (tmp_path / "g.json").write_text(json.dumps(game))
    (tmp_path / "a.json").write_text(json.dumps([{"type": "keep", "player": dealt["active"]}]))
    out = tmp_path / "r.afr"
    code, _, err = run(
        capsys, "record", "--game", str(tmp_path / "g.json"), "--actions", str(tmp_path / "a.json"), "-o", str(out)
    )
    assert code == 0, err
    assert read(out.read_text()).tags["FirstPlayer"] == f"{dealt['first_player']} drawn"
    scenario = tmp_path / "r.yaml"
    assert (
        run(
            capsys,
            "record",
            "--game",
            str(tmp_path / "g.json"),
            "--actions",
            str(tmp_path / "a.json"),
            "-o",
            str(scenario),
        )[0]
        == 0
    )
    assert run(capsys, "check", str(scenario))[0] == 0


def test_a_record_given_as_actions_is_written_again_byte_for_byte(tmp_path, capsys):
    game, _, actions = play_out(BUILTIN, "cli-again")
    first = tmp_path / "a.afr"
    first.write_text(record_text(BUILTIN, game, actions))
    code, out, _ = run(capsys, "record", "--afr", "--actions", str(first))
    assert code == 0 and out == first.read_text()


def test_games_n_in_processes_writes_the_same_files_as_one_process(tmp_path, capsys):
    one, two = tmp_path / "one", tmp_path / "two"
    assert (
        run(capsys, "record", "--seed", "many", "--games", "3", "--afr", "--out", str(one), "--max-actions", "30")[0]
        == 0
    )
    assert (
        run(
            capsys,
            "record",
            "--seed",
            "many",
            "--games",
            "3",
            "--afr",
            "-o",
            str(two),
            "--max-actions",
            "30",
            "--jobs",
            "2",
        )[0]
        == 0
    )
    names = sorted(p.name for p in one.iterdir())
    assert names == ["game-many-1.afr", "game-many-2.afr", "game-many-3.afr"]
    assert [(one / n).read_text() for n in names] == [(two / n).read_text() for n in names]
    archive = tmp_path / "many.jsonl"
    assert (
        run(capsys, "record", "--seed", "many", "--games", "3", "--jsonl", "-o", str(archive), "--max-actions", "30")[0]
        == 0
    )
    assert len(archive.read_text().splitlines()) == 3
    code, out, _ = run(capsys, "check", str(one))
    assert code == 0 and out.splitlines()[-1] == "3 passed, 0 failed"
    code, out, _ = run(capsys, "recheck", str(one), "-q")
    assert code == 0 and out.splitlines()[-1].startswith("3 game(s) re-checked: 3 unchanged")


def test_replay_of_a_record_names_its_first_illegal_line_and_checks_the_result(tmp_path, capsys):
    game, _, actions = play_out(BUILTIN, "cli-replay")
    text = record_text(BUILTIN, game, actions)
    good = tmp_path / "good.afr"
    good.write_text(text)
    code, out, _ = run(capsys, "replay", str(good))
    assert code == 0 and f"all {len(actions)} action(s) legal" in out
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("5. "))
    lines[at] = lines[at].split(" ;")[0].rsplit(" ", 1)[0] if "=" in lines[at] else lines[at]
    lines[at] = "5. " + lines[at].split(" ", 2)[1] + " concede"
    lines[at + 1 :] = [line for line in lines[at + 1 :] if not line[:1].isdigit()]
    bent = tmp_path / "bent.afr"
    bent.write_text("\n".join(lines).replace(f'[Result "{read(text).tags["Result"]}"]', '[Result "*"]'))
    code, out, _ = run(capsys, "replay", str(bent))
    assert code == 1 and 'the record says [Result "*"]' in out
    lines[at] = "5. P0 draw" if "5. P1" in text else "5. P1 draw"
    illegal = tmp_path / "illegal.afr"
    illegal.write_text("\n".join(lines))
    code, out, _ = run(capsys, "replay", str(illegal))
    assert code == 1 and out.startswith(f"{illegal}:{at + 1}: move 5 of 5 is illegal")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'\xef\xbb\xbf[Catalog "x"]\n', ":1: the record starts with a byte order mark"),
        (b'[Catalog "x"]\r\n', ":1: the line ends with CR LF"),
        (
            b'[Catalog "af-ref sha256:' + b"0" * 64 + b'"]\n' + b'[Player0 "' + b"x" * 50_000_000 + b'"]\n',
            ":2: the line is longer than",
        ),
    ],
)
def test_a_bad_record_file_is_one_line_naming_the_line_and_exit_2(tmp_path, capsys, content, words):
    path = tmp_path / "bad.afr"
    path.write_bytes(content)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    code, out, _ = run(capsys, "check", str(path))
    assert code == 2 and words in out


def test_recheck_reads_one_record_file_as_a_record(tmp_path, capsys):
    game, _, actions = play_out(BUILTIN, "recheck-one")
    good = tmp_path / "good.afr"
    good.write_text(record_text(BUILTIN, game, actions))
    code, out, _ = run(capsys, "recheck", str(good), "-q")
    assert code == 0 and out.splitlines()[-1].startswith("1 game(s) re-checked: 1 unchanged"), out
    named_otherwise = tmp_path / "game.txt"  # a record by its first line, whatever its name
    named_otherwise.write_text(good.read_text())
    code, out, _ = run(capsys, "recheck", str(named_otherwise), "-q")
    assert code == 0 and "1 unchanged" in out
    bad = tmp_path / "bad.afr"
    bad.write_bytes(b'[Catalog "x"]\r\n')
    code, out, err = run(capsys, "recheck", str(bad), "-q")
    assert code == 2 and ":1: the line ends with CR LF" in out + err and "not JSON" not in out + err
