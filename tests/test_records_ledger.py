"""A two-device private game's record, from the ledger (docs/api.md §14, docs/records.md "A record from the ledger").

Each page of a private game knows only its own moves; the ledger keeps every token and each action's digest.
``POST /v1/records`` with the game id recovers the moves from the tokens (``engine/recovery.py``) and writes
the record with the one writer. The tests play through the app on a real SQLite ledger, and compare with
the record written from the actions really sent (the existing route, which takes them); on SQLite and Redis.
"""

from __future__ import annotations

import random

import orjson
import pytest
from conftest import STATE_KEY, keep_or_random, post

from referee.engine import Catalog, apply, legal_actions, new_game
from referee.engine.playout import random_new_game
from referee.engine.records import read
from referee.engine.recovery import MAX_TRIES, RecoveryError, recover_moves
from referee.engine.rulebook import RULEBOOK
from referee.engine.session import Session
from referee.private.tokens import Vault

VAULT = Vault(bytes.fromhex(STATE_KEY))


@pytest.fixture
def ledger_app(make_ledger_app, ledger_url):
    """A private referee with a ledger: a SQLite file of its own, or a real Redis."""
    return make_ledger_app(ledger_url, ledger_timeout=1)


def ordered(game: dict) -> dict:
    """Decks as counts in card-id order: a whole record names the NewGame that dealt the game."""
    return {**game, "decks": [{c: d.count(c) for c in sorted(set(d))} for d in game["decks"]]}


def with_choices(catalog: Catalog, state: dict, action: dict, rng: random.Random) -> dict:
    """``action`` with the choices ``legal_actions`` leaves out: a discard of random cards in a random order,
    and now and then an explicit pay (random cases, in a random order; sometimes the ones the default pays)."""
    action = dict(action)
    if action["type"] == "discard":
        action["cards"] = rng.sample(state["players"][action["player"]]["hand"], len(action["cards"]))
        return action
    board = Session(catalog, state).board
    cost = RULEBOOK[action["type"]].cost(board, action)  # type: ignore[arg-type]
    if cost and rng.random() < 0.5:
        action["pay"] = rng.sample(board.unactioned_cases(action["player"]), cost)
    return action


class TwoDevices:
    """A private game whose two players act from two pages: each keeps only its own moves."""

    def __init__(self, client, body: dict):
        answer = post(client, "/v1/games", body).get_json()
        self.client, self.deal, self.seats, self.watch = client, answer["state"], answer["seats"], answer["watch"]
        self.game_id = VAULT.open(self.deal)["game_id"]
        self.token, self.actions, self.times = self.deal, [], []

    def state(self) -> dict:
        return VAULT.open(self.token)

    def move(self, action: dict) -> None:
        body = {"state": self.token, "action": action, "seat": self.seats[action["player"]]}
        resp = post(self.client, "/v1/apply", body)
        assert resp.status_code == 200, resp.get_json()
        self.token = resp.get_json()["state"]
        self.actions.append(action)
        clock = self.state()["clock"]
        if clock is not None:
            self.times.append(clock["last"])

    def play(self, catalog: Catalog, rng: random.Random, moves: int) -> bool:
        """At least ``moves`` random moves, with explicit pays, and on until a discard has been made; whether
        the game still goes on then (the referee deals its own seed, so now and then a game ends first)."""
        while len(self.actions) < moves or not any(a["type"] == "discard" for a in self.actions):
            state = self.state()
            if state["phase"] == "over":
                return False
            assert len(self.actions) < 600
            action = keep_or_random(legal_actions(catalog, state), rng)
            self.move(with_choices(catalog, state, action, rng))
        return self.state()["phase"] != "over"

    def record(self, **which) -> bytes:
        resp = post(self.client, "/v1/records", {"game_id": self.game_id, **which})
        assert resp.status_code == 200, resp.get_json()
        return resp.get_data()

    def written(self, **extra) -> bytes:
        """The record written from the actions really sent (``/v1/records`` from the deal's token)."""
        body = {"state": self.deal, "seats": self.seats, "actions": self.actions, **extra}
        if self.times:
            body["times"] = self.times
        resp = post(self.client, "/v1/records", body)
        assert resp.status_code == 200, resp.get_json()
        return resp.get_data()


def going_on(client, body: dict, catalog: Catalog, moves: int) -> TwoDevices:
    """A two-device game played as :meth:`TwoDevices.play` plays it and still going on (dealt again, at most
    five times, when a random game ends first)."""
    for attempt in range(5):
        game = TwoDevices(client, body)
        if game.play(catalog, random.Random(f"two devices {attempt}"), moves):
            return game
    raise AssertionError("five random games in a row ended before their moves were played")


def test_a_two_device_games_whole_record_from_the_ledger_is_the_record_of_the_moves_sent(
    ledger_app, private_game_body, catalog
):
    game = going_on(ledger_app.test_client(), ordered(private_game_body), catalog, 60)
    assert any("pay" in a for a in game.actions) and any(a["type"] == "discard" for a in game.actions)
    early = post(game.client, "/v1/records", {"game_id": game.game_id, "seats": game.seats})
    assert (early.status_code, early.get_json()["code"]) == (403, "game_not_over")
    for player in (0, 1):  # a seat's record, any time: as the seat's own page could write it with every move
        assert game.record(seat=game.seats[player]) == game.written(player=player)
    game.move({"type": "concede", "player": 1})
    whole = game.record(seats=game.seats)
    assert whole == game.written()  # byte for byte: every pay as sent, every discard in its order
    assert read(whole).result == {"winner": 0, "reason": "concede"} and "Seed" in read(whole).tags
    assert game.record(seats=game.seats[::-1]) == whole
    assert game.record(seat=game.watch) == game.written(player=None)


def test_a_clocked_games_record_from_the_ledger_has_each_moves_time(ledger_app, private_game_body, catalog):
    ledger = ledger_app.extensions["referee"].codec.ledger
    game = TwoDevices(
        ledger_app.test_client(), {**ordered(private_game_body), "clock": {"initial": 600, "increment": 5}}
    )
    rng = random.Random("clocked")
    for _ in range(12):
        ledger.ahead_ms += rng.randrange(100, 9_000)  # each move some seconds after the last
        state = game.state()
        game.move(with_choices(catalog, state, keep_or_random(legal_actions(catalog, state), rng), rng))
    record = read(game.record(seat=game.seats[0]))
    assert record.times == game.times and len(set(game.times)) == len(game.times)  # every move at its own time
    assert game.record(seat=game.seats[0]) == game.written(player=0)
    game.move({"type": "concede", "player": 0})
    assert game.record(seats=game.seats) == game.written()


def test_a_record_from_a_game_id_is_refused_clearly(ledger_app, make_app, private_app, private_game_body, catalog):
    client = ledger_app.test_client()
    game = TwoDevices(client, ordered(private_game_body))
    other = TwoDevices(client, ordered(private_game_body))

    def refused(body: dict, app=ledger_app) -> tuple[int, str]:
        resp = post(app.test_client(), "/v1/records", body)
        return resp.status_code, resp.get_json()["code"]

    assert refused({"game_id": "g-none", "seat": game.seats[0]}) == (403, "bad_seat")  # a seat of another game
    unknown = {"game_id": "g-none", "seat": VAULT.seat("g-none", 0)}
    assert refused(unknown) == (404, "unknown_game")
    assert refused({"game_id": game.game_id, "seat": other.seats[0]}) == (403, "bad_seat")
    assert refused({"game_id": game.game_id, "seats": [game.seats[0]] * 2}) == (403, "not_your_seat")
    assert refused({"game_id": game.game_id, "seats": game.seats, "seat": game.seats[0]}) == (400, "invalid_schema")
    assert refused({"game_id": game.game_id}) == (400, "invalid_schema")
    assert refused({"game_id": game.game_id, "seat": game.seats[0], "player": 0})[0] == 400
    assert refused({"game_id": 7, "seat": game.seats[0]}) == (400, "invalid_schema")
    for no_ledger in (private_app, make_app()):  # private without a ledger, and plain mode
        assert refused({"game_id": game.game_id, "seat": game.seats[0]}, no_ledger) == (400, "no_ledger")


def test_a_game_the_ledger_adopted_after_its_deal_is_409_not_recoverable(make_app, tmp_path, private_game_body):
    """The ledger holds a game from the seq it adopted it at (docs/api.md §11): no record from the deal."""
    url = f"sqlite:///{tmp_path / 'first.db'}"
    first = TwoDevices(make_app(state_key=STATE_KEY, ledger=url).test_client(), ordered(private_game_body))
    first.move({"type": "keep", "player": first.state()["first_player"]})
    later = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{tmp_path / 'second.db'}").test_client()
    state = first.state()
    move = {"type": "keep", "player": 1 - state["first_player"]}
    assert (
        post(
            later, "/v1/apply", {"state": first.token, "action": move, "seat": first.seats[move["player"]]}
        ).status_code
        == 200
    )
    resp = post(later, "/v1/records", {"game_id": first.game_id, "seat": first.seats[0]})
    assert (resp.status_code, resp.get_json()["code"]) == (409, "not_recoverable")


# -- the engine ---------------------------------------------------------------------------


def played(catalog: Catalog, seed: str, moves: int) -> tuple[list[dict], list[dict]]:
    rng = random.Random(seed)
    state, _ = new_game(catalog, random_new_game(catalog, seed))
    states, actions = [state], []
    while len(actions) < moves and state["phase"] != "over":
        action = with_choices(catalog, state, keep_or_random(legal_actions(catalog, state), rng), rng)
        state, _ = apply(catalog, state, action)
        states.append(state)
        actions.append(action)
    return states, actions


def test_recovered_moves_give_every_state_again(catalog):
    states, actions = played(catalog, "engine", 150)
    recovered = recover_moves(catalog, states)
    assert recovered.times is None and len(recovered.actions) == len(actions)
    state = states[0]
    for k, action in enumerate(recovered.actions):
        state, _ = apply(catalog, state, action)
        assert state == states[k + 1]


def test_the_digests_tell_apart_actions_that_give_one_state(catalog):
    states, actions = played(catalog, "digests", 150)

    def digest(action) -> str:
        return orjson.dumps(action, option=orjson.OPT_SORT_KEYS).decode()

    recovered = recover_moves(catalog, states, [digest(a) for a in actions], digest)
    assert recovered.actions == actions


def test_states_no_move_joins_are_refused_with_their_seq(catalog):
    states, _ = played(catalog, "gap", 10)
    with pytest.raises(RecoveryError) as raised:
        recover_moves(catalog, [states[0], states[3]])
    assert raised.value.seq == states[3]["seq"] and str(MAX_TRIES) in str(raised.value)


def test_the_client_saves_a_two_device_game_from_its_id(ledger_app, private_app, private_game_body):
    """``RefereeClient.game_record``: each device holds only its seat; the record comes from the ledger."""
    import httpx

    from referee.client import GameNotOver, NoLedger, RefereeClient, UnknownGame

    transport = httpx.WSGITransport(app=ledger_app)
    with RefereeClient("http://referee.test", transport=transport) as ref:
        deal = ref.new_private_game(ordered(private_game_body))
        game_id = VAULT.open(deal.state)["game_id"]
        first = ref.private_view(deal.state, deal.seats[0])["active"]
        token = ref.private_apply(deal.state, deal.seats[first], {"type": "keep", "player": first}).state
        mine = read(ref.game_record(game_id, seat=deal.seats[first]))
        assert mine.tags["Seat"] == str(first) and mine.actions == [{"type": "keep", "player": first}]
        with pytest.raises(GameNotOver):
            ref.game_record(game_id, seats=deal.seats)
        ref.private_apply(token, deal.seats[1 - first], {"type": "concede", "player": 1 - first})
        whole = read(ref.game_record(game_id, seats=deal.seats))
        assert whole.result == {"winner": first, "reason": "concede"} and len(whole.actions) == 2
        with pytest.raises(UnknownGame):
            ref.game_record("g-none", seat=VAULT.seat("g-none", 0))
        with pytest.raises(ValueError):
            ref.game_record(game_id)
    without = RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=private_app))
    with without as ref, pytest.raises(NoLedger):
        ref.game_record(game_id, seat=deal.seats[0])
