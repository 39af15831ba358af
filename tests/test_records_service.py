"""POST /v1/records and /v1/replay with a record (docs/api.md §14, docs/records.md): the record as text, the
replay's 422 with its index and line, a 400 ``bad_record`` with the line, never a 500."""

from __future__ import annotations

import pytest

from referee.engine.playout import play_out, random_new_game
from referee.engine.records import read, record_text


@pytest.fixture(scope="module")
def client(make_app):
    return make_app().test_client()


@pytest.fixture(scope="module")
def game(catalog):
    return play_out(catalog, "service-record")


def test_a_game_gives_its_record_as_text_that_replays_to_the_same_state(client, game, catalog):
    new_game, final, actions = game
    answer = client.post("/v1/records", json={"game": new_game, "actions": actions})
    assert answer.status_code == 200
    assert answer.headers["Content-Type"] == "text/plain; charset=utf-8"
    text = answer.get_data(as_text=True)
    assert text == record_text(catalog, new_game, actions)
    replayed = client.post("/v1/replay", json={"record": text})
    assert replayed.status_code == 200
    assert replayed.json == {"state": final, "applied": len(actions)}
    again = client.post("/v1/records", json={"record": text})
    assert again.get_data(as_text=True) == text


def test_a_record_read_gives_its_game_its_actions_and_the_line_of_each(client, game, catalog):
    """POST /v1/records/read: what a viewer steps through; each action's line is the line it stands on."""
    new_game, _, actions = game
    text = record_text(catalog, new_game, actions)
    answer = client.post("/v1/records/read", json={"record": "; a comment first\n" + text})
    assert answer.status_code == 200
    parts = answer.json
    assert parts["actions"] == read(text).actions and parts["times"] is None
    assert client.post("/v1/replay", json={"game": parts["game"], "actions": parts["actions"]}).status_code == 200
    lines = ("; a comment first\n" + text).split("\n")
    assert [lines[n - 1].split(".")[0] for n in parts["lines"]] == [str(i + 1) for i in range(len(actions))]
    seat = record_text(catalog, new_game, actions, seat=0)
    refused = client.post("/v1/records/read", json={"record": seat})
    assert (refused.status_code, refused.json["code"]) == (400, "bad_record")
    assert refused.json["line"] == seat.split("\n").index('[Seat "0"]') + 1


@pytest.mark.parametrize("player", [0, 1, None])
def test_a_seat_or_a_spectator_gets_the_record_of_what_it_may_know(client, game, catalog, player):
    new_game, _, actions = game
    answer = client.post("/v1/records", json={"game": new_game, "actions": actions, "player": player})
    text = answer.get_data(as_text=True)
    assert text == record_text(catalog, new_game, actions, seat=player)
    assert "[Seed" not in text and "[Commitment" in text
    from_record = client.post("/v1/records", json={"record": record_text(catalog, new_game, actions), "player": player})
    assert from_record.get_data(as_text=True) == text
    refused = client.post("/v1/replay", json={"record": text})
    assert (refused.status_code, refused.json["code"]) == (400, "bad_record")
    assert (
        refused.json["line"]
        == text.split("\n").index('[Seat "spectator"]' if player is None else f'[Seat "{player}"]') + 1
    )


def test_an_illegal_action_is_the_replays_422_with_index_and_the_records_line(client, game, catalog):
    new_game, _, actions = game
    bent = [*actions[:3], {"type": "draw", "player": 1 - actions[3]["player"]}]
    answer = client.post("/v1/records", json={"game": new_game, "actions": bent})
    assert (answer.status_code, answer.json["index"]) == (422, 3)
    text = record_text(catalog, new_game, actions[:4])
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("4. "))
    p0, p1 = ("P0", "P1")
    lines[at] = f"4. {(p0, p1)[1 - actions[3]['player']]} draw"
    refused = client.post("/v1/replay", json={"record": "\n".join(lines)})
    assert refused.status_code == 422
    assert (refused.json["index"], refused.json["line"]) == (3, at + 1)


@pytest.mark.parametrize(
    ("bend", "words"),
    [
        (lambda t: t.replace("\n", "\r\n"), "CR LF"),
        (lambda t: "\ufeff" + t, "byte order mark"),
        (lambda t: t.replace("[Options", '[Options "x"]\n[Options', 1), "Options"),
        (lambda t: t.replace('[Result "*"]', '[Result "0 concede"]'), "Result"),
        (lambda t: t[:-3], None),
        (lambda t: "", "empty"),
    ],
)
def test_a_record_that_does_not_read_is_400_bad_record_with_its_line(client, catalog, bend, words):
    text = record_text(catalog, random_new_game(catalog, "bad-record"), [])
    refused = client.post("/v1/replay", json={"record": bend(text)})
    assert (refused.status_code, refused.json["code"]) == (400, "bad_record"), refused.json
    assert isinstance(refused.json["line"], int) and refused.json["line"] >= 1
    if words:
        assert words in refused.json["detail"]


@pytest.mark.parametrize(
    "body",
    [
        {"record": 7},
        {"record": None},
        {"record": "x", "actions": []},
        {"game": {"decks": []}, "actions": [], "player": 2},
        {"game": {"decks": []}, "actions": [], "times": "soon"},
        {"actions": []},
    ],
)
def test_a_malformed_records_body_is_a_400_never_a_500(client, body):
    answer = client.post("/v1/records", json=body)
    assert answer.status_code == 400, answer.json


def test_a_record_from_a_state_past_the_deal_is_refused_a_record_starts_at_the_deal(client, game):
    answer = client.post("/v1/records", json={"state": game[1], "actions": []})
    assert (answer.status_code, answer.json["code"]) == (400, "record_needs_game")


def test_a_record_from_the_state_of_a_deal_names_the_newgame_that_deals_it(client, catalog):
    """Decks in card-id order: the deal's NewGame is found again, so the state of a deal gives the whole record;
    a deal from a hand-ordered list cannot be named (the order is gone), and gives only a seat's record."""
    ordered = random_new_game(catalog, "from-deal")
    ordered["decks"] = [{c: d.count(c) for c in sorted(set(d))} for d in ordered["decks"]]
    for game in (ordered, {**ordered, "first_player": 1}):
        dealt = client.post("/v1/games", json=game).json["state"]
        answer = client.post("/v1/records", json={"state": dealt, "actions": []})
        assert answer.get_data(as_text=True) == record_text(catalog, game, [])
    listed = random_new_game(catalog, "from-deal")
    dealt = client.post("/v1/games", json=listed).json["state"]
    refused = client.post("/v1/records", json={"state": dealt, "actions": []})
    assert (refused.status_code, refused.json["code"]) == (400, "record_needs_game")
    seat = client.post("/v1/records", json={"state": dealt, "actions": [], "player": 1})
    assert seat.status_code == 200
    assert seat.get_data(as_text=True) == record_text(catalog, listed, [], seat=1).replace(
        read(record_text(catalog, listed, [], seat=1)).tags["Deck1"],
        read(record_text(catalog, {**listed, "decks": [sorted(d) for d in listed["decks"]]}, [], seat=1)).tags["Deck1"],
    ).replace(" drawn", "")


def test_private_mode_a_seats_record_any_time_the_whole_record_once_the_game_is_over(private_client, private_game_body):
    """docs/api.md §10's reveal rule: both seats, and the seed only when the game is over."""
    ordered = {
        **private_game_body,
        "decks": [{c: d.count(c) for c in sorted(set(d))} for d in private_game_body["decks"]],
    }
    new = private_client.post("/v1/games", json=ordered).json
    token, seats = new["state"], new["seats"]
    body = {"state": token, "seats": seats, "actions": []}
    seat = private_client.post("/v1/records", json={**body, "player": 0})
    assert seat.status_code == 200
    assert f'[Commitment "{new["commitment"]}"]' in seat.get_data(as_text=True)
    early = private_client.post("/v1/records", json=body)
    assert (early.status_code, early.json["code"]) == (403, "game_not_over")
    over = private_client.post("/v1/records", json={**body, "actions": [{"type": "concede", "player": 1}]})
    assert over.status_code == 200
    record = read(over.get_data(as_text=True))
    assert record.result == {"winner": 0, "reason": "concede"} and "Seed" in record.tags
    from referee.engine.facts import commitment

    assert commitment(record.tags["Seed"]) == new["commitment"]
    one_seat = private_client.post("/v1/records", json={"state": token, "seats": seats[:1], "actions": []})
    assert one_seat.status_code in (400, 403)
    refused = private_client.post("/v1/records", json={"game": private_game_body, "actions": []})
    assert (refused.status_code, refused.json["code"]) == (400, "not_in_private_mode")


def test_a_record_over_the_body_limit_is_413(make_app, catalog):
    small = make_app(max_body=64 * 1024).test_client()
    text = record_text(catalog, random_new_game(catalog, "big"), [])
    assert small.post("/v1/replay", json={"record": text + ";" * 70_000 + "\n"}).status_code == 413
    assert read(text).tags["Result"] == "*"


@pytest.mark.e2e
def test_a_record_over_real_http_is_utf8_text_and_a_bad_one_is_a_problem(serve, game, catalog):
    """The real server (gunicorn) answers the record as text/plain UTF-8, byte for byte the engine's."""
    import httpx

    new_game, _, actions = game
    new_game = {**new_game, "players": ["葵", "蓮"]}  # names beyond ASCII, written as they are
    server = serve(workers=1)
    with httpx.Client(base_url=server.url, timeout=30) as http:
        answer = http.post("/v1/records", json={"game": new_game, "actions": actions})
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "text/plain; charset=utf-8"
        assert answer.content == record_text(catalog, new_game, actions).encode("utf-8")
        replayed = http.post("/v1/replay", json={"record": answer.text})
        assert (replayed.status_code, replayed.json()["applied"]) == (200, len(actions))
        refused = http.post("/v1/replay", json={"record": answer.text.replace("\n", "\r\n")})
        assert refused.status_code == 400
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert (refused.json()["code"], refused.json()["line"]) == ("bad_record", 1)


def test_private_mode_replays_a_finished_games_whole_record_and_opens_its_positions(private_client, private_game_body):
    """docs/api.md §14: the whole record of a game that is over replays on the private referee that wrote
    it (its seed is revealed anyway); the answer's deal token and seats step through it with /v1/replay."""
    new = private_client.post("/v1/games", json=private_game_body).json
    body = {"state": new["state"], "seats": new["seats"], "actions": [{"type": "concede", "player": 1}]}
    text = private_client.post("/v1/records", json=body).get_data(as_text=True)
    replayed = private_client.post("/v1/replay", json={"record": text})
    assert replayed.status_code == 200, replayed.json
    answer = replayed.json
    assert answer["applied"] == 1 and set(answer) == {"state", "applied", "start", "seats"}
    seats = answer["seats"]
    assert seats != new["seats"]  # a game of its own: the players' seats open nothing of it
    deal = private_client.post("/v1/view", json={"state": answer["start"], "seat": seats[0]}).json["view"]
    assert deal["seq"] == 0 and deal["phase"] == "mulligan"
    step = private_client.post(
        "/v1/replay", json={"state": answer["start"], "seats": seats, "actions": body["actions"]}
    )
    last = private_client.post("/v1/view", json={"state": step.json["state"], "seat": seats[1]}).json["view"]
    assert last["result"] == {"winner": 0, "reason": "concede"}
    again = private_client.post("/v1/replay", json={"record": text}).json
    assert again["seats"] == seats  # the same record, the same replayed game, on every replica


def test_private_mode_refuses_a_record_of_a_game_going_on(private_client, catalog):
    """A whole record without its Result (a game going on) names a seed a private game still hides: refused."""
    text = record_text(catalog, random_new_game(catalog, "going-on"), [])
    refused = private_client.post("/v1/replay", json={"record": text})
    assert (refused.status_code, refused.json["code"]) == (400, "not_in_private_mode"), refused.json
    assert "Result" in refused.json["detail"]
