"""Spectators a few moves behind (docs/api.md §12 "Delay"), against a real SQLite ledger (and a real Redis):
a private NewGame's ``watch_delay`` n; the watch key's ``/v1/view`` and ``/v1/latest`` show the game at seq
max(0, latest - n) until it is over, then everything; no endpoint gives a spectator a later state; the seats
are not delayed; without a ledger the delay is refused (400 ``no_ledger``)."""

from __future__ import annotations

import pytest

from tests.conftest import STATE_KEY
from tests.test_ledger import VAULT, Game, post

DELAY = 3


@pytest.fixture(params=["sqlite", "redis"])
def delayed(request, make_app, tmp_path, private_game_body):
    """A private game dealt with ``watch_delay`` 3 on a ledger of each kind, five moves played."""
    url = f"sqlite:///{tmp_path / 'ledger.db'}" if request.param == "sqlite" else request.getfixturevalue("redis_url")
    client = make_app(state_key=STATE_KEY, ledger=url).test_client()
    game = Game(client, {**private_game_body, "watch_delay": DELAY})
    game.play(5)
    return game


def watch_view(game: Game, token: str) -> dict:
    resp = post(game.client, "/v1/view", {"state": token, "seat": game.watch})
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["view"]


def latest(game: Game, seat: str) -> dict:
    resp = post(game.client, "/v1/latest", {"game_id": game.game_id, "seat": seat})
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def test_a_spectator_sees_the_game_n_moves_behind_and_the_view_says_so(delayed):
    answer = latest(delayed, delayed.watch)
    assert answer["seq"] == 5 - DELAY and answer["view"]["seq"] == 5 - DELAY
    assert VAULT.open(answer["state"])["seq"] == 5 - DELAY  # the token handed over is the delayed one too
    assert answer["view"]["player"] is None and answer["view"]["watch_delay"] == DELAY


def test_no_endpoint_gives_a_spectator_a_later_state(delayed):
    """The latest token itself, sent with the watch key, shows the delayed position; an older one stays older."""
    assert watch_view(delayed, delayed.token)["seq"] == 5 - DELAY
    first = latest(delayed, delayed.seats[0])  # a seat's view is not delayed
    assert first["seq"] == 5 and first["view"]["seq"] == 5
    deal = post(delayed.client, "/v1/latest", {"game_id": delayed.game_id, "seat": delayed.watch}).get_json()
    assert watch_view(delayed, deal["state"])["seq"] == 5 - DELAY


def test_the_first_moves_show_the_deal(make_app, tmp_path, private_game_body):
    client = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{tmp_path / 'l.db'}").test_client()
    game = Game(client, {**private_game_body, "watch_delay": DELAY})
    game.play(2)
    assert latest(game, game.watch)["seq"] == 0  # max(0, 2 - 3)


def test_once_the_game_is_over_the_spectator_sees_everything(delayed):
    resp = delayed.apply({"type": "concede", "player": 1})
    assert resp.status_code == 200
    delayed.token = resp.get_json()["state"]
    answer = latest(delayed, delayed.watch)
    assert answer["seq"] == 6 and answer["view"]["result"] == {"winner": 0, "reason": "concede"}
    assert watch_view(delayed, delayed.token)["seq"] == 6


def test_a_game_without_a_delay_is_watched_live(make_app, tmp_path, private_game_body):
    client = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{tmp_path / 'l.db'}").test_client()
    game = Game(client, private_game_body)
    game.play(4)
    answer = latest(game, game.watch)
    assert answer["seq"] == 4 and "watch_delay" not in answer["view"]


@pytest.mark.parametrize("mode", ["plain", "private without a ledger"])
def test_a_delay_without_a_ledger_is_400_no_ledger(make_app, new_game_body, private_game_body, mode):
    """A spectator holding a later token would see it anyway: the delay needs the ledger's tokens."""
    client = (make_app() if mode == "plain" else make_app(state_key=STATE_KEY)).test_client()
    body = {**(new_game_body if mode == "plain" else private_game_body), "watch_delay": 2}
    resp = post(client, "/v1/games", body)
    assert resp.status_code == 400 and resp.get_json()["code"] == "no_ledger", resp.get_json()
    assert "watch_delay" in resp.get_json()["detail"]


@pytest.mark.parametrize("value", [-1, 51, 2.0, True, "3"])
def test_a_delay_out_of_range_is_400_naming_the_field(make_app, tmp_path, private_game_body, value):
    client = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{tmp_path / 'l.db'}").test_client()
    resp = post(client, "/v1/games", {**private_game_body, "watch_delay": value})
    assert resp.status_code == 400 and "watch_delay" in resp.get_json()["errors"], resp.get_json()


def test_a_spectators_record_ends_where_its_view_does(delayed):
    """docs/api.md §14: the watch key's record from the ledger holds the moves up to the delayed seq only."""

    def moves(seat: str) -> int:
        resp = post(delayed.client, "/v1/records", {"game_id": delayed.game_id, "seat": seat})
        assert resp.status_code == 200, resp.get_json()
        return sum(1 for line in resp.get_data(as_text=True).splitlines() if line[:1].isdigit())

    assert moves(delayed.watch) == 5 - DELAY
    assert moves(delayed.seats[0]) == 5
