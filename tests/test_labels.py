"""Readable labels of legal actions (``"labels": true`` on /v1/legal-actions) and the /docs examples."""

from __future__ import annotations

import yaml

import referee_schemas as S
from referee.engine import legal_actions
from referee.engine.views import visible_cards
from tests.test_openapi import COMMITTED


def _labelled(client, state, lang=None, player=None):
    headers = {"Accept-Language": lang} if lang else {}
    body = {"state": state, "labels": True, **({"player": player} if player is not None else {})}
    resp = client.post("/v1/legal-actions", json=body, headers=headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert S.LEGAL_ACTIONS_RESPONSE.validate(resp.get_json()) == {}
    return resp


def test_each_listed_action_gets_a_label_naming_its_cards(client, catalog, midgame):
    state, _ = midgame
    actions = _labelled(client, state).get_json()["actions"]
    assert [{k: v for k, v in a.items() if k != "label"} for a in actions] == legal_actions(catalog, state)
    plays = [a for a in actions if a["type"] == "play_fairy"]
    for a in plays:
        card = catalog[state["cards"][a["card"]]]
        assert a["label"].startswith(f"Play fairy {card.name_en or card.name}")
        assert a["label"].endswith("— 1 action")
    assert {a["label"] for a in actions if a["type"] == "concede"} == {"Concede the game"}


def test_labels_are_japanese_on_request(client, midgame):
    state, _ = midgame
    resp = _labelled(client, state, lang="ja")
    assert resp.headers["Content-Language"] == "ja"
    labels = {a["type"]: a["label"] for a in resp.get_json()["actions"]}
    assert labels["concede"] == "投了する"


def test_without_labels_the_answer_is_unchanged(client, midgame):
    state, _ = midgame
    for body in ({"state": state}, {"state": state, "labels": False}):
        actions = client.post("/v1/legal-actions", json=body).get_json()["actions"]
        assert all("label" not in a for a in actions)


def test_labels_must_be_a_boolean(client, midgame):
    resp = client.post("/v1/legal-actions", json={"state": midgame[0], "labels": "yes"})
    assert resp.status_code == 400 and "labels" in resp.get_json()["errors"]


def test_a_label_never_names_a_card_its_player_may_not_see(client, catalog, positions):
    """docs/api.md §5: an opponent's face-down case is 'a face-down case' in the label."""
    names = {cid: {c.name, c.name_en} for cid, c in catalog.cards.items()}
    checked = 0
    for state, _ in positions[::7]:
        if state["phase"] == "over":
            continue
        for lang in ("en", "ja"):
            for a in _labelled(client, state, lang=lang).get_json()["actions"]:
                hidden = set(state["cards"]) - visible_cards(state, a["player"])
                for iid in hidden:
                    for name in names[state["cards"][iid]] - {None}:
                        seen_elsewhere = any(
                            state["cards"][v] == state["cards"][iid] for v in visible_cards(state, a["player"])
                        )
                        assert seen_elsewhere or name not in a["label"], (a, name)
                checked += 1
    assert checked > 50


def test_every_operation_has_an_operation_id():
    spec = yaml.safe_load(COMMITTED.read_text("utf-8"))
    ids = [op["operationId"] for path in spec["paths"].values() for op in path.values() if isinstance(op, dict)]
    assert len(ids) == len(set(ids)) and {"newGame", "applyAction", "legalActions"} <= set(ids)


def test_the_docs_example_for_apply_applies(client):
    """/docs "Try it out" on POST /v1/apply works as it stands (no catalog_mismatch)."""
    spec = yaml.safe_load(COMMITTED.read_text("utf-8"))
    for path in ("/v1/apply", "/v1/legal-actions"):
        example = spec["paths"][path]["post"]["requestBody"]["content"]["application/json"]["example"]
        resp = client.post(path, json=example)
        assert resp.status_code == 200, resp.get_data(as_text=True)
