"""Clocks and matches through the service (docs/api.md §15), in-process on a real SQLite file and a real Redis.

The ledger's clock is moved forward with its ``ahead_ms`` instead of sleeping: a test that sleeps runs
its minutes for real (tests/test_e2e_clocks.py has the one real-time test). The tests hold the key, so
they can open tokens; a client never can.
"""

from __future__ import annotations

from datetime import datetime

import orjson
import pytest
from conftest import STATE_KEY

from referee import engine
from referee.engine import Catalog, records
from referee.private.tokens import Vault

VAULT = Vault(bytes.fromhex(STATE_KEY))
CATALOG = Catalog.builtin()
CLOCK = {"initial": 600, "increment": 10}
MINUTES_10 = 600_000


def post(client, path: str, body: dict):
    return client.post(path, data=orjson.dumps(body), content_type="application/json")


@pytest.fixture(params=["sqlite", "redis"])
def clock_app(request, make_app, tmp_path):
    """A private referee with a ledger: a SQLite file of its own, or a real Redis (its TIME the clock)."""
    url = request.getfixturevalue("redis_url") if request.param == "redis" else f"sqlite:///{tmp_path / 'l.db'}"
    return make_app(state_key=STATE_KEY, ledger=url, ledger_timeout=1)


def ledger_of(app):
    return app.extensions["referee"].codec.ledger


def millis(since: str) -> int:
    return int(datetime.fromisoformat(since).timestamp() * 1000)


class Game:
    """A private game through a client: its token and seats; each move answers the mover's view."""

    def __init__(self, client, body: dict):
        resp = post(client, "/v1/games", body)
        assert resp.status_code == 201, resp.get_json()
        answer = resp.get_json()
        self.client, self.token, self.seats, self.watch = client, answer["state"], answer["seats"], answer["watch"]
        self.state = VAULT.open(self.token)
        self.view = self.ask("/v1/view", 0).get_json()["view"]

    def ask(self, path: str, player: int):
        return post(self.client, path, {"state": self.token, "seat": self.seats[player]})

    def send(self, action: dict, token: str | None = None):
        body = {"state": token or self.token, "action": action, "seat": self.seats[action["player"]]}
        return post(self.client, "/v1/apply", body)

    def move(self, action: dict):
        resp = self.send(action)
        assert resp.status_code == 200, resp.get_json()
        self.token, self.view = resp.get_json()["state"], resp.get_json()["view"]
        self.state = VAULT.open(self.token)
        return resp


def body_with(private_game_body, **extra) -> dict:
    return {**private_game_body, "first_player": 0, **extra}


def test_a_move_is_charged_the_time_the_ledger_recorded_not_the_requests(clock_app, private_game_body):
    ledger = ledger_of(clock_app)
    game = Game(clock_app.test_client(), body_with(private_game_body, clock=CLOCK))
    dealt = game.view["clock"]
    assert dealt["remaining"] == [MINUTES_10, MINUTES_10] and dealt["running"] == 0
    assert game.state["clock"]["started"] == millis(dealt["since"])
    ledger.ahead_ms += 42_000  # the ledger's clock runs 42 s on; the request carries no time at all
    game.move({"type": "keep", "player": 0})
    charged = millis(game.view["clock"]["since"]) - millis(dealt["since"])
    assert 42_000 <= charged < 52_000
    assert game.view["clock"]["remaining"] == [MINUTES_10 - charged + 10_000, MINUTES_10]
    assert game.view["clock"]["running"] == 1
    # the view's since is the ledger's time of the move: the state's started + last, to the millisecond
    assert millis(game.view["clock"]["since"]) == game.state["clock"]["started"] + game.state["clock"]["last"]
    assert (
        post(
            game.client,
            "/v1/apply",
            {"state": game.token, "action": {"type": "keep", "player": 1}, "seat": game.seats[1], "now": 0},
        ).status_code
        == 400
    )


@pytest.mark.parametrize("step_ms", [2_000, 1_500])
def test_a_clock_stepped_back_2_s_never_charges_a_move_less_than_the_time_that_passed(
    clock_app, private_game_body, monkeypatch, step_ms
):
    """Given a game whose first move is recorded, when the replica's wall clock steps back 2 s (or 1.5 s, inside
    the window Redis accepts a replica's reading of its clock in) and 5 s pass by the ledger's clock, then
    the next move is charged the 5 s, not 3 (3.5): the
    ledger's time advances by the monotonic clock once read (docs/ledger.md, "Clocks"), so no move is ever
    charged at a time before one already recorded."""
    import time

    ledger = ledger_of(clock_app)
    game = Game(clock_app.test_client(), body_with(private_game_body, clock=CLOCK))
    game.move({"type": "keep", "player": 0})
    first = millis(game.view["clock"]["since"])
    real_ns = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real_ns() - step_ms * 1_000_000)  # the step back
    ledger.ahead_ms += 5_000
    game.move({"type": "keep", "player": 1})
    charged = millis(game.view["clock"]["since"]) - first
    assert charged > 4_900, charged  # (Redis: the reading of its TIME is a round trip old)
    assert game.view["clock"]["remaining"][1] == MINUTES_10 - charged + 10_000


def test_a_late_move_is_refused_with_nothing_recorded_and_the_opponents_claim_ends_the_game(
    clock_app, private_game_body
):
    ledger = ledger_of(clock_app)
    game = Game(clock_app.test_client(), body_with(private_game_body, clock=CLOCK))
    assert "claim_time" not in [a["type"] for a in game.ask("/v1/legal-actions", 1).get_json()["actions"]]
    ledger.ahead_ms += MINUTES_10 + 1_000
    late = game.send({"type": "keep", "player": 0})
    assert late.status_code == 422
    assert (late.get_json()["rule"], late.get_json()["code"]) == ("11.5", "time_out")
    assert ledger.latest(game.state["game_id"])[0] == 0  # nothing recorded
    assert game.ask("/v1/legal-actions", 0).get_json()["actions"] == [{"type": "concede", "player": 0}]
    assert {"type": "claim_time", "player": 1} in game.ask("/v1/legal-actions", 1).get_json()["actions"]
    game.move({"type": "claim_time", "player": 1})
    assert game.view["result"] == {"winner": 1, "reason": "time"}
    assert game.view["clock"]["remaining"][0] == 0 and game.view["clock"]["running"] is None
    assert ledger.latest(game.state["game_id"])[0] == 1


def test_a_retried_move_is_not_charged_twice_even_once_the_time_has_run_out(clock_app, private_game_body):
    ledger = ledger_of(clock_app)
    game = Game(clock_app.test_client(), body_with(private_game_body, clock=CLOCK))
    dealt = game.token
    ledger.ahead_ms += 5_000
    first = game.move({"type": "keep", "player": 0}).get_json()
    for more in (3_000, MINUTES_10 * 2):  # a retry a little later, and one after the time ran out
        ledger.ahead_ms += more
        again = game.send({"type": "keep", "player": 0}, token=dealt)
        assert again.status_code == 200, again.get_json()
        assert again.get_json()["state"] == first["state"]
        assert again.get_json()["view"] == first["view"] and again.get_json()["events"] == first["events"]


def test_a_claim_in_time_or_in_a_game_without_a_clock_is_refused(clock_app, private_game_body):
    game = Game(clock_app.test_client(), body_with(private_game_body, clock=CLOCK))
    early = game.send({"type": "claim_time", "player": 1}).get_json()
    assert (early["rule"], early["code"]) == ("12.1", "time_not_out")
    plain = Game(clock_app.test_client(), body_with(private_game_body))
    assert plain.view["clock"] is None and plain.view["match"] is None
    refused = plain.send({"type": "claim_time", "player": 1}).get_json()
    assert (refused["rule"], refused["code"]) == ("11.5", "no_clock")


def test_a_referee_without_a_ledger_refuses_a_clock(make_app, client, private_game_body, new_game_body):
    private = make_app(state_key=STATE_KEY).test_client()
    for c, body in ((private, private_game_body), (client, new_game_body)):
        resp = post(c, "/v1/games", {**body, "clock": CLOCK})
        assert (resp.status_code, resp.get_json()["code"]) == (400, "no_ledger")


@pytest.mark.parametrize(
    "clock", [{"initial": 9, "increment": 0}, {"initial": 600}, {"initial": 60, "increment": 3601}]
)
def test_a_clock_out_of_its_ranges_is_400(clock_app, private_game_body, clock):
    resp = post(clock_app.test_client(), "/v1/games", {**private_game_body, "clock": clock})
    assert (resp.status_code, resp.get_json()["code"]) == (400, "invalid_schema")


def test_a_redis_restart_mid_game_keeps_the_clocks(make_app, private_game_body, tmp_path):
    from tests.redis_server import RedisServer

    server = RedisServer(tmp_path / "redis")
    try:
        app = make_app(state_key=STATE_KEY, ledger=server.url, ledger_timeout=1)
        game = Game(app.test_client(), body_with(private_game_body, clock=CLOCK))
        ledger_of(app).ahead_ms += 7_000
        game.move({"type": "keep", "player": 0})
        before = game.view["clock"]
        server.stop()
        server.start()
        latest = post(game.client, "/v1/latest", {"game_id": game.state["game_id"], "seat": game.seats[1]})
        assert latest.status_code == 200, latest.get_json()
        assert latest.get_json()["view"]["clock"] == before and latest.get_json()["seq"] == 1
        game.token = latest.get_json()["state"]
        ledger_of(app).ahead_ms += 2_000
        game.move({"type": "keep", "player": 1})
        charged = millis(game.view["clock"]["since"]) - millis(before["since"])
        assert charged >= 2_000 and game.view["clock"]["remaining"][1] == MINUTES_10 - charged + 10_000
    finally:
        server.stop()


# -- matches (RULES 14) --------------------------------------------------------------------------


def test_a_private_match_deals_its_next_game_to_the_losers_choice_with_new_seats(clock_app, private_game_body):
    client = clock_app.test_client()
    game = Game(client, body_with(private_game_body, clock=CLOCK, match={"best_of": 3}))
    assert game.view["match"] == {"best_of": 3, "game": 1, "wins": [0, 0], "winner": None}
    early = post(client, "/v1/matches/next", {"state": game.token, "seats": [game.seats[0]], "first_player": 0})
    assert (early.status_code, early.get_json()["rule"]) == (422, "14.1")
    game.move({"type": "concede", "player": 0})  # player 1 wins game 1
    assert game.view["match"]["wins"] == [0, 1]
    winner = post(client, "/v1/matches/next", {"state": game.token, "seats": [game.seats[1]], "first_player": 1})
    assert (winner.status_code, winner.get_json()["code"]) == (403, "not_your_seat")
    nxt = post(client, "/v1/matches/next", {"state": game.token, "seats": [game.seats[0]], "first_player": 1})
    assert nxt.status_code == 201, nxt.get_json()
    answer = nxt.get_json()
    second = VAULT.open(answer["state"])
    assert set(answer) >= {"state", "seats", "watch", "commitment", "events"}
    assert answer["seats"] != game.seats and second["game_id"] != game.state["game_id"]
    assert second["seed"] != game.state["seed"] and second["first_player"] == 1
    assert second["match"] == {"best_of": 3, "game": 2, "wins": [0, 1], "winner": None}
    assert (second["clock"]["initial"], second["clock"]["remaining"]) == (600, [MINUTES_10, MINUTES_10])
    assert ledger_of(clock_app).latest(second["game_id"])[0] == 0  # recorded at seq 0
    for i in (0, 1):
        zones = ("file", "hand")
        dealt = sorted(second["cards"][c] for z in zones for c in second["players"][i][z])
        assert dealt == sorted(game.state["cards"][c] for c in game.state["cards"] if c.startswith("ab"[i]))


def test_plain_matches_next_trusts_its_caller_and_refuses_by_14_2_and_14_3(client, new_game_body):
    dealt = post(client, "/v1/games", {**new_game_body, "match": {"best_of": 1}}).get_json()["state"]
    over = post(client, "/v1/apply", {"state": dealt, "action": {"type": "concede", "player": 1}}).get_json()["state"]
    assert over["match"]["winner"] == 0
    done = post(client, "/v1/matches/next", {"state": over, "first_player": 0}).get_json()
    assert (done["rule"], done["code"]) == ("14.3", "match_over")
    dealt = post(client, "/v1/games", {**new_game_body, "match": {"best_of": 3}}).get_json()["state"]
    over = post(client, "/v1/apply", {"state": dealt, "action": {"type": "concede", "player": 1}}).get_json()["state"]
    chosen = post(client, "/v1/matches/next", {"state": over, "first_player": 0, "player": 0}).get_json()
    assert (chosen["rule"], chosen["code"]) == ("14.2", "loser_chooses")
    nxt = post(client, "/v1/matches/next", {"state": over, "first_player": 0, "player": 1})
    assert nxt.status_code == 201 and nxt.get_json()["state"]["match"]["game"] == 2
    bad = post(client, "/v1/matches/next", {"state": over, "first_player": 2})
    assert (bad.status_code, bad.get_json()["code"]) == (400, "invalid_schema")


def test_a_plain_replay_of_a_clocked_game_charges_from_the_times(client, new_game_body):
    game = {**new_game_body, "clock": CLOCK, "first_player": 0}
    actions = [{"type": "keep", "player": 0}, {"type": "keep", "player": 1}]
    resp = post(client, "/v1/replay", {"game": game, "actions": actions, "times": [1_000, 61_000]})
    assert resp.status_code == 200, resp.get_json()
    clock = resp.get_json()["state"]["clock"]
    assert clock["remaining"] == [MINUTES_10 + 9_000, MINUTES_10 - 60_000 + 10_000] and clock["last"] == 61_000
    missing = post(client, "/v1/replay", {"game": game, "actions": actions})
    assert (missing.status_code, missing.get_json()["errors"].keys() >= {"times"}) == (400, True)
    applied = post(
        client, "/v1/apply", {"state": resp.get_json()["state"], "action": {"type": "skip_case", "player": 0}}
    )
    assert (applied.status_code, applied.get_json()["code"]) == (400, "no_ledger")


def test_a_replica_whose_reading_of_redis_clock_is_off_has_its_move_made_again_at_redis_time(
    make_app, redis_url, private_game_body
):
    """The record's script checks a clocked move's time against Redis's TIME (docs/ledger.md, Clocks): a
    replica whose reading is 10 s ahead has its move refused there, and made again at Redis's time."""
    import redis

    app = make_app(state_key=STATE_KEY, ledger=redis_url, ledger_timeout=1)
    game = Game(app.test_client(), body_with(private_game_body, clock=CLOCK))
    ledger = ledger_of(app)
    assert ledger._skew is not None  # read once, at the deal
    ledger._skew += 10_000
    server = redis.Redis.from_url(redis_url)
    seconds, micros = server.time()
    game.move({"type": "keep", "player": 0})
    after_s, after_us = server.time()
    since = millis(game.view["clock"]["since"])
    assert seconds * 1000 + micros // 1000 <= since <= after_s * 1000 + after_us // 1000
    assert abs(ledger.now(game.state["game_id"]) - since) < 5_000  # relearned from the record's TIME


def test_a_bot_suggests_a_move_in_a_clocked_game(make_app, tmp_path, private_game_body):
    """/v1/suggest from a clocked game's seat: the bot samples the game from the view, whose clock is the
    view's (no `started`), and plays it out without one; never a 500."""
    app = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{tmp_path / 'l.db'}", ledger_timeout=1)
    client = app.test_client()
    new = post(client, "/v1/games", {**private_game_body, "clock": {"initial": 600, "increment": 10}})
    token, seats = new.json["state"], new.json["seats"]
    for _ in range(12):  # past the mulligans, into the main step where the bot tries each move
        view = post(client, "/v1/view", {"state": token, "seat": seats[0]}).json["view"]
        actor = view["pending"]["responder"] if view.get("pending") else view["active"]
        asked = post(client, "/v1/suggest", {"state": token, "seat": seats[actor], "bot": "greedy", "iterations": 3})
        assert asked.status_code == 200, asked.json
        moved = post(client, "/v1/apply", {"state": token, "seat": seats[actor], "action": asked.json["action"]})
        assert moved.status_code == 200, moved.json
        token = moved.json["state"]


def test_each_seat_of_a_finished_game_finds_the_matchs_next_game_once_the_loser_deals_it(clock_app, private_game_body):
    """docs/api.md §15: /v1/latest on a finished game of a match answers `next` once the loser has dealt it: the
    next game's id and the same player's seat in it (the watch key's for a spectator); it is dealt once."""
    client = clock_app.test_client()
    game = Game(client, body_with(private_game_body, match={"best_of": 3}))
    game_id = game.state["game_id"]

    def latest(key: str) -> dict:
        resp = post(client, "/v1/latest", {"game_id": game_id, "seat": key})
        assert resp.status_code == 200, resp.get_json()
        return resp.get_json()

    assert "next" not in latest(game.seats[1])  # the game goes on
    game.move({"type": "concede", "player": 0})
    assert "next" not in latest(game.seats[1])  # over, the next game not dealt yet
    body = {"state": game.token, "seats": [game.seats[0]], "first_player": 1}
    dealt = post(client, "/v1/matches/next", body)
    assert dealt.status_code == 201, dealt.get_json()
    second = dealt.get_json()
    second_id = VAULT.open(second["state"])["game_id"]
    for player, key, expected in ((1, game.seats[1], second["seats"][1]), (0, game.seats[0], second["seats"][0])):
        assert latest(key)["next"] == {"game_id": second_id, "seat": expected}, player
    assert latest(game.watch)["next"] == {"game_id": second_id, "seat": second["watch"]}
    joined = post(client, "/v1/latest", {"game_id": second_id, "seat": second["seats"][1]}).get_json()
    assert joined["state"] == second["state"] and joined["view"]["match"]["game"] == 2

    again = post(client, "/v1/matches/next", {**body, "first_player": 0})  # a second click, or a second device
    assert (again.status_code, again.get_json()["code"], again.get_json()["game_id"]) == (
        409,
        "next_game_dealt",
        second_id,
    )
    assert ledger_of(clock_app).latest(second_id) == (0, second["state"])  # game 2 untouched

    # Game 2's record, from the ledger, names the match as it stood at its deal and replays to its end.
    step = post(
        client,
        "/v1/apply",
        {"state": second["state"], "action": {"type": "concede", "player": 1}, "seat": second["seats"][1]},
    )
    assert step.status_code == 200, step.get_json()
    record = post(client, "/v1/records", {"game_id": second_id, "seats": second["seats"]})
    assert record.status_code == 200, record.get_json()
    assert '[Match "best_of=3 game=2 wins=0-1"]' in record.text
    game2 = records.read(record.text).replay_body(CATALOG)
    final, _ = engine.replay(CATALOG, game2["actions"], game=game2["game"])
    assert final["match"] == {"best_of": 3, "game": 2, "wins": [1, 1], "winner": None}
