"""A malformed scenario file: a clear one-line error naming file, line and field; exit 2; never a traceback."""

from __future__ import annotations

import textwrap

import pytest

from referee.cli import main as referee


def check(tmp_path, capsys, text: str, name: str = "bad.yaml") -> tuple[int, str, str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    code = referee(["check", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


GOOD_GIVEN = "given: {position: {}}\n"


@pytest.mark.parametrize(
    "text, where, message",
    [
        # YAML syntax
        ("given: {position: {}\nthen: {legal: true}\n", ":2:", "not valid YAML"),
        (
            "given: {position: {}}\nwhen:\n  - {type: play_fairy, player: 0, card: @p0.hand.AF-001}\nthen: {}\n",
            ":3:",
            "a value starting with @ must be quoted",
        ),
        ("given: {position: {}}\ngiven: {position: {}}\nthen: {legal: true}\n", ":2: given:", "this key appears twice"),
        # the schema
        (
            "given: {position: {}}\nthen:\n  legal: true\n  p0.hnad: 3\n",
            ":4: then.p0.hnad:",
            "unknown key 'p0.hnad' (did you mean 'p0.hand'?)",
        ),
        # a misspelt key is named, with the right one (issue 40): not "then is a required property"
        (
            GOOD_GIVEN + "when: [{type: draw, player: 0}]\nthan: {legal: true}\n",
            ":3: than:",
            "unknown key 'than' (did you mean 'then'?)",
        ),
        (
            "given: {position: {p0: {hnad: [AF-004]}}}\nthen: {legal: true}\n",
            ":1: given.position.p0.hnad:",
            "unknown key 'hnad' (did you mean 'hand'?)",
        ),
        # what the catalog and the action types do not hold is a mistake in the file, not a rule failure
        (
            "given: {position: {p0: {cases: [AF-042]}}}\nwhen:\n  - {type: drow, player: 0}\nthen: {legal: true}\n",
            ":3: when.0.type:",
            "unknown action type 'drow' (did you mean 'draw'?)",
        ),
        (
            "given:\n  position:\n    p0: {cases: [AF-042], hand: [AF-004, AF-999]}\nthen: {legal: true}\n",
            ":3: given.position.p0.hand.1:",
            "AF-999 is not a card of the catalog af-ref",
        ),
        (
            "given:\n  position:\n    p0: {cases: [{card: AF-942}]}\nthen: {legal: true}\n",
            ":3: given.position.p0.cases.0.card:",
            "AF-942 is not a card of the catalog af-ref (did you mean 'AF-042'?)",
        ),
        (
            "given: {game: {decks: [{top: [AF-004, AF-999]}, {top: []}]}}\nthen: {legal: true}\n",
            ":1: given.game.decks.0.top.1:",
            "AF-999 is not a card of the catalog",
        ),
        (
            "given: {position: {p0: {cases: [AF-042], hand: [AF-004]}}}\n"
            "when:\n  - {type: play_fairy, player: 0, card: p0.hand.AF-999}\nthen: {legal: true}\n",
            ":3: when.0.card:",
            "AF-999 is not a card of the catalog",
        ),
        (
            "given: {position: {p0: {cases: [AF-042]}}}\n"
            "when:\n  - {type: drow, player: 0}\n  - {type: draw, player: 0}\nthen: {violation: {rule: '8.2'}}\n",
            ":3: when.0.type:",
            "unknown action type 'drow'",
        ),
        ("given: {position: {}}\nthen:\n  p0.hand: lots\n", ":3: then.p0.hand:", "must be a count, the exact list"),
        ("given: {position: {}}\nthen:\n  turn: one\n", ":3: then.turn:", 'is not of type "integer"'),
        (
            "given: {position: {p0: {hand: AF-001}}}\nthen: {legal: true}\n",
            ":1: given.position.p0.hand:",
            "is not of type",
        ),
        (
            "given: {position: {}, game: {decks: []}}\nthen: {legal: true}\n",
            ":1: given:",
            "give exactly one of game, state, position",
        ),
        ("then: {legal: true}\n", ":1: (top level):", '"given" is a required property'),
        ("given: {position: {}}\nwhen: [draw]\nthen: {legal: true}\n", ":2: when.0:", 'is not of type "object"'),
        ("given: {position: {}}\nthen: {legal: false}\n", ":2: then.legal:", "legal can only be true"),
        # cross-field rules
        ("rule: '99.9'\n" + GOOD_GIVEN + "then: {legal: true}\n", ":1: rule:", "not a rule id of the rules reference"),
        (GOOD_GIVEN + "then: {violation: {rule: '8.10'}}\n", ":2: then.violation.rule:", "8.10 is not a rule id"),
        (
            GOOD_GIVEN + "then: {violation: {rule: '8.2'}, error: {status: 400}}\n",
            ":2: then:",
            "violation or error, not both",
        ),
        (GOOD_GIVEN + "then: {legal: true, violation: {rule: '8.2'}}\n", ":2: then.legal:", "contradicts violation"),
        (
            GOOD_GIVEN + "when: [{type: draw, player: 0}]\nthen: {violation: {rule: '8.2', index: 3}}\n",
            ":3: then.violation.index:",
            "there is no action 3",
        ),
        (
            GOOD_GIVEN + "when:\n  - {type: play_fairy, player: 0, card: p0.deck.AF-001}\nthen: {legal: true}\n",
            ":3: when.0.card:",
            "unknown zone",
        ),
        (
            GOOD_GIVEN + "when:\n  - {type: discard, player: 0, cards: [p0.hand.0, p3.hand.0]}\nthen: {legal: true}\n",
            ":3: when.0.cards.1:",
            "starts with p0. or p1.",
        ),
        # not a scenario at all
        ("- just\n- a list\n", ":1:", "a scenario is a mapping"),
        ("", "bad.yaml:", "the file holds no scenario"),
        # a given that cannot be built
        (
            "given:\n  position:\n    p0: {hand: [AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004,\n"
            "                AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004,\n"
            "                AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004,\n"
            "                AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004, AF-004]}\n"
            "then: {legal: true}\n",
            ":3: given.position.p0:",
            "given 41 cards",
        ),
        (
            "given:\n  position:\n    p0: {hand: [AF-004], file: {top: [AF-005], count: 40}}\nthen: {legal: true}\n",
            ":3: given.position.p0.file:",
            "cannot hold 40 card(s)",
        ),
        (
            "given:\n  position:\n    p0:\n      cases: [AF-043, AF-043]\n      fairies: [{card: AF-004, case: AF-043}]\n"
            "then: {legal: true}\n",
            ":5: given.position.p0.fairies.0.case:",
            "names 2 cards on the field",
        ),
    ],
)
def test_malformed_file_is_reported_with_line_and_field(tmp_path, capsys, text, where, message):
    code, out, err = check(tmp_path, capsys, text)
    assert code == 2
    assert "Traceback" not in out + err
    error_lines = [line for line in out.splitlines() if line.startswith("ERROR ")]
    assert len(error_lines) == 1, out
    line = error_lines[0]
    assert str(tmp_path / "bad.yaml") in line
    assert where in line and message in line, line
    assert out.rstrip().splitlines()[-1] == "0 passed, 0 failed, 1 malformed"


def test_not_utf8(tmp_path, capsys):
    path = tmp_path / "latin.yaml"
    path.write_bytes("name: caf\xe9\n".encode("latin-1"))
    code = referee(["check", str(path)])
    out, _ = capsys.readouterr()
    assert code == 2 and "not UTF-8" in out


def test_one_malformed_document_does_not_hide_the_others(tmp_path, capsys):
    code, out, _ = check(
        tmp_path,
        capsys,
        """
        given: {position: {}}
        then: {turn: 1}
        ---
        given: {position: {}}
        then: {turn: first}
        ---
        given: {position: {}}
        then: {turn: 2}
    """,
    )
    assert code == 2
    lines = out.splitlines()
    assert lines[0].startswith("ok   ") and lines[0].split()[1].endswith("bad.yaml")
    assert lines[1].startswith("ERROR ") and ":5: then.turn:" in lines[1]
    assert lines[2].startswith("FAIL ") and "bad.yaml#3" in lines[2]
    assert lines[-1] == "1 passed, 1 failed, 1 malformed"


def test_missing_path_and_empty_directory(tmp_path, capsys):
    assert referee(["check", str(tmp_path / "nope.yaml")]) == 2
    assert "cannot read: No such file or directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert referee(["check", str(tmp_path / "empty")]) == 2
    assert "no scenario files" in capsys.readouterr().err


def test_bad_catalog_option(tmp_path, capsys):
    bad = tmp_path / "cat.yaml"
    bad.write_text("id: x\ncards: []\n")
    (tmp_path / "s.yaml").write_text("given: {position: {}}\nthen: {legal: true}\n")
    assert referee(["check", "--catalog", str(bad), str(tmp_path / "s.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee: error: --catalog") and "Traceback" not in err


@pytest.mark.parametrize(
    "text",
    [
        # the unknown type is the point: the step is the one expected to be refused
        "given: {position: {}}\nwhen: [{type: fly, player: 0}]\nthen: {error: {status: 400, code: invalid_schema}}\n",
        # ... or a refusal at whichever step it comes
        "given: {position: {p0: {cases: [AF-042]}}}\n"
        "when: [{type: draw, player: 0}, {type: fly, player: 0}]\n"
        "then: {error: {status: 400, code: invalid_schema, index: any}}\n",
        # an unknown card in the given, which is expected to be refused (RULES 3.4)
        "given: {game: {decks: [{top: [AF-999]}, {top: []}]}}\nthen: {violation: {rule: '3.4', code: unknown_card}}\n",
    ],
)
def test_an_unknown_name_at_the_step_expected_to_be_refused_is_the_scenarios_point(tmp_path, capsys, text):
    code, out, err = check(tmp_path, capsys, text)
    assert code == 0, out + err
    assert out.splitlines()[-1] == "1 passed, 0 failed"


FAILING = "given: {position: {p0: {cases: [AF-042]}}}\nwhen: [{type: draw, player: 0}]\nthen: {turn: 5}\n"


def test_a_failures_hint_in_process_names_no_address(tmp_path, capsys):
    """Issue 40: the hint under a failure named http://127.0.0.1:8000/table whatever referee ran; in-process it
    names the table page and no made-up address."""
    code, out, _ = check(tmp_path, capsys, FAILING)
    assert code == 1
    [hint] = [line.strip() for line in out.splitlines() if "see it on the table" in line]
    assert "http" not in hint and "8000" not in hint
    assert hint.endswith("load failed.json in Replay on the table page (/table of a running referee)")


def test_a_failures_hint_over_http_names_the_table_of_the_referee_at_url(tmp_path):
    import io

    import httpx

    from referee.client import RefereeClient
    from referee.scenarios.backends import Http
    from referee.scenarios.check import check as run_check
    from referee.service.app import create_app
    from referee.service.config import Settings

    url = "http://referee.test:9123/"
    app = create_app(Settings(log_requests=False))
    backend = Http(url, client=RefereeClient(url, transport=httpx.WSGITransport(app=app)))
    (tmp_path / "fails.yaml").write_text(FAILING, "utf-8")
    out = io.StringIO()
    try:
        run_check([tmp_path], backend, out=out)
    finally:
        backend.close()
    [hint] = [line.strip() for line in out.getvalue().splitlines() if "see it on the table" in line]
    assert hint.endswith("load failed.json in Replay at http://referee.test:9123/table")
