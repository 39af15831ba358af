"""Deck lists and deck codes (docs/api.md §13, docs/formats.md): one reader, every entry point.

Round trips on random legal decks of both catalogs the suite plays with; the bad input of the
issue (long lists and lines, widths, BOM, CRLF, tabs, counts, codes cut or mistyped) is a 400 or
one command line, never a 500 or a traceback; the API, the client, the command line and a
catalog given by ``REFEREE_CATALOG``.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import referee_schemas as S
from referee.cli import main as referee
from referee.client import InvalidRequest, RefereeClient
from referee.engine import Catalog, InvalidInput
from referee.engine.decklists import (
    CODE_PREFIX,
    LIST_MAX_CHARS,
    LIST_MAX_LINES,
    DeckCodeError,
    counts_from_code,
    deck_code,
    deck_list_text,
    read_deck,
)
from referee.engine.errors import RefusedInput
from tests.rules.positions import CAT, PLUS

CATALOGS = {"af-ref": CAT, "af-ref-plus": PLUS}


@st.composite
def legal_counts(draw, catalog: Catalog) -> dict[str, int]:
    """A random legal deck (RULES 3.1–3.4) of ``catalog``, as counts."""
    names: dict[str, list[str]] = {}
    for card in catalog.cards.values():
        if card.kind != "bonus":
            names.setdefault(card.name, []).append(card.id)
    room = {name: catalog.name_limit(name) for name in names}
    counts: Counter[str] = Counter()
    order = draw(st.permutations(sorted(names)))
    for name in order:
        if sum(counts.values()) == 40:
            break
        take = draw(st.integers(1, min(room[name], 40 - sum(counts.values()))))
        cid = draw(st.sampled_from(names[name]))
        counts[cid] += take
    if sum(counts.values()) < 40:  # too few names drawn for 40: top up the cases left (never in this catalog)
        pytest.skip("catalog too small")
    return dict(counts)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(sorted(CATALOGS)))
def test_list_counts_list_and_counts_code_counts_round_trip(data, name):
    catalog = CATALOGS[name]
    counts = data.draw(legal_counts(catalog))
    text = deck_list_text(catalog, counts)
    read = read_deck(catalog, text)
    assert dict(read.counts) == counts
    assert deck_list_text(catalog, read.counts) == text  # list -> counts -> list
    code = deck_code(catalog, counts)
    assert code.startswith(CODE_PREFIX)
    assert counts_from_code(catalog, code) == counts  # counts -> code -> counts
    assert dict(read_deck(catalog, code).counts) == counts


def test_the_deck_code_is_the_shared_format_byte_for_byte():
    """payload = 0x01, 4 bytes of the digest, (varint index, count) in id order; check = sha256[:2]."""
    import hashlib

    code = deck_code(CAT, {"AF-041": 2, "AF-001": 1})
    raw = base64.urlsafe_b64decode(code.removeprefix(CODE_PREFIX) + "==")
    payload = bytes([1]) + CAT.digest_bytes[:4] + bytes([0, 1, CAT.sorted_ids.index("AF-041"), 2])
    assert raw == payload + hashlib.sha256(payload).digest()[:2]


def test_a_code_of_another_catalog_is_wrong_catalog():
    code = deck_code(PLUS, {"AF-040": 3})
    with pytest.raises(DeckCodeError) as caught:
        counts_from_code(CAT, code)
    assert caught.value.code == "wrong_catalog"


@pytest.mark.parametrize("cut", [1, 2, 5, 10])
def test_a_truncated_or_mistyped_code_is_bad_deck_code(cut):
    code = deck_code(CAT, {"AF-040": 3, "AF-041": 3, "AF-042": 3})
    for bad in (code[:-cut], code[:-1] + ("A" if code[-1] != "A" else "B"), code + "A", "afd1.", "afd1.!!"):
        with pytest.raises(DeckCodeError) as caught:
            counts_from_code(CAT, bad)
        assert caught.value.code == "bad_deck_code"


# -- deck lists: what players write ---------------------------------------------------------


def test_a_list_with_bom_crlf_tabs_comments_and_printings_reads():
    text = "\ufeff# my deck\r\n3x\tThe Missing Indoor Shoes\r\n\r\n  2 AF-041 \r\n1 手帳 (AF-020)\r\n３ 閃き\r\n"
    read = read_deck(CAT, text)
    assert dict(read.counts) == {"AF-040": 3, "AF-041": 2, "AF-020": 1, "AF-060": 3}
    assert read.lines == {"AF-040": 2, "AF-041": 4, "AF-020": 5, "AF-060": 6}


def test_every_bad_line_is_named_by_number_with_the_nearest_name():
    text = "3 消えた上履き\n3 Fairy of the Nort\n-1 手帳\n99999999999999999999 閃き\n1 手帳 (AF-040)\n"
    with pytest.raises(RefusedInput) as caught:
        read_deck(CAT, text)
    errors = caught.value.errors
    assert caught.value.code == "bad_deck_list"
    assert sorted(errors) == ["deck.line.2", "deck.line.3", "deck.line.4", "deck.line.5"]
    assert "'Fairy of the North'" in errors["deck.line.2"][0]
    assert "AF-040 is '消えた上履き'" in errors["deck.line.5"][0]


def test_a_name_of_several_printings_without_an_id_is_ambiguous():
    cards = [
        {"id": "X-1", "name": "双子", "kind": "fairy", "power": 1},
        {"id": "X-2", "name": "双子", "kind": "fairy", "power": 2},
    ]
    cat = Catalog.from_data({"id": "t", "cards": cards})
    with pytest.raises(RefusedInput) as caught:
        read_deck(cat, "2 双子\n")
    assert "2 printings (X-1, X-2)" in caught.value.errors["deck.line.1"][0]
    assert dict(read_deck(cat, "2 双子 (X-2)\n").counts) == {"X-2": 2}
    assert deck_list_text(cat, {"X-1": 1, "X-2": 2}) == "1 双子 (X-1)\n2 双子 (X-2)\n"


@pytest.mark.parametrize(
    "text",
    [
        "1 消えた上履き\n" * (LIST_MAX_LINES + 9000),  # 10,000 lines
        "1 " + "x" * 100 * 1024,  # a line of 100 KiB
        "1 " + "消" * 300,
    ],
)
def test_a_huge_list_is_a_400_not_a_long_read(text):
    with pytest.raises(InvalidInput) as caught:
        read_deck(CAT, text)
    assert caught.value.errors


# -- the API -----------------------------------------------------------------------------------


def test_decks_validate_answers_the_canonical_forms(client):
    resp = client.post("/v1/decks/validate", json={"deck": "3 消えた上履き\n3x The School Festival Mystery\n"})
    body = resp.get_json()
    assert resp.status_code == 200 and not S.DECK_VALIDATE_RESPONSE.validate(body)
    assert body["deck"] == {
        "counts": {"AF-040": 3, "AF-041": 3},
        "list": "3 消えた上履き\n3 学園祭の怪\n",
        "code": deck_code(CAT, {"AF-040": 3, "AF-041": 3}),
    }
    again = client.post("/v1/decks/validate", json={"deck": body["deck"]["code"]}).get_json()
    assert again["deck"] == body["deck"]
    huge = client.post("/v1/decks/validate", json={"deck": {"AF-040": 10**12}}).get_json()
    assert huge["deck"]["code"] is None and huge["deck"]["list"] is None  # neither would read back
    many = client.post("/v1/decks/validate", json={"deck": {"AF-040": 41}}).get_json()
    assert many["deck"]["code"] is None and many["deck"]["list"] == "41 消えた上履き\n"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"deck": "3 nothing\n"}, "bad_deck_list"),
        ({"deck": "afd1.AAAA"}, "bad_deck_code"),
        ({"deck": deck_code(PLUS, {"AF-040": 3})}, "wrong_catalog"),
        ({"deck": "1 " + "x" * 100 * 1024}, "bad_deck_list"),  # a line of 100 KiB
        ({"deck": "x" * (LIST_MAX_CHARS + 1)}, "invalid_schema"),
        ({"deck": "1 消えた上履き\n" * 10_000}, "bad_deck_list"),
        ({"deck": [], "format": "nope"}, "unknown_format"),
        ({"deck": [], "format": {"id": "af99", "date": "1999-01-01"}}, "format_not_in_force"),
        ({"deck": [], "format": {"id": "af99", "date": "1999-02-30"}}, "invalid_schema"),
    ],
)
def test_decks_validate_refuses_what_does_not_read_with_a_400(client, body, code):
    resp = client.post("/v1/decks/validate", json=body)
    assert resp.status_code == 400, resp.get_json()
    problem = resp.get_json()
    assert problem["code"] == code and problem["errors"]
    assert not S.PROBLEM.validate(problem)


def test_a_new_game_takes_lists_codes_and_a_format_and_a_bad_list_names_its_deck(client, new_game_body):
    counts = Counter(new_game_body["decks"][0])
    game = {"decks": [deck_list_text(CAT, counts), deck_code(CAT, counts)], "seed": "lists", "format": "open"}
    resp = client.post("/v1/games", json=game)
    assert resp.status_code == 201, resp.get_json()
    state = resp.get_json()["state"]
    assert state["format"] == {"id": "open", "revision": "1999-07-01"}
    view = client.post("/v1/view", json={"state": state, "player": None}).get_json()["view"]
    assert view["format"] == state["format"]
    replayed = client.post("/v1/replay", json={"game": game, "actions": []}).get_json()
    assert replayed["state"]["format"] == state["format"]
    bad = client.post("/v1/games", json={**game, "decks": [game["decks"][0], "3 nothing"]}).get_json()
    assert bad["code"] == "bad_deck_list" and list(bad["errors"]) == ["decks.1.line.1"]


def test_get_formats_lists_the_catalogs_formats(client):
    body = client.get("/v1/formats").get_json()
    assert [f["id"] for f in body["formats"]] == ["af99", "millennium", "open"]
    af99 = body["formats"][0]
    assert af99["revisions"][0] != af99["revisions"][1]  # two revisions that differ
    assert not S.FormatsResponseSchema().validate(body)


def test_the_client_checks_decks_and_lists_formats(make_app):
    app = make_app()
    ref = RefereeClient("http://referee", transport=httpx.WSGITransport(app=app))
    assert [f["id"] for f in ref.formats()] == ["af99", "millennium", "open"]
    answer = ref.check_deck("3 閃き\n3 手帳\n", format="af99")
    assert [v["rule"] for v in answer["violations"]] == ["3.1", "3.7", "3.8"]
    assert [v.code for v in ref.validate_deck(answer["deck"]["code"], format="af99")][1:] == [
        "banned_card",
        "restricted_card",
    ]
    with pytest.raises(InvalidRequest) as caught:
        ref.validate_deck("3 nothing")
    assert caught.value.code == "bad_deck_list"


# -- the command line --------------------------------------------------------------------------


def test_deck_validate_prints_every_problem_as_file_line(tmp_path, capsys):
    good = tmp_path / "good.txt"
    good.write_text(deck_list_text(CAT, Counter({"AF-040": 3, "AF-041": 3})) or "", "utf-8")
    bad = tmp_path / "bad.txt"
    bad.write_text("3 閃き\n3 Fary of the North\n", "utf-8")
    illegal = tmp_path / "illegal.txt"
    illegal.write_text("# af99\n3 閃き\n3 手帳\n", "utf-8")
    assert referee(["deck", "validate", str(bad), str(illegal), "--format", "af99"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert f"{bad}:2: no card named 'Fary of the North'; did you mean 'Fairy of the North'?" in out
    assert any(line.startswith(f"{illegal}:2: RULES 3.7 (banned_card)") for line in out)
    assert any(line.startswith(f"{illegal}:3: RULES 3.8 (restricted_card)") for line in out)
    assert referee(["deck", "validate", str(illegal), "--format", "af99@1999-08-01"]) == 1  # 3.1 only
    capsys.readouterr()
    assert referee(["deck", "validate", str(good), str(tmp_path / "missing.txt")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing.txt: cannot read" in err[0]


def test_deck_code_and_list_convert_and_a_bad_code_is_one_line(tmp_path, capsys):
    deck = tmp_path / "d.txt"
    deck.write_text("3x The Missing Indoor Shoes\n1 北の妖精\n", "utf-8")
    assert referee(["deck", "code", str(deck)]) == 0
    code = capsys.readouterr().out.strip()
    assert referee(["deck", "list", code]) == 0
    assert capsys.readouterr().out == "1 北の妖精\n3 消えた上履き\n"
    assert referee(["deck", "list", code[:-3]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "check does not match" in err


def test_a_catalog_given_by_referee_catalog_has_its_own_formats_lists_and_codes(tmp_path, serve):
    cards = [
        {
            "id": "Z-1",
            "name": "一の事件",
            "name_en": "Case One",
            "kind": "事件カード",
            "level": 1,
            "hit": 1,
            "series": "conan",
        },
        {"id": "Z-2", "name": "二の妖精", "kind": "キャラクターカード", "power": 1, "series": "af99"},
    ]
    formats = [{"id": "cn", "series": ["conan"], "revisions": [{"from": "2001-01-01", "restricted": {"Case One": 2}}]}]
    path = tmp_path / "z.json"
    path.write_text(json.dumps({"id": "z", "cards": cards, "formats": formats}), "utf-8")
    server = serve(env={"REFEREE_CATALOG": str(path)})
    got = httpx.get(server.url + "/v1/formats").json()["formats"]
    assert got == [
        {
            "id": "cn",
            "name": "cn",
            "series": ["conan"],
            "revisions": [{"from": "2001-01-01", "banned": [], "restricted": {"一の事件": 2}}],
        }
    ]
    answer = httpx.post(
        server.url + "/v1/decks/validate", json={"deck": "3 Case One\n1 二の妖精\n", "format": "cn"}
    ).json()
    assert [(v["rule"], v.get("line")) for v in answer["violations"]] == [
        ("3.1", None),
        ("3.8", 1),
        ("3.6", 2),
    ]  # line order
    assert answer["deck"]["code"] == deck_code(Catalog.from_path(path), {"Z-1": 3, "Z-2": 1})
    wrong = httpx.post(server.url + "/v1/decks/validate", json={"deck": deck_code(CAT, {"AF-040": 1})})
    assert wrong.status_code == 400 and wrong.json()["code"] == "wrong_catalog"
    cli = subprocess.run(
        [str(Path(sys.executable).with_name("referee")), "deck", "code", "-"],
        input="3 一の事件\n",
        capture_output=True,
        text=True,
        env={"REFEREE_CATALOG": str(path), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.strip() == deck_code(Catalog.from_path(path), {"Z-1": 3})


def test_record_takes_a_game_of_deck_lists_and_a_format(tmp_path, capsys):
    game = tmp_path / "game.yaml"
    counts = {"AF-040": 3, "AF-041": 3, "AF-042": 3, "AF-043": 3, "AF-044": 3, "AF-045": 3, "AF-002": 3}
    counts |= {"AF-003": 3, "AF-004": 3, "AF-005": 3, "AF-022": 3, "AF-023": 3, "AF-061": 3, "AF-001": 1}
    text = deck_list_text(CAT, counts)
    game.write_text(json.dumps({"decks": [text, deck_code(CAT, counts)], "format": "af99"}), "utf-8")
    out = tmp_path / "rec.yaml"
    assert referee(["record", "--seed", "lists", "--game", str(game), "--max-actions", "12", "-o", str(out)]) == 0
    assert referee(["check", str(out)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out


def test_random_decks_and_scenario_filler_count_names_as_rules_3_2_1_reads_them():
    """RULES 3.2.1: two printings named in different widths are one name for the random decks of
    ``referee record``/``fuzz`` and for scenario filler, as for the deck check."""
    from referee.engine.playout import random_deck
    from referee.engine.setup import SeededStream, validate_deck
    from referee.scenarios.build import expand_game

    cards = [{"id": f"X-{i:02d}", "name": f"n{i}", "kind": "fairy", "power": 1} for i in range(14)]
    cards += [
        {"id": "Y-1", "name": "Ｖ.Ｉ.Ｐ.のカード", "kind": "fairy", "power": 1},
        {"id": "Y-2", "name": " V.I.P.のカード", "kind": "fairy", "power": 1},
    ]
    cat = Catalog.from_data({"id": "w", "cards": cards})
    for seed in range(20):
        assert validate_deck(cat, random_deck(cat, SeededStream(str(seed)))) == []
    game = expand_game(cat, {"decks": [{"top": []}, {"top": ["Y-1"]}]})
    assert [validate_deck(cat, deck) for deck in game["decks"]] == [[], []]


def test_both_decks_bad_lines_are_named_in_one_answer(client):
    bad = client.post("/v1/games", json={"decks": ["1 nothing\n", "3 消えた上履き\n2 nowhere"]}).get_json()
    assert bad["code"] == "bad_deck_list"
    assert sorted(bad["errors"]) == ["decks.0.line.1", "decks.1.line.2"]


def test_a_private_game_carries_its_format_in_every_view(private_client, private_game_body):
    game = private_client.post("/v1/games", json={**private_game_body, "format": "open"}).get_json()
    for seat in [*game["seats"], game["watch"]]:
        view = private_client.post("/v1/view", json={"state": game["state"], "seat": seat}).get_json()["view"]
        assert view["format"] == {"id": "open", "revision": "1999-07-01"}
