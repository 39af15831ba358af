"""Private play over HTTP (docs/api.md §10): tokens, seats, per-seat answers, rotation, reveal.

The tests hold the key, so they can open a token and compare what a seat
received with the plain state behind it; a client never can.
"""

from __future__ import annotations

import random
import re

import orjson
import pytest
from conftest import OTHER_STATE_KEY, SECRET, STATE_KEY, keep_or_random, post
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_openapi_parity import mutated

from referee.engine.events import CATALOG_FIELDS
from referee.engine.fair_deal import commitment
from referee.engine.views import visible_cards
from referee.private.tokens import WATCH, TokenError, Vault, b64url, unb64url

VAULT = Vault(bytes.fromhex(STATE_KEY))
GAMES = settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def deal(client, body: dict) -> dict:
    resp = post(client, "/v1/games", body)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()


def acting_seat(client, token: str, seats: list[str]) -> tuple[int, list[dict]]:
    """Whoever has an action besides conceding, with their legal actions."""
    for player in (0, 1):
        actions = post(client, "/v1/legal-actions", {"state": token, "seat": seats[player]}).get_json()["actions"]
        if any(a["type"] != "concede" for a in actions):
            return player, actions
    raise AssertionError("nobody may act in a game that is not over")


def play(client, body: dict, rng: random.Random, max_steps: int):
    """Yield (token before, acting player, action, the answer) through a private game."""
    game = deal(client, body)
    token, seats = game["state"], game["seats"]
    for _ in range(max_steps):
        if VAULT.open(token)["phase"] == "over":
            return
        player, actions = acting_seat(client, token, seats)
        action = keep_or_random(actions, rng)
        resp = post(client, "/v1/apply", {"state": token, "action": action, "seat": seats[player]})
        assert resp.status_code == 200, resp.get_json()
        answer = resp.get_json()
        yield token, seats, player, action, answer
        token = answer["state"]


def secrets_of(state: dict) -> list[str]:
    """What must never be readable in a token: the seed, every instance id and catalog id."""
    return [state["seed"], *state["cards"], *set(state["cards"].values())]


def names_a_hidden_card(answer: dict, plain: dict, seat_player: int) -> list[str]:
    """Every card identity in a seat's answer (view and events) that the seat may not know."""
    known = visible_cards(plain, seat_player)
    leaks = [iid for iid in answer["view"]["cards"] if iid not in known]
    for event in answer["events"]:
        for field, iid in CATALOG_FIELDS.get(event["type"], ()):
            if field in event and event[iid] not in known:
                leaks.append(f"{event['type']}.{field}")
        if "seed" in event:
            leaks.append("seed")
    text = orjson.dumps(answer).decode()
    if plain["seed"] in text:
        leaks.append("the seed")
    for iid, cid in plain["cards"].items():
        if iid not in known and f'"{iid}":"{cid}"' in text:
            leaks.append(iid)
    return leaks


# -- the deal --------------------------------------------------------------------


def test_a_new_private_game_is_a_token_two_seats_and_a_commitment(private_client, private_game_body):
    game = deal(private_client, private_game_body)
    assert set(game) == {"state", "seats", "watch", "commitment", "events"}
    assert game["state"].startswith("afs1.") and all(s.startswith("afk1.") for s in game["seats"])
    plain = VAULT.open(game["state"])
    assert game["commitment"] == commitment(plain["seed"]) and plain["seq"] == 0 and plain["game_id"]
    assert game["events"][0] == {
        "type": "game_started",
        "first_player": plain["first_player"],
        "commitment": game["commitment"],
    }


@pytest.mark.parametrize(
    "extra", [{"seed": "mine"}, {"shuffle": False}, {"match": {"best_of": 3, "game": 2, "wins": [1, 0]}}], ids=repr
)
def test_a_private_referee_deals_itself(private_client, private_game_body, extra):
    """A private game's seed is the referee's, its decks shuffled, and a match's later game is dealt from the game
    before (POST /v1/matches/next): a NewGame naming one is refused."""
    resp = post(private_client, "/v1/games", {**private_game_body, **extra})
    assert resp.status_code == 400 and resp.get_json()["code"] == "not_in_private_mode"


def test_illegal_decks_are_reported_as_in_plain_mode(private_client, client, private_game_body):
    body = {**private_game_body, "decks": [["AF-001"] * 40, private_game_body["decks"][1]]}
    private, plain = post(private_client, "/v1/games", body), post(client, "/v1/games", body)
    assert private.status_code == plain.status_code == 422
    assert private.get_json()["violations"] == plain.get_json()["violations"]


def test_two_deals_of_the_same_decks_are_two_games(private_client, private_game_body):
    a, b = deal(private_client, private_game_body), deal(private_client, private_game_body)
    assert a["commitment"] != b["commitment"] and a["seats"] != b["seats"]
    assert VAULT.open(a["state"])["game_id"] != VAULT.open(b["state"])["game_id"]


# -- secrecy over random games ------------------------------------------------------


@GAMES
@given(seed=st.integers(0, 10**6))
def test_tokens_and_seat_answers_keep_every_secret(private_client, private_game_body, seed):
    """No token holds the seed, an instance id or a catalog id in the clear (its decoded bytes, of which
    the token's text is exactly the base64); each seat's view and events name only cards that seat may know (docs/api.md §5's predicate)."""
    for token, _, player, _, answer in play(private_client, private_game_body, random.Random(seed), 80):
        plain_after = VAULT.open(answer["state"])
        for t in (token, answer["state"]):
            raw = unb64url(t[len("afs1.") :])
            assert raw is not None and t == "afs1." + b64url(raw)  # the whole text is the base64 of raw
            for secret in secrets_of(plain_after):
                # In the bytes, where a clear secret would be: the base64 text of random ciphertext
                # spells a 6-character id such as "AF-064" by chance every few dozen runs.
                assert secret.encode() not in raw
        assert names_a_hidden_card(answer, plain_after, player) == []
        assert answer["view"]["viewer"] == player and answer["view"]["seq"] == plain_after["seq"]


@GAMES
@given(seed=st.integers(0, 10**6))
def test_the_same_token_and_action_give_the_same_state(private_client, private_game_body, seed):
    rng = random.Random(seed)
    for token, seats, player, action, answer in play(private_client, private_game_body, rng, 25):
        again = post(private_client, "/v1/apply", {"state": token, "action": action, "seat": seats[player]})
        assert again.get_json()["state"] != answer["state"]  # a fresh nonce each time
        assert VAULT.open(again.get_json()["state"]) == VAULT.open(answer["state"])
        assert again.get_json()["events"] == answer["events"]


# -- seats -------------------------------------------------------------------------


def test_the_other_players_seat_is_refused_and_changes_nothing(private_client, private_game_body):
    game = deal(private_client, private_game_body)
    token, seats = game["state"], game["seats"]
    first = VAULT.open(token)["active"]
    action = {"type": "keep", "player": first}
    wrong = post(private_client, "/v1/apply", {"state": token, "action": action, "seat": seats[1 - first]})
    assert wrong.status_code == 403 and wrong.get_json()["code"] == "not_your_seat"
    assert "state" not in wrong.get_json()
    for path, body in (
        ("/v1/validate", {"action": action}),
        ("/v1/view", {"player": first}),
        ("/v1/legal-actions", {"player": first}),
    ):
        resp = post(private_client, path, {"state": token, "seat": seats[1 - first], **body})
        assert resp.status_code == 403 and resp.get_json()["code"] == "not_your_seat", path
    right = post(private_client, "/v1/apply", {"state": token, "action": action, "seat": seats[first]})
    assert right.status_code == 200 and VAULT.open(right.get_json()["state"])["seq"] == 1


def test_a_seat_of_another_game_is_refused_everywhere(private_client, private_game_body):
    a, b = deal(private_client, private_game_body), deal(private_client, private_game_body)
    first = VAULT.open(b["state"])["active"]
    for path, extra in (
        ("/v1/apply", {"action": {"type": "keep", "player": first}}),
        ("/v1/validate", {"action": {"type": "keep", "player": first}}),
        ("/v1/legal-actions", {}),
        ("/v1/view", {}),
    ):
        for seat in a["seats"]:
            resp = post(private_client, path, {"state": b["state"], "seat": seat, **extra})
            assert resp.status_code == 403 and resp.get_json()["code"] == "bad_seat", path


def test_legal_actions_and_view_are_the_seat_players_only(private_client, private_game_body):
    game = deal(private_client, private_game_body)
    plain = VAULT.open(game["state"])
    waiting = 1 - plain["active"]
    actions = post(
        private_client, "/v1/legal-actions", {"state": game["state"], "seat": game["seats"][waiting]}
    ).get_json()["actions"]
    assert actions == [{"type": "concede", "player": waiting}]
    view = post(private_client, "/v1/view", {"state": game["state"], "seat": game["seats"][waiting]}).get_json()
    assert view["view"]["viewer"] == waiting
    assert set(view["view"]["cards"]) == set(plain["players"][waiting]["hand"])


# -- tokens ------------------------------------------------------------------------


def test_a_plain_state_is_refused_by_a_private_referee(private_client, client, new_game_body):
    plain = post(client, "/v1/games", new_game_body).get_json()["state"]
    resp = post(private_client, "/v1/legal-actions", {"state": plain, "seat": "afk1.AA"})
    assert resp.status_code == 403 and resp.get_json()["code"] == "private_mode"


def test_a_token_of_a_referee_with_another_key_is_refused(make_app, private_client, private_game_body):
    other = make_app(state_key=OTHER_STATE_KEY).test_client()
    game = deal(other, private_game_body)
    resp = post(private_client, "/v1/view", {"state": game["state"], "seat": game["seats"][0]})
    assert resp.status_code == 403 and resp.get_json()["code"] == "bad_token"


def flip_char(text: str, index: int, new: str) -> str:
    return text[:index] + new + text[index + 1 :]


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_flipping_any_byte_of_a_token_or_seat_is_403(private_client, flip_game, data):
    token, seats, action = flip_game
    which = data.draw(st.sampled_from(["token", "seat", "token bytes", "seat bytes"]))
    text = token if which.startswith("token") else seats[action["player"]]
    prefix = 5
    if which.endswith("bytes"):  # flip bits of the decoded bytes and encode again: the MAC must catch it
        raw = bytearray(unb64url(text[prefix:]))
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] ^= data.draw(st.integers(1, 255))
        changed = text[:prefix] + b64url(bytes(raw))
    else:  # any character, the prefix included, replaced by another (ASCII or not)
        i = data.draw(st.integers(0, len(text) - 1))
        new = data.draw(st.characters(codec="utf-8", exclude_characters=text[i] + "\x00"))
        changed = flip_char(text, i, new)
    body = {"state": token, "action": action, "seat": seats[action["player"]]}
    body["state" if which.startswith("token") else "seat"] = changed
    resp = post(private_client, "/v1/apply", body)
    code = "bad_token" if which.startswith("token") else "bad_seat"
    if which == "seat bytes" and i == 0:  # the seat's first byte is its player: another player's seat
        code = ("bad_seat", "not_your_seat")
    assert resp.status_code == 403 and resp.get_json()["code"] in code, (which, resp.get_json())


@pytest.fixture(scope="module")
def flip_game(private_app, private_game_body):
    game = deal(private_app.test_client(), private_game_body)
    first = VAULT.open(game["state"])["active"]
    return game["state"], game["seats"], {"type": "keep", "player": first}


@pytest.mark.parametrize("state", [None, 7, [], "", "afs1.", "afs1.!!", "afs2.AAAA", "afs1." + "A" * 40])
def test_anything_but_a_token_is_refused_without_a_500(private_client, state):
    resp = post(private_client, "/v1/view", {"state": state, "seat": "afk1.AA"})
    assert resp.status_code in (400, 403)
    assert resp.get_json()["code"] in ("invalid_schema", "bad_token")


def test_the_vault_refuses_what_it_did_not_make():
    with pytest.raises(TokenError):
        VAULT.open("afs1." + b64url(bytes(40)))
    with pytest.raises(TokenError):
        VAULT.seat_player(VAULT.seat("g-1", 0), "g-2")


# -- key rotation -----------------------------------------------------------------------


def test_key_rotation_accepts_the_previous_key_and_answers_under_the_new(make_app, private_game_body):
    old = make_app(state_key=STATE_KEY).test_client()
    new = make_app(state_key=OTHER_STATE_KEY, previous_state_key=STATE_KEY).test_client()
    after = make_app(state_key=OTHER_STATE_KEY).test_client()
    game = deal(old, private_game_body)
    first = VAULT.open(game["state"])["active"]
    body = {"state": game["state"], "action": {"type": "keep", "player": first}, "seat": game["seats"][first]}
    answer = post(new, "/v1/apply", body).get_json()
    new_vault = Vault(bytes.fromhex(OTHER_STATE_KEY))
    assert new_vault.open(answer["state"])["seq"] == 1
    with pytest.raises(TokenError):
        VAULT.open(answer["state"])
    assert answer["seat"] != game["seats"][first]  # the same seat, made under the new key
    assert new_vault.seat_player(answer["seat"], VAULT.open(game["state"])["game_id"]) == (first, True)
    assert post(after, "/v1/view", {"state": answer["state"], "seat": answer["seat"]}).status_code == 200
    assert post(after, "/v1/view", {"state": game["state"], "seat": game["seats"][first]}).status_code == 403
    # under the current key, no seat comes back
    again = post(
        new,
        "/v1/apply",
        {**body, "state": answer["state"], "seat": answer["seat"], "action": {"type": "keep", "player": 1 - first}},
    )
    assert again.status_code in (200, 403) and "seat" not in again.get_json()


@pytest.mark.parametrize("path", ["/v1/view", "/v1/legal-actions"])
def test_a_player_who_only_watches_gets_the_seat_renewed_too(make_app, private_game_body, path):
    """Given a seat made under the old key, when its player only asks (view, legal actions) during the
    rotation, then the answer carries the seat under the new key, which outlives the old key."""
    old = make_app(state_key=STATE_KEY).test_client()
    new = make_app(state_key=OTHER_STATE_KEY, previous_state_key=STATE_KEY).test_client()
    after = make_app(state_key=OTHER_STATE_KEY).test_client()
    game = deal(old, private_game_body)
    game_id = VAULT.open(game["state"])["game_id"]
    answer = post(new, path, {"state": game["state"], "seat": game["seats"][1]}).get_json()
    new_vault = Vault(bytes.fromhex(OTHER_STATE_KEY))
    assert new_vault.seat_player(answer["seat"], game_id) == (1, True)
    # a current seat is not renewed
    token = post(new, "/v1/apply", seat_keep(game)).get_json()["state"]
    again = post(new, path, {"state": token, "seat": answer["seat"]})
    assert again.status_code == 200 and "seat" not in again.get_json()
    # and the renewed seat works once the old key is gone
    assert post(after, path, {"state": token, "seat": answer["seat"]}).status_code == 200


def test_a_spectator_key_is_renewed_on_view_during_a_rotation(make_app, private_game_body):
    """Given the watch key made under the old key (docs/api.md §12), when the spectator views during the
    rotation, then the answer carries the watch key under the new key, which outlives the old key and
    still cannot act."""
    old = make_app(state_key=STATE_KEY).test_client()
    new = make_app(state_key=OTHER_STATE_KEY, previous_state_key=STATE_KEY).test_client()
    after = make_app(state_key=OTHER_STATE_KEY).test_client()
    game = deal(old, private_game_body)
    game_id = VAULT.open(game["state"])["game_id"]
    answer = post(new, "/v1/view", {"state": game["state"], "seat": game["watch"]}).get_json()
    assert answer["view"]["player"] is None
    assert Vault(bytes.fromhex(OTHER_STATE_KEY)).seat_player(answer["seat"], game_id) == (WATCH, True)
    token = post(new, "/v1/apply", seat_keep(game)).get_json()["state"]
    assert post(after, "/v1/view", {"state": token, "seat": answer["seat"]}).status_code == 200
    assert post(after, "/v1/legal-actions", {"state": token, "seat": answer["seat"]}).status_code == 403


def seat_keep(game: dict) -> dict:
    first = VAULT.open(game["state"])["active"]
    return {"state": game["state"], "action": {"type": "keep", "player": first}, "seat": game["seats"][first]}


# -- replay ------------------------------------------------------------------------


def test_replay_from_a_token_needs_both_seats(private_client, private_game_body):
    game = deal(private_client, private_game_body)
    first = VAULT.open(game["state"])["active"]
    actions = [{"type": "keep", "player": first}, {"type": "keep", "player": 1 - first}]
    both = post(private_client, "/v1/replay", {"state": game["state"], "seats": game["seats"], "actions": actions})
    assert both.status_code == 200 and both.get_json()["applied"] == 2
    assert VAULT.open(both.get_json()["state"])["seq"] == 2
    one = post(
        private_client, "/v1/replay", {"state": game["state"], "seats": [game["seats"][first]] * 2, "actions": actions}
    )
    assert one.status_code == 403 and one.get_json()["code"] == "not_your_seat"
    from_game = post(private_client, "/v1/replay", {"game": private_game_body, "actions": actions})
    assert from_game.status_code == 400 and from_game.get_json()["code"] == "not_in_private_mode"


# -- reveal -------------------------------------------------------------------------------


def test_reveal_only_once_the_game_is_over_with_both_seats(private_client, client, private_game_body):
    game = deal(private_client, private_game_body)
    early = post(private_client, "/v1/reveal", {"state": game["state"], "seats": game["seats"]})
    assert early.status_code == 403 and early.get_json()["code"] == "game_not_over"
    conceded = post(
        private_client,
        "/v1/apply",
        {"state": game["state"], "seat": game["seats"][1], "action": {"type": "concede", "player": 1}},
    ).get_json()
    assert conceded["view"]["result"] == {"winner": 0, "reason": "concede"}
    revealed = post(private_client, "/v1/reveal", {"state": conceded["state"], "seats": game["seats"]})
    assert commitment(revealed.get_json()["state"]["seed"]) == game["commitment"]
    plain = post(client, "/v1/reveal", {"state": conceded["state"], "seats": game["seats"]})
    assert plain.status_code == 400 and plain.get_json()["code"] == "private_mode_off"


def test_a_player_cannot_concede_on_a_copy_and_reveal_it_to_see_the_cards(private_client, private_game_body):
    """The referee cannot tell a fork from the game: revealing needs the opponent's seat too."""
    game = deal(private_client, private_game_body)
    fork = post(
        private_client,
        "/v1/apply",
        {"state": game["state"], "seat": game["seats"][0], "action": {"type": "concede", "player": 0}},
    ).get_json()["state"]
    for seats in ([game["seats"][0]] * 2, [game["seats"][0], deal(private_client, private_game_body)["seats"][1]]):
        resp = post(private_client, "/v1/reveal", {"state": fork, "seats": seats})
        assert resp.status_code == 403 and resp.get_json()["code"] in ("not_your_seat", "bad_seat")
        assert "seed" not in resp.get_data(as_text=True)
    alone = post(private_client, "/v1/reveal", {"state": fork})
    assert alone.status_code == 400 and "seats" in alone.get_json()["errors"]


# -- plain mode and settings ---------------------------------------------------------------


def test_plain_views_carry_seq_and_the_commitment(client, new_game_body):
    state = post(client, "/v1/games", new_game_body).get_json()["state"]
    assert state["seq"] == 0 and "game_id" not in state
    view = post(client, "/v1/view", {"state": state, "player": 0}).get_json()["view"]
    assert view["seq"] == 0 and view["commitment"] == commitment(new_game_body["seed"])


@pytest.mark.parametrize(
    "env, message",
    [
        ({"REFEREE_STATE_KEY": "abc"}, "not a 256-bit key"),
        ({"REFEREE_STATE_KEY": "0" * 64}, "not a 256-bit key"),
        ({"REFEREE_STATE_KEY": STATE_KEY[:-1]}, "not a 256-bit key"),
        ({"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_SECRET": SECRET}, "both set"),
        ({"REFEREE_STATE_KEY_PREVIOUS": STATE_KEY}, "without REFEREE_STATE_KEY"),
    ],
)
def test_bad_key_settings_are_one_line_errors(env, message):
    from referee.service.config import ConfigError, Settings

    with pytest.raises(ConfigError, match=message) as exc:
        Settings.from_env(env)
    assert "\n" not in str(exc.value)


def test_a_base64url_key_is_the_same_key_as_its_hex():
    import base64

    from referee.service.config import Settings

    key = bytes.fromhex(STATE_KEY)
    text = base64.urlsafe_b64encode(key).decode().rstrip("=")
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", text)
    assert Settings.from_env({"REFEREE_STATE_KEY": text}).state_key == key


def test_serve_refuses_a_bad_key_in_one_line():
    import subprocess
    import sys
    from pathlib import Path

    exe = str(Path(sys.executable).with_name("referee"))
    out = subprocess.run(
        [exe, "serve", "--port", "0"],
        env={"REFEREE_STATE_KEY": "short", "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "REFEREE_STATE_KEY" in out.stderr


# -- hostile bodies ------------------------------------------------------------------------


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_mutated_private_bodies_are_refused_cleanly_never_a_500(private_client, private_game_body, flip_game, data):
    token, seats, action = flip_game
    bases = {
        "/v1/games": private_game_body,
        "/v1/apply": {"state": token, "action": action, "seat": seats[action["player"]]},
        "/v1/validate": {"state": token, "action": action, "seat": seats[action["player"]]},
        "/v1/legal-actions": {"state": token, "seat": seats[0]},
        "/v1/view": {"state": token, "seat": seats[1], "player": 1},
        "/v1/replay": {"state": token, "seats": seats, "actions": [action]},
        "/v1/reveal": {"state": token, "seats": seats},
    }
    path = data.draw(st.sampled_from(sorted(bases)))
    body = data.draw(
        mutated(
            bases[path],
            extra_values=[token, *seats, action, 0, 1],
            extra_keys=["state", "seat", "seats", "action", "player", "seed", "game"],
        )
    )
    resp = post(private_client, path, body)
    assert resp.status_code in (200, 201, 400, 403, 422), (path, body, resp.get_json())
    answer = resp.get_json()
    if resp.status_code >= 400:
        assert "state" not in answer or path == "/v1/replay"  # a refusal carries no state
    elif "state" in answer and path != "/v1/reveal":
        assert isinstance(answer["state"], str) and answer["state"].startswith("afs1.")


def test_a_private_refusal_names_the_players_by_the_games_names(private_client, private_game_body):
    """Given a private game of Aoi and Ren, when the player who may not act now tries to, then the
    detail names them as the table does (plain mode's words), the indexes kept in the problem's fields;
    validate says the same."""
    game = deal(private_client, {**private_game_body, "players": ["Aoi", "Ren"]})
    waiting = 1 - VAULT.open(game["state"])["active"]
    body = {"state": game["state"], "action": {"type": "keep", "player": waiting}, "seat": game["seats"][waiting]}
    names = ["Aoi", "Ren"]
    resp = post(private_client, "/v1/apply", body)
    assert resp.status_code == 422
    problem = resp.get_json()
    assert problem["detail"] == f"{names[waiting]} may not act now; {names[1 - waiting]} acts."
    assert (problem["player"], problem["actor"]) == (waiting, 1 - waiting)
    verdict = post(private_client, "/v1/validate", body).get_json()
    assert verdict["violation"]["detail"] == problem["detail"]
