"""One codec per mode, chosen once (referee/service/codecs.py, private.py): the endpoints have no mode branches.

The app's settings pick its codec at start-up; the game endpoints
(referee/service/answers.py) know no mode, so every mode answers a request in
the same order of checks: the body's shape (400) before the state's seal, token
or seat (403), and a refused action named as whoever acts sees it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import SECRET, STATE_KEY

from referee.private.tokens import Vault
from referee.service.codecs import PlainCodec, SealedCodec
from referee.service.private import PrivateCodec

ROOT = Path(__file__).resolve().parents[1]
VAULT = Vault(bytes.fromhex(STATE_KEY))
MODE_MODULES = {"referee.private.sealing", "referee.service.private", "referee.private.tokens"}


@pytest.mark.parametrize(
    ("settings", "codec"),
    [({}, PlainCodec), ({"secret": SECRET}, SealedCodec), ({"state_key": STATE_KEY}, PrivateCodec)],
)
def test_given_the_settings_then_the_app_holds_the_one_codec_of_their_mode(make_app, settings, codec):
    assert type(make_app(**settings).extensions["referee"].codec) is codec


def test_given_the_endpoints_then_none_knows_a_mode():
    """answers.py imports no mode's module and names no codec class: it opens and closes through the interface."""
    tree = ast.parse((ROOT / "referee" / "service" / "answers.py").read_text("utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
    }
    assert not imported & MODE_MODULES
    assert not names & {"PlainCodec", "SealedCodec", "PrivateCodec", "sealer", "vault", "ledger", "private"}


def test_given_a_private_body_with_a_bad_labels_and_a_bad_token_then_the_bodys_400_comes_first(private_client):
    resp = private_client.post("/v1/legal-actions", json={"state": "afs1.nope", "seat": "afk1.nope", "labels": "yes"})
    assert resp.status_code == 400 and resp.get_json()["errors"] == {"labels": ["Not a valid boolean."]}


def test_given_a_sealed_body_with_a_bad_labels_and_no_seal_then_the_bodys_400_comes_first(make_app, midgame):
    client = make_app(secret=SECRET).test_client()
    resp = client.post("/v1/legal-actions", json={"state": midgame[0], "labels": "yes"})
    assert resp.status_code == 400 and resp.get_json()["errors"] == {"labels": ["Not a valid boolean."]}


def test_given_a_refused_action_in_a_private_replay_then_it_is_named_as_in_plain_mode(
    private_client, client, private_game_body
):
    """The same position replayed privately and plainly: the same 422, the same detail, with the players' names."""
    game = private_client.post("/v1/games", json={**private_game_body, "players": ["Aoi", "Ren"]}).get_json()
    state = VAULT.open(game["state"])
    wrong = {"type": "keep", "player": 1 - state["active"]}
    private = private_client.post(
        "/v1/replay", json={"state": game["state"], "seats": game["seats"], "actions": [wrong]}
    )
    plain = client.post("/v1/replay", json={"state": state, "actions": [wrong]})
    assert private.status_code == plain.status_code == 422
    body, expected = private.get_json(), plain.get_json()
    assert {k: body[k] for k in ("code", "rule", "detail", "index")} == {
        k: expected[k] for k in ("code", "rule", "detail", "index")
    }
    assert "Aoi" in body["detail"] or "Ren" in body["detail"], body["detail"]
