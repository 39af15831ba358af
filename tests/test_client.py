"""``referee.client.RefereeClient``: every endpoint and the typed errors.

Most tests talk to the real Flask app in-process (httpx's WSGI transport);
the ``e2e`` test starts ``referee serve`` on a free loopback port and runs
the client and ``referee check --url`` against it.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from referee.client import (
    InvalidRequest,
    NotFound,
    PayloadTooLarge,
    RefereeClient,
    RefereeConnectionError,
    RefereeRuleViolation,
    RuleViolation,
    SealRejected,
)
from referee.engine import Catalog, legal_actions
from referee.engine.rules_index import rule_ids
from referee.scenarios.build import build_position, expand_game

ROOT = Path(__file__).resolve().parent.parent


def make_client(**settings) -> RefereeClient:
    from referee.service.app import create_app
    from referee.service.config import Settings

    settings.setdefault("log_requests", False)
    app = create_app(Settings(**settings))
    return RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=app))


@pytest.fixture(scope="module")
def ref():
    with make_client() as client:
        yield client


@pytest.fixture(scope="module")
def game():
    return expand_game(Catalog.builtin(), {"decks": [{"top": []}, {"top": []}], "seed": "client"})


def position(**p):
    return build_position(Catalog.builtin(), p)


def test_new_game_apply_legal_actions_view_replay(ref, game):
    state, events = ref.new_game(game)
    assert state["phase"] == "mulligan" and events[0]["type"] == "game_started"
    actions = ref.legal_actions(state)
    assert {"type": "keep", "player": 0} in actions
    assert ref.legal_actions(state, player=1) == [{"type": "concede", "player": 1}]
    step = ref.apply(state, {"type": "keep", "player": 0})
    assert step.state["active"] == 1 and step.events == [{"type": "keep", "player": 0}]
    view = ref.view(step.state, 1)
    assert view["players"][0]["file"] == 33 and "seed" not in view
    final, applied = ref.replay([{"type": "keep", "player": 0}, {"type": "keep", "player": 1}], game=game)
    assert applied == 2 and final["turn"] == 1
    again = ref.replay([{"type": "skip_case", "player": 0}], state=final)
    assert again.state["step"] == "main"


def test_validate_returns_the_violation(ref):
    state = position(p0={"cases": ["AF-042"], "file": 0})
    v = ref.validate(state, {"type": "draw", "player": 0})
    assert isinstance(v, RefereeRuleViolation)
    assert (v.rule, v.code) == ("8.2", "file_empty") and "empty" in v.detail
    assert ref.validate(state, {"type": "end_turn", "player": 0}) is None


def test_rule_violation_on_422(ref):
    state = position(p0={"cases": ["AF-042"], "file": 0})
    with pytest.raises(RuleViolation) as info:
        ref.apply(state, {"type": "draw", "player": 0})
    v = info.value
    assert (v.status, v.rule, v.code, v.index) == (422, "8.2", "file_empty", None)
    assert v.detail == "Player 1's file is empty; a voluntary draw is illegal."  # the state's name for player 0
    assert v.body["player"] == 0  # the index kept in the problem's own field
    assert v.body["title"] == "Rule violation"


def test_replay_violation_carries_the_index(ref, game):
    with pytest.raises(RefereeRuleViolation) as info:
        ref.replay([{"type": "keep", "player": 0}, {"type": "keep", "player": 0}], game=game)
    assert (info.value.index, info.value.rule, info.value.code) == (1, "12.2", "not_your_turn")


def test_a_games_record_and_its_replay(ref, game):
    """docs/api.md §14: the record's text, a seat's, and the record replayed to the same final state."""
    from referee.engine.records import read

    actions = [{"type": "keep", "player": 0}, {"type": "keep", "player": 1}, {"type": "concede", "player": 1}]
    final, _ = ref.replay(actions, game=game)
    text = ref.record(actions, game=game)
    assert read(text).actions == actions and text.endswith("3. P1 concede\n")
    assert ref.replay(record=text) == (final, 3)
    assert ref.record(record=text) == text
    seat = read(ref.record(actions, game=game, player=1))
    assert seat.tags["Seat"] == "1" and "Seed" not in seat.tags and "Deck0" not in seat.tags
    assert read(ref.record(record=text, player=None)).tags["Seat"] == "spectator"
    with pytest.raises(RefereeRuleViolation) as illegal:
        ref.record(actions[:1] * 2, game=game)
    assert (illegal.value.index, illegal.value.code) == (1, "not_your_turn")
    with pytest.raises(InvalidRequest) as bad:
        ref.replay(record=text.replace("3. P1", "4. P1"))
    assert (bad.value.code, bad.value.body["line"]) == ("bad_record", text.count("\n"))
    with pytest.raises(ValueError):
        ref.replay(actions, record=text)  # a record's moves are its actions


def test_illegal_deck_lists_every_violation(ref):
    with pytest.raises(RefereeRuleViolation) as info:
        ref.new_game({"decks": [["AF-099"] * 41, ["AF-004"] * 40], "seed": "x"})
    v = info.value
    assert v.rule == "3.1"
    assert {x["code"] for x in v.violations} >= {"deck_size", "too_many_copies", "bonus_card"}
    assert [x.code for x in ref.validate_deck(["AF-004"] * 40)] == ["too_many_copies"]
    assert ref.validate_deck(expand_game(Catalog.builtin(), {"decks": [{"top": []}]})["decks"][0]) == []


def test_invalid_request_on_400(ref):
    state = position()
    with pytest.raises(InvalidRequest) as info:
        ref.apply(state, {"type": "fly", "player": 0})
    assert info.value.status == 400 and info.value.code == "invalid_schema"
    assert any(k.endswith("type") for k in info.value.errors)
    broken = position()
    broken["players"][0]["hand"].append(broken["players"][1]["file"][0])
    with pytest.raises(InvalidRequest) as info:
        ref.legal_actions(broken)
    assert info.value.code == "card_not_conserved"


def test_cards_rules_and_not_found(ref):
    body = ref.cards()
    assert body["catalog"] == Catalog.builtin().ref and len(body["cards"]) > 40
    assert ref.card("AF-001")["name"] == "北の妖精"
    with pytest.raises(NotFound):
        ref.card("AF-000")
    rules = ref.rules()
    assert rules[0]["id"] == "1.1" and len(rules) == len(rule_ids())
    assert ref.ready() is True


def test_seal_rejected_on_403(game):
    with make_client(secret=b"s" * 32) as sealed:
        state, _ = sealed.new_game(game)
        assert state["seal"].startswith("hmac-sha256:")
        sealed.apply(state, {"type": "keep", "player": 0})
        state["seal"] = "hmac-sha256:" + "0" * 64
        with pytest.raises(SealRejected) as info:
            sealed.apply(state, {"type": "keep", "player": 0})
        assert info.value.status == 403 and info.value.code


def test_payload_too_large_on_413(game):
    with make_client(max_body=2048) as small:
        with pytest.raises(PayloadTooLarge) as info:
            small.new_game({**game, "players": ["x" * 5000, "y"]})
        assert info.value.status == 413


def test_japanese_details(game):
    from referee.service.app import create_app
    from referee.service.config import Settings

    app = create_app(Settings(log_requests=False))
    with RefereeClient("http://t", language="ja", transport=httpx.WSGITransport(app=app)) as ja:
        with pytest.raises(RefereeRuleViolation) as info:
            ja.apply(position(p0={"cases": ["AF-042"], "file": 0}), {"type": "draw", "player": 0})
        assert "ファイル" in info.value.detail


def test_connection_error():
    with RefereeClient("http://127.0.0.1:9", timeout=2) as dead:
        with pytest.raises(RefereeConnectionError):
            dead.cards()
        assert dead.ready() is False


# -- against a real server ------------------------------------------------------------


@pytest.fixture
def server(serve) -> str:
    """A real ``referee serve`` (gunicorn, one worker) on a free loopback port: its URL."""
    return serve(workers=1).url


@pytest.mark.e2e
def test_client_and_check_against_a_real_server(server, game, capsys):
    with RefereeClient(server, timeout=10) as ref:
        state, _ = ref.new_game(game)
        with pytest.raises(RefereeRuleViolation) as info:
            ref.apply(state, {"type": "keep", "player": 1})
        assert (info.value.rule, info.value.code) == ("12.2", "not_your_turn")
        with pytest.raises(InvalidRequest):
            ref.apply(state, {"type": "keep"})
    from referee.cli import main as referee

    code = referee(["check", "-q", "--url", server, str(ROOT / "examples" / "scenarios")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[-1].endswith(" passed, 0 failed")


def test_suggest_answers_one_of_the_players_legal_actions(ref, game):
    from referee.client import Suggestion

    state, _ = ref.new_game(game)
    hint = ref.suggest(state, 0, "greedy", iterations=1)
    assert isinstance(hint, Suggestion) and hint.action in ref.legal_actions(state, player=0) and hint.label
    assert ref.suggest(state, 0, "ismcts", iterations=4, seed="s") == ref.suggest(
        state, 0, "ismcts", iterations=4, seed="s"
    )
    with pytest.raises(RuleViolation) as refused:
        ref.suggest(state, 1, "random", budget_ms=50)
    assert refused.value.rule == "12.2"
    with pytest.raises(ValueError, match="exactly one of budget_ms= and iterations="):
        ref.suggest(state, 0, "random")


def test_a_busy_answer_is_busy_with_its_retry_after_and_is_not_retried(midgame):
    from referee.client import Busy
    from referee.service.app import create_app
    from referee.service.config import Settings

    app = create_app(Settings(log_requests=False, heavy_slots=1))
    slot = app.extensions["referee"].heavy.slots.take()  # another request's hint holds the replica's one slot
    state, action = midgame
    with RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=app), retries=3) as client:
        with pytest.raises(Busy) as raised:
            client.suggest(state, action["player"], "random", iterations=1)
        assert (raised.value.status, raised.value.code, raised.value.retry_after) == (429, "busy", 1.0)
        app.extensions["referee"].heavy.slots.give_back(slot)
        assert client.suggest(state, action["player"], "random", iterations=1).action in legal_actions(
            Catalog.builtin(), state, action["player"]
        )
