"""Scale: ``referee check --jobs/--dask`` give today's output, and ``referee recheck`` over game archives.

The Dask tests run a real ``distributed.LocalCluster`` (two worker processes,
one thread each, loopback only), started once for the module.
"""

from __future__ import annotations

import copy
import gzip
import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import local_cluster

from referee.cli import main as referee
from referee.engine import Catalog
from referee.scenarios.archive import line_for
from referee.scenarios.record import record

ROOT = Path(__file__).resolve().parent.parent
FAILING = """name: deliberately wrong
given: {position: {p0: {cases: [AF-042], file: [AF-006]}}}
when: [{type: draw, player: 0}]
then: {p0.hand: [AF-004]}
"""
MALFORMED = "given: {position: {}}\nthen: {turn: first}\n"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = referee(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory) -> Path:
    """The examples, plus a failing and a malformed file (so every kind of line is compared)."""
    folder = tmp_path_factory.mktemp("scale") / "scenarios"
    shutil.copytree(ROOT / "examples" / "scenarios", folder)
    (folder / "zz-failing.yaml").write_text(FAILING, "utf-8")
    (folder / "zz-malformed.yaml").write_text(MALFORMED, "utf-8")
    return folder


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """Six random games, played to the end, as `referee record --jsonl` writes them."""
    catalog = Catalog.builtin()
    path = tmp_path_factory.mktemp("archive") / "games.jsonl"
    lines = []
    for i in range(6):
        rec = record(catalog, f"archive-{i}")
        lines.append(line_for(f"game {i}", catalog, rec.game, rec.actions, rec.state))
    path.write_bytes(b"".join(lines))
    return path


def junit_without_times(path: Path) -> bytes:
    root = ET.parse(path).getroot()
    for node in root.iter():
        for key in ("time", "timestamp"):
            node.attrib.pop(key, None)
    return ET.tostring(root)


# -- check --jobs ----------------------------------------------------------------


def test_check_with_two_jobs_prints_byte_for_byte_what_one_job_prints(scenarios, tmp_path, capsys):
    one = run(capsys, "check", str(scenarios), "--jobs", "1", "--junit", str(tmp_path / "one.xml"))
    two = run(capsys, "check", str(scenarios), "--jobs", "2", "--junit", str(tmp_path / "two.xml"))
    assert one[0] == two[0] == 2  # the malformed file wins
    assert one[1] == two[1]
    assert one[1].splitlines()[-1].endswith(" passed, 1 failed, 1 malformed")
    assert junit_without_times(tmp_path / "one.xml") == junit_without_times(tmp_path / "two.xml")


def test_check_jobs_with_a_custom_catalog_plays_it_in_the_workers(tmp_path, capsys):
    """The workers get the catalog itself: a scenario that only passes with it passes with --jobs 2 too."""
    catalog = Catalog.builtin().canonical
    mini = copy.deepcopy(catalog)
    for card in mini["cards"]:
        if card["id"] == "AF-060":
            card["effect"] = [{"draw": 1}]
    (tmp_path / "mini.json").write_text(json.dumps(mini), "utf-8")
    folder = tmp_path / "s"
    folder.mkdir()
    for i in range(3):
        (folder / f"{i}.yaml").write_text(
            "given: {position: {p0: {hand: [AF-060], cases: [AF-043], file: 5}}}\n"
            "when: [{type: cast_spell, player: 0, card: p0.hand.AF-060}]\n"
            "then: {p0.hand: 1}\n",
            "utf-8",
        )
    builtin = run(capsys, "check", "-q", str(folder), "--jobs", "2")
    custom = run(capsys, "check", "-q", str(folder), "--jobs", "2", "--catalog", str(tmp_path / "mini.json"))
    assert (builtin[0], builtin[1].splitlines()[-1]) == (1, "0 passed, 3 failed")
    assert (custom[0], custom[1].splitlines()[-1]) == (0, "3 passed, 0 failed")


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_check_jobs_must_be_a_positive_integer(capsys, value):
    with pytest.raises(SystemExit) as exc:
        referee(["check", str(ROOT / "examples" / "scenarios"), "--jobs", value])
    assert exc.value.code == 2
    assert "not a positive integer" in capsys.readouterr().err


def test_check_dask_with_a_bad_address_is_one_line(capsys):
    code, _out, err = run(capsys, "check", str(ROOT / "examples" / "scenarios"), "--dask", "no-port-here")
    assert code == 2
    assert err.startswith("referee: error: --dask no-port-here: not a scheduler address") and err.count("\n") == 1


# -- recheck ---------------------------------------------------------------------


def test_recheck_with_the_same_catalog_changes_nothing(archive, tmp_path, capsys):
    code, out, _ = run(capsys, "recheck", str(archive), "--jobs", "1", "--report", str(tmp_path / "r.json"))
    assert code == 0
    assert out == "6 game(s) re-checked: 6 unchanged, 0 outcome changed, 0 legality changed, 0 malformed\n"
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"] == {
        "games": 6,
        "unchanged": 6,
        "outcome_changed": 0,
        "legality_changed": 0,
        "malformed": 0,
    }
    assert report["catalog"]["id"] == "af-ref" and report["changes"] == []


def test_recheck_reads_gzip_whatever_the_name(archive, tmp_path, capsys):
    packed = tmp_path / "games.jsonl.gz"
    packed.write_bytes(gzip.compress(archive.read_bytes()))
    code, out, _ = run(capsys, "recheck", str(packed), "--jobs", "1")
    assert (code, out.splitlines()[-1]) == (
        0,
        "6 game(s) re-checked: 6 unchanged, 0 outcome changed, 0 legality changed, 0 malformed",
    )


def _game_ending_with_flash_of_insight(catalog: Catalog) -> tuple[bytes, int]:
    """A recorded game cut just after a Flash of Insight (AF-060, draw 2) is cast: not over."""
    for i in range(40):
        full = record(catalog, f"flash-{i}")
        casts = [
            k
            for k, a in enumerate(full.actions)
            if a["type"] == "cast_spell" and str(a.get("card", "")).split("#")[0].endswith("AF-060")
        ]
        if casts:
            cut = record(catalog, f"flash-{i}", full.game, full.actions[: casts[0] + 1])
            assert cut.state["result"] is None
            return line_for(f"flash-{i}", catalog, cut.game, cut.actions, cut.state), casts[0]
    raise AssertionError("no random game casts AF-060 in 40 seeds")  # pragma: no cover


def test_recheck_finds_the_game_whose_outcome_a_catalog_erratum_changes(archive, tmp_path, capsys):
    """Given an archive with a game whose last action casts Flash of Insight, when the erratum makes it
    draw 40, then that game now ends (deck out, RULES 11.1) where it did not: its outcome changed."""
    catalog = Catalog.builtin()
    line, _index = _game_ending_with_flash_of_insight(catalog)
    mixed = tmp_path / "games.jsonl"
    mixed.write_bytes(archive.read_bytes()[:0] + line + archive.read_bytes())
    erratum = copy.deepcopy(catalog.canonical)
    for card in erratum["cards"]:
        if card["id"] == "AF-060":
            card["effect"] = [{"draw": 40}]
    (tmp_path / "erratum.json").write_text(json.dumps(erratum), "utf-8")
    code, out, _ = run(
        capsys,
        "recheck",
        str(mixed),
        "--catalog",
        str(tmp_path / "erratum.json"),
        "--jobs",
        "1",
        "--report",
        str(tmp_path / "r.json"),
    )
    assert code == 1
    first = out.splitlines()[0]
    assert re.fullmatch(
        rf"CHANGED {re.escape(str(mixed))}:1 flash-\d+: outcome: was not over, "
        r"now player [01] wins \(deck_out\)",
        first,
    ), first
    report = json.loads((tmp_path / "r.json").read_text())
    change = report["changes"][0]
    assert (change["line"], change["status"], change["recorded"]) == (1, "outcome", {"refused": None, "result": None})
    assert change["now"]["result"]["reason"] == "deck_out" and change["now"]["refused"] is None
    assert report["summary"]["outcome_changed"] >= 1 and report["summary"]["games"] == 7


def test_recheck_reports_a_game_that_becomes_illegal(tmp_path, capsys):
    """A deck limit erratum: the game's deck is now illegal (RULES 3.2), so the game itself is refused."""
    catalog = Catalog.builtin()
    rec = record(catalog, "limit", max_actions=3)
    (tmp_path / "games.jsonl").write_bytes(line_for("limit", catalog, rec.game, rec.actions, rec.state))
    deck = rec.game["decks"][0]
    card_id = max(set(deck), key=deck.count)
    erratum = copy.deepcopy(catalog.canonical)
    for card in erratum["cards"]:
        if card["id"] == card_id:
            card["deck_limit"] = 1
    (tmp_path / "erratum.json").write_text(json.dumps(erratum), "utf-8")
    code, out, _ = run(capsys, "recheck", str(tmp_path / "games.jsonl"), "--catalog", str(tmp_path / "erratum.json"))
    assert code == 1
    assert out.splitlines()[0].startswith(
        f"CHANGED {tmp_path / 'games.jsonl'}:1 limit: legality: was not over, now the game refused: rule 3.2 ("
    )


BAD_LINES = [
    ("{not json", r"not JSON: "),
    ("[1, 2]", r"a line is one JSON object"),
    ('{"game": {}, "actions": []}', r"outcome: required"),
    ('{"game": {}, "actions": [], "outcome": {}, "colour": 1}', r"colour: unknown field"),
    ('{"game": {}, "actions": [], "outcome": {"result": "won"}}', r"outcome.result: must be null or"),
    ('{"game": {}, "actions": [], "outcome": {"refused": {"at": -1}}}', r"outcome.refused: must be null or"),
    ('{"id": 7, "game": {}, "actions": [], "outcome": {}}', r"id: must be a string"),
    ('{"game": {}, "actions": [], "outcome": {}}', r"game.decks: must be a list of exactly two decks"),
]


@pytest.mark.parametrize("text,message", BAD_LINES, ids=[m for _, m in BAD_LINES])
def test_recheck_names_the_file_the_line_and_what_is_wrong(archive, tmp_path, capsys, text, message):
    path = tmp_path / "games.jsonl"
    good = archive.read_bytes().splitlines(keepends=True)
    path.write_bytes(good[0] + b"\n" + text.encode() + b"\n" + good[1])
    code, out, _ = run(capsys, "recheck", str(path), "--jobs", "1")
    assert code == 2
    lines = out.splitlines()
    assert re.match(rf"ERROR {re.escape(str(path))}:3: {message}", lines[0]), lines[0]
    assert lines[
        -1
    ] == "2 game(s) re-checked: 1 unchanged, 0 outcome changed, 0 legality changed, 1 malformed" or lines[
        -1
    ].startswith("3 game(s) re-checked: 2 unchanged")


def test_recheck_an_action_not_of_the_api_shape_is_a_malformed_line(archive, tmp_path, capsys):
    game = json.loads(archive.read_bytes().splitlines()[0])
    game["actions"][3] = {"type": "dance", "player": 0}
    (tmp_path / "games.jsonl").write_text(json.dumps(game) + "\n", "utf-8")
    code, out, _ = run(capsys, "recheck", str(tmp_path / "games.jsonl"), "--jobs", "1")
    assert code == 2
    assert out.splitlines()[0] == f"ERROR {tmp_path / 'games.jsonl'}:1: actions.3.type: unknown action type 'dance'"


@pytest.mark.parametrize(
    "content,message",
    [
        (None, "cannot read: No such file or directory"),
        (b"\n\n", "holds no game"),
        (gzip.compress(b'{"a": 1}\n' * 50)[:-20], "the gzip data is damaged or cut short"),
    ],
)
def test_recheck_an_unusable_archive_is_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "games.jsonl.gz"
    if content is not None:
        path.write_bytes(content)
    code, _, err = run(capsys, "recheck", str(path), "--jobs", "1")
    assert code == 2
    assert err.startswith(f"referee: error: {path}") and message in err and err.count("\n") == 1


def test_record_jsonl_appends_a_line_recheck_reads(tmp_path, capsys):
    code, out, _ = run(capsys, "record", "--seed", "s1", "--max-actions", "20", "--jsonl")
    assert code == 0 and out.count("\n") == 1
    line = json.loads(out)
    assert (line["id"], len(line["actions"]), line["outcome"]) == ("seed s1", 20, {"refused": None, "result": None})
    (tmp_path / "a.jsonl").write_text(out * 2, "utf-8")
    assert run(capsys, "recheck", str(tmp_path / "a.jsonl"))[0] == 0


# -- the same work on a Dask cluster --------------------------------------------


@pytest.fixture(scope="module")
def dask_scheduler():
    with local_cluster(2) as scheduler:
        yield scheduler


def test_check_on_dask_gives_what_one_job_gives(dask_scheduler, scenarios, tmp_path, capsys):
    one = run(capsys, "check", str(scenarios), "--jobs", "1", "--junit", str(tmp_path / "one.xml"))
    dask = run(capsys, "check", str(scenarios), "--dask", dask_scheduler, "--junit", str(tmp_path / "dask.xml"))
    assert dask[:2] == one[:2]
    assert junit_without_times(tmp_path / "dask.xml") == junit_without_times(tmp_path / "one.xml")


def _changed_archive(archive: Path, tmp_path: Path) -> list[str]:
    """A gzip archive with a game the erratum changes and a broken line; the recheck arguments for it."""
    catalog = Catalog.builtin()
    line, _ = _game_ending_with_flash_of_insight(catalog)
    path = tmp_path / "games.jsonl.gz"
    path.write_bytes(gzip.compress(line + archive.read_bytes() + b"{broken\n"))
    erratum = copy.deepcopy(catalog.canonical)
    for card in erratum["cards"]:
        if card["id"] == "AF-060":
            card["effect"] = [{"draw": 40}]
    (tmp_path / "erratum.json").write_text(json.dumps(erratum), "utf-8")
    return ["recheck", str(path), "--catalog", str(tmp_path / "erratum.json")]


def test_recheck_with_two_jobs_reports_what_one_job_reports(archive, tmp_path, capsys):
    common = _changed_archive(archive, tmp_path)
    one = run(capsys, *common, "--jobs", "1", "--report", str(tmp_path / "one.json"))
    two = run(capsys, *common, "--jobs", "2", "--report", str(tmp_path / "two.json"))
    assert two[:2] == one[:2] and one[0] == 2
    assert one[1].startswith("CHANGED ") and "ERROR " in one[1]
    assert (tmp_path / "two.json").read_bytes() == (tmp_path / "one.json").read_bytes()


def test_recheck_on_dask_gives_what_one_job_gives(dask_scheduler, archive, tmp_path, capsys):
    common = _changed_archive(archive, tmp_path)
    one = run(capsys, *common, "--jobs", "1", "--report", str(tmp_path / "one.json"))
    dask = run(capsys, *common, "--dask", dask_scheduler, "--report", str(tmp_path / "dask.json"))
    assert dask[:2] == one[:2] and one[0] == 2
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "one.json").read_bytes()


def test_recheck_of_a_directory_of_records_on_dask_gives_what_one_job_gives(dask_scheduler, tmp_path, capsys):
    """A directory of `.afr` records is an archive (docs/scenarios.md) on a Dask cluster too: each record is
    sent to a worker as its bytes; one whose Result the game no longer gives is reported, by its file."""
    folder = tmp_path / "records"
    assert run(capsys, "record", "--seed", "d", "--games", "3", "--afr", "--out", str(folder), "--jobs", "1")[0] == 0
    changed = folder / "game-d-2.afr"
    text = changed.read_text()
    result = next(line for line in text.splitlines() if line.startswith("[Result "))
    changed.write_text(text.replace(result, '[Result "*"]'))
    common = ["recheck", str(folder)]
    one = run(capsys, *common, "--jobs", "1", "--report", str(tmp_path / "one.json"))
    dask = run(capsys, *common, "--dask", dask_scheduler, "--report", str(tmp_path / "dask.json"))
    assert dask[:2] == one[:2] and one[0] == 1
    assert one[1].startswith("CHANGED ") and "game-d-2.afr" in one[1]
    assert one[1].splitlines()[-1].startswith("3 game(s) re-checked: 2 unchanged, 1 outcome changed")
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "one.json").read_bytes()


@pytest.mark.e2e
def test_the_records_docs_commands_run_as_written(dask_scheduler, serve, tmp_path, monkeypatch, capsys):
    """docs/records.md, "Saving and checking games": play saves records, which replay in-process and on a
    running referee, and recheck reads their directory on local processes and on Dask alike."""
    import shlex

    doc = (ROOT / "docs" / "records.md").read_text("utf-8").split("## Saving and checking games", 1)[1]
    block = re.search(r"```sh\n(.*?)```", doc, re.S).group(1)
    server = serve(workers=1)
    monkeypatch.chdir(tmp_path)
    outputs = []
    for line in block.splitlines():
        line = line.split("  #")[0].replace("http://127.0.0.1:8000", server.url)
        argv = shlex.split(line.replace("tcp://scheduler:8786", dask_scheduler))
        assert argv[0] == "referee"
        code, out, err = run(capsys, *argv[1:])
        assert code == 0, (line, out, err)
        outputs.append(out)
    assert len(outputs) == 5 and outputs[1].startswith("games/game-0000.afr: all ") and outputs[2] == outputs[1]
    assert outputs[3] == outputs[4] and outputs[3].startswith("4 game(s) re-checked: 4 unchanged")
