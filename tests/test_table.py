"""The table's files and its replay files, without a browser (tests/test_table_browser.py drives one)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.engine import validate_deck

ROOT = Path(__file__).resolve().parent.parent
FAILING = """\
name: a second fairy on the same case is legal (it is not)
given: {position: {p0: {cases: [AF-042, AF-043], fairies: [AF-004, AF-005]}}}
when:
  - {type: dispatch, player: 0, fairy: p0.fairies.AF-004, case: p0.cases.0}
  - {type: dispatch, player: 0, fairy: p0.fairies.AF-005, case: p0.cases.0}
then: {legal: true}
"""


def _referee(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True)


def test_the_root_redirects_to_the_table(client):
    resp = client.get("/")
    assert resp.status_code == 302 and resp.headers["Location"].endswith("/table")


def test_the_page_and_its_modules_are_served_from_the_package(client):
    page = client.get("/table")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert '<script type="module" src="/table/table.js">' in html
    assert "http://" not in html and "https://" not in html  # nothing from another origin
    for name in ("table.js", "api.js", "board.js", "i18n.js", "changes.js"):
        resp = client.get(f"/table/{name}")
        assert resp.status_code == 200 and resp.mimetype == "text/javascript", name
    assert client.get("/table/table.css").mimetype == "text/css"


@pytest.mark.parametrize("path", ["/table/remote.html", "/table/watch.html"])
def test_the_earlier_two_device_and_watch_links_open_the_one_table(client, path):
    """Links handed out before the one board (``remote.html#game=…``) keep working: the fragment says which game."""
    resp = client.get(path)
    assert resp.status_code == 200 and '<script type="module" src="/table/table.js">' in resp.get_data(as_text=True)


@pytest.mark.parametrize("path", ["/table/nope.js", "/table/..%2Fapp.py", "/table/table_page.py", "/table/x/y.js"])
def test_anything_else_under_table_is_a_404_problem(client, path):
    resp = client.get(path)
    assert resp.status_code == 404 and resp.mimetype == "application/problem+json"


def test_the_sample_decks_are_named_and_legal(client, catalog):
    decks = client.get("/table/decks.json").get_json()["decks"]
    assert len(decks) >= 2
    for d in decks:
        assert d["name"] and d["name_ja"] and validate_deck(catalog, d["deck"]) == []


def test_each_format_the_deal_form_offers_has_two_sample_decks_legal_in_it(client, catalog):
    """Choosing a format deals with the sample decks at once: each sample names the formats it is legal in
    (their latest revisions), and every format has two (the deal form offers those only)."""
    decks = client.get("/table/decks.json").get_json()["decks"]
    for fid in catalog.formats:
        fitting = [d for d in decks if fid in d["formats"]]
        assert len(fitting) >= 2, fid
        for d in decks:
            legal = validate_deck(catalog, d["deck"], played=catalog.format_revision(fid)) == []
            assert legal == (fid in d["formats"]), (d["name"], fid)


def test_expand_writes_a_scenario_as_a_replay_file_marking_the_refused_action(tmp_path):
    path = tmp_path / "fails.yaml"
    path.write_text(FAILING, "utf-8")
    out = _referee("expand", str(path))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) >= {"name", "state", "actions", "focus", "refused"}
    assert data["focus"] == 1 and data["refused"]["rule"] == "8.9"
    assert all(not str(v).startswith("p0.") for a in data["actions"] for v in a.values())  # references resolved


def test_expand_of_a_missing_file_is_one_line_and_exit_2(tmp_path):
    out = _referee("expand", str(tmp_path / "none.yaml"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_check_says_how_to_open_a_failed_scenario_on_the_table(tmp_path):
    path = tmp_path / "fails.yaml"
    path.write_text(FAILING, "utf-8")
    out = _referee("check", str(path))
    assert out.returncode == 1
    assert f"see it on the table: referee expand {path} -o failed.json" in out.stdout
    assert "/table" in out.stdout
