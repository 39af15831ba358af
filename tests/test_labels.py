"""Readable labels of legal actions (``"labels": true`` on /v1/legal-actions) and the /docs examples."""

from __future__ import annotations

import copy
from collections import defaultdict

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import referee_schemas as S
from referee.engine import legal_actions
from referee.engine.labels import labelled
from referee.engine.playout import play
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


def _seen_as(state: dict, action: dict) -> tuple:
    """The move as its player may tell it apart: a card in hand or in a trash by what it is (copies of
    one card there are the same move), a card in play by its instance (each sits in its own place)."""
    me = action["player"]

    def one(iid: str) -> tuple:
        if iid in state["players"][me]["hand"]:
            return ("hand", state["cards"][iid])
        for owner, pl in enumerate(state["players"]):
            if iid in pl["trash"]:
                return ("trash", owner, state["cards"][iid])
        return ("instance", iid)

    seen = []
    for key, value in sorted(action.items()):
        if key in ("type", "label") or not isinstance(value, str | list):
            seen.append((key, value if key != "label" else None))
        elif isinstance(value, list):
            seen.append((key, tuple(one(v) for v in value)))
        else:
            seen.append((key, one(value)))
    return tuple(seen)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 400), lang=st.sampled_from(["en", "ja"]))
def test_two_actions_share_a_label_only_when_they_are_the_same_move(catalog, seed, steps, lang):
    """Over random positions: one label, one move as its player sees it (two copies of one card in hand
    are one move; two face-down cases of the opponent are two, by their places)."""
    positions = [s for s, _ in play(catalog, f"labels-{seed}", max_actions=steps + 1)]
    if not positions:
        return
    state = copy.deepcopy(positions[-1])
    moves: dict[tuple, set] = defaultdict(set)
    for a in labelled(catalog, state, legal_actions(catalog, state), lang):
        moves[(a["player"], a["label"])].add(_seen_as(state, a))
    shared = {label: seen for label, seen in moves.items() if len(seen) > 1}
    assert not shared, shared


def test_an_opponents_face_down_case_is_named_by_whose_it_is_and_its_place(client, catalog):
    from referee.scenarios.build import build_position

    state = build_position(
        catalog, {"p0": {"cases": ["AF-042"], "hand": ["AF-022"]}, "p1": {"cases": ["AF-043", "AF-044"]}}
    )
    state["step"] = "main"
    for lang, words in (("en", "your opponent's {}{} case, face down"), ("ja", "相手の{}{}番目の事件（裏向き）")):
        labels = [a["label"] for a in _labelled(client, state, lang=lang, player=0).get_json()["actions"]]
        suffix = {"en": ["st", "nd"], "ja": ["", ""]}[lang]
        for n in (1, 2):
            place = words.format(n, suffix[n - 1])
            assert any(place in label for label in labels), (place, labels)


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
