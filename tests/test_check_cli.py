"""``referee check``: the lines it prints, the summary, exit codes, --junit, --catalog, -q, and --url."""

from __future__ import annotations

import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
import pytest

from referee.cli import main as referee

ROOT = Path(__file__).resolve().parent.parent
PASSING = """
name: a draw from an empty file is refused
rule: "8.2"
given: {position: {p0: {cases: [AF-042], file: 0}}}
when: [{type: draw, player: 0}]
then: {violation: {rule: "8.2", code: file_empty}}
"""
FAILING = """
name: deliberately wrong
given: {position: {p0: {cases: [AF-042], file: [AF-006]}}}
when: [{type: draw, player: 0}]
then: {p0.hand: [AF-004]}
"""
MALFORMED = "given: {position: {}}\nthen: {turn: first}\n"
IN_PROCESS_TABLE = "on the table page (/table of a running referee)"  # where a failure's hint sends the reader


def write(folder: Path, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.yaml").write_text(textwrap.dedent(text).lstrip(), "utf-8")
    return folder


def run(capsys, *args: str) -> tuple[int, list[str]]:
    code = referee(["check", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out.splitlines()


def test_all_passing_exit_0_and_summary_last(tmp_path, capsys):
    folder = write(tmp_path / "s", a=PASSING, b=PASSING)
    code, lines = run(capsys, str(folder))
    assert code == 0
    assert lines[0] == f"ok   {folder / 'a.yaml'} [8.2] a draw from an empty file is refused"
    assert lines[-1] == "2 passed, 0 failed"


def test_a_failure_exit_1_with_details(tmp_path, capsys):
    folder = write(tmp_path / "s", a=PASSING, b=FAILING)
    code, lines = run(capsys, str(folder))
    assert code == 1
    assert lines[1] == f"FAIL {folder / 'b.yaml'} deliberately wrong"
    text = "\n".join(lines)
    assert "      p0.hand (line 4):" in text
    assert "expected: [AF-004]" in text and "actual:   [AF-006]" in text
    assert lines[-1] == "1 passed, 1 failed"


def test_malformed_wins_exit_2(tmp_path, capsys):
    folder = write(tmp_path / "s", a=PASSING, b=FAILING, c=MALFORMED)
    code, lines = run(capsys, str(folder))
    assert code == 2
    assert lines[-1] == "1 passed, 1 failed, 1 malformed"
    assert any(line.startswith(f"ERROR {folder / 'c.yaml'}:2: then.turn:") for line in lines)


def test_quiet_prints_only_failures(tmp_path, capsys):
    folder = write(tmp_path / "s", a=PASSING, b=FAILING)
    code, lines = run(capsys, "-q", str(folder))
    assert code == 1
    assert not any(line.startswith("ok") for line in lines)
    assert lines[0].startswith("FAIL") and lines[-1] == "1 passed, 1 failed"


def test_files_and_directories_sorted_and_deduplicated(tmp_path, capsys):
    folder = write(tmp_path / "s", b=PASSING, a=PASSING)
    write(folder / "nested", c=PASSING)
    write(folder / ".hidden", d=FAILING)
    (folder / "notes.txt").write_text("not a scenario")
    code, lines = run(capsys, str(folder), str(folder / "a.yaml"))
    assert code == 0
    assert [line.split()[1] for line in lines[:-1]] == [
        str(folder / "a.yaml"),
        str(folder / "b.yaml"),
        str(folder / "nested" / "c.yaml"),
    ]


def test_junit_xml_parsed_back(tmp_path, capsys):
    folder = write(tmp_path / "s", a=PASSING, b=FAILING, c=MALFORMED)
    report = tmp_path / "junit.xml"
    code, _ = run(capsys, "--junit", str(report), str(folder))
    assert code == 2
    root = ET.parse(report).getroot()
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    cases = {tc.get("name"): tc for tc in suite.findall("testcase")}
    passed = cases["a draw from an empty file is refused"]
    assert passed.find("failure") is None and passed.get("file") == str(folder / "a.yaml")
    assert passed.find("properties/property").get("value") == "8.2"
    failure = cases["deliberately wrong"].find("failure")
    assert failure is not None and "expected: [AF-004]" in failure.text
    error = cases["c"].find("error")
    assert error is not None and ":2: then.turn:" in error.get("message")
    assert float(suite.get("time")) >= 0


def test_catalog_option(tmp_path, capsys):
    """A custom catalog: the scenario plays with its cards, filler included."""
    catalog = tmp_path / "mini.yaml"
    catalog.write_text(
        textwrap.dedent("""
        id: mini
        cards:
          - {id: M-1, name: Sprite, kind: fairy, power: 2}
          - {id: M-2, name: Pixie, kind: fairy, power: 1}
          - {id: M-3, name: Wisp, kind: fairy, power: 1}
          - {id: M-4, name: Imp, kind: fairy, power: 1}
          - {id: M-5, name: Glint, kind: evidence, power: 1}
          - {id: M-6, name: Mote, kind: evidence, power: 1}
          - {id: M-7, name: Puzzle, kind: case, level: 2, hit: 1}
          - {id: M-8, name: Riddle, kind: case, level: 3, hit: 1}
          - {id: M-9, name: Hint, kind: spell, cost: 1, effect: [{draw: 1}]}
          - {id: M-10, name: Snag, kind: counter, cost: 1, trigger: investigate, effect: [{negate: true}]}
          - {id: M-11, name: Lull, kind: spell, cost: 1, effect: [{ready: 1}]}
          - {id: M-12, name: Knot, kind: case, level: 1, hit: 1}
          - {id: M-13, name: Fog, kind: case, level: 4, hit: 2}
          - {id: M-14, name: Bell, kind: evidence, power: 2}
    """)
    )
    folder = write(
        tmp_path / "s",
        a="""
        given:
          position:
            p0: {cases: [M-7], fairies: [{card: M-1, case: p0.cases.M-7}]}
        when: [{type: investigate, player: 0, case: p0.cases.M-7}]
        then: {events: [{type: solved, hit: 1}], p1.trash: 1}
    """,
        b="""
        given: {game: {decks: [{top: [M-7, M-7, M-7, M-7]}, {top: []}]}}
        then: {violation: {rule: "3.2"}}
    """,
    )
    code, lines = run(capsys, "--catalog", str(catalog), str(folder))
    assert code == 0, "\n".join(lines)
    code, lines = run(capsys, str(folder))  # the built-in catalog has no M-7: the files are malformed for it
    assert code == 2
    assert "M-7 is not a card of the catalog af-ref" in lines[0]


# -- against the HTTP service -----------------------------------------------------


@pytest.fixture(scope="module")
def wsgi_backend():
    from referee.client import RefereeClient
    from referee.scenarios.backends import Http
    from referee.service.app import create_app
    from referee.service.config import Settings

    app = create_app(Settings(log_requests=False))
    client = RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=app))
    backend = Http("http://referee.test", client=client)
    yield backend
    backend.close()


def test_examples_pass_against_the_http_service_too(wsgi_backend):
    """The same scenarios, through POST /v1/games, /v1/apply, /v1/replay and /v1/legal-actions."""
    import io

    from referee.scenarios.check import check, exit_code

    out = io.StringIO()
    results, _ = check([ROOT / "examples" / "scenarios"], wsgi_backend, out=out, quiet=True)
    assert exit_code(results) == 0, out.getvalue()
    assert len(results) > 76


def test_failures_read_the_same_over_http(tmp_path, wsgi_backend):
    import io

    from referee.engine import Catalog
    from referee.scenarios.backends import InProcess
    from referee.scenarios.check import check

    folder = write(
        tmp_path / "s",
        a=PASSING,
        b=FAILING,
        c="""
        given: {position: {p0: {cases: [AF-051], fairies: [{card: AF-005, case: p0.cases.0}]}}}
        when: [{type: investigate, player: 0, case: a01}]
        then: {violation: {rule: "10.1"}}
    """,
    )
    texts = []
    for backend in (InProcess(Catalog.builtin()), wsgi_backend):
        out = io.StringIO()
        check([folder], backend, out=out)
        texts.append(out.getvalue())
    # the same but for the hints: over HTTP they name the table page of the referee at --url
    assert texts[0].replace(IN_PROCESS_TABLE, "at http://referee.test/table") == texts[1]
    assert "what it changed" in texts[1] and IN_PROCESS_TABLE not in texts[1]


def test_url_that_does_not_answer(tmp_path, capsys):
    folder = write(tmp_path / "s", a=PASSING)
    code = referee(["check", "--url", "http://127.0.0.1:9", "--timeout", "2", str(folder)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("referee: error: --url http://127.0.0.1:9") and "Traceback" not in err


def test_a_file_that_is_not_a_scenario_is_malformed_not_failed(capsys):
    # given a Markdown file named on the command line, when it is checked,
    # then the summary counts it as malformed, and exit status 2 says the same
    code, lines = run(capsys, str(ROOT / "README.md"))
    assert code == 2
    assert lines[-1] == "0 passed, 0 failed, 1 malformed"
    assert lines[0].startswith(f"ERROR {ROOT / 'README.md'}")


# -- --url reads the service's own catalog ---------------------------------------------------------


def _variant_catalog(path: Path) -> Path:
    """af-ref under another id and without 北の妖精 (AF-001), which the built-in catalog's filler starts with:
    a catalog the service is started with, whose filler is not the built-in one's."""
    import json

    from referee.engine import Catalog

    cards = [c for c in Catalog.builtin().canonical["cards"] if c["id"] != "AF-001"]
    path.write_text(json.dumps({"id": "af-ref-variant", "cards": cards}, ensure_ascii=False), "utf-8")
    return path


@pytest.mark.e2e
def test_url_against_a_service_with_another_catalog_gives_the_in_process_results_file_for_file(tmp_path, serve, capsys):
    """Given a real service started with a non-default catalog, ``check --url`` builds its positions and filler
    from the catalog the service serves (``GET /v1/cards``, with its ``name_deck_limit``): every scenario file
    reads exactly as ``check --catalog`` with that catalog in this process."""
    catalog = _variant_catalog(tmp_path / "variant.json")
    server = serve(env={"REFEREE_CATALOG": str(catalog)})
    examples = str(ROOT / "examples" / "scenarios")

    in_process = run(capsys, "--catalog", str(catalog), examples)
    over_http = run(capsys, "--url", server.url, examples)

    table = f"at {server.url}/table"  # the hints name the table page of the referee at --url
    assert over_http == (in_process[0], [line.replace(IN_PROCESS_TABLE, table) for line in in_process[1]])
    summary = re.fullmatch(r"(\d+) passed, (\d+) failed(, \d+ malformed)?", over_http[1][-1])
    # the few that pin a deal or a deck limit fail; one naming AF-001, which this catalog lacks, is malformed
    assert summary and int(summary[1]) > 140, over_http[1][-1]


def test_a_served_catalog_that_loads_as_another_is_an_error_naming_both():
    """The service's cards must load here as the catalog it names: a digest that does not match stops the
    run with both catalogs named, never a silent fallback to the built-in one."""
    from referee.engine import Catalog
    from referee.scenarios.backends import CatalogMismatch, served_catalog

    builtin = Catalog.builtin()
    body = {
        "catalog": {"id": "af-ref", "digest": "sha256:" + "0" * 64},
        "cards": [builtin.card_json(i) for i in builtin.cards],
    }
    with pytest.raises(CatalogMismatch) as caught:
        served_catalog("http://127.0.0.1:1", body, builtin.format_json())
    message = str(caught.value)
    assert f"af-ref (sha256:{'0' * 64})" in message and f"af-ref ({builtin.digest})" in message


def test_a_served_catalog_that_does_not_load_is_an_error_not_a_fallback():
    from referee.engine import Catalog
    from referee.scenarios.backends import CatalogMismatch, served_catalog

    builtin = Catalog.builtin()
    cards = [dict(builtin.card_json(i)) for i in builtin.cards]
    cards[0]["colour"] = "red"
    with pytest.raises(CatalogMismatch, match=r"serves catalog af-ref \(sha256:.*\), which does not load here"):
        served_catalog("http://127.0.0.1:1", {"catalog": builtin.ref, "cards": cards})


def test_the_served_catalog_with_its_name_deck_limit_loads_as_the_catalog_itself():
    from referee.engine import Catalog
    from referee.scenarios.backends import served_catalog

    builtin = Catalog.builtin()
    body = {"catalog": builtin.ref, "cards": [builtin.card_json(i) for i in builtin.cards]}
    assert all("name_deck_limit" in card for card in body["cards"])
    served = served_catalog("http://127.0.0.1:1", body, builtin.format_json())  # and GET /v1/formats
    assert served.digest == builtin.digest
    assert served.format_json() == builtin.format_json()


# -- --url against a referee in private mode (issue 40, item 1) ----------------------------------------


@pytest.mark.e2e
def test_url_against_a_private_mode_service_is_one_line_and_exit_2(tmp_path, serve, capsys):
    """Given a real service in private mode, ``check --url`` says in one line that the service is private
    and what the scenarios need, exit 2, before any scenario runs (no 'N passed, M failed')."""
    from conftest import STATE_KEY

    server = serve(env={"REFEREE_STATE_KEY": STATE_KEY})
    folder = write(tmp_path / "s", a=PASSING, b=FAILING)

    code = referee(["check", "--url", server.url, str(folder)])

    out, err = capsys.readouterr()
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith(f"referee: error: --url {server.url}: ")
    assert "private mode" in err and "plain mode" in err


def test_a_plain_mode_service_is_not_taken_for_a_private_one(wsgi_backend):
    """The probe that tells a private service (an empty ``POST /v1/reveal``) lets a plain one through."""
    from referee.scenarios.backends import refuse_private

    refuse_private("http://referee.test", wsgi_backend.client)
