"""``referee.client`` in private play (docs/api.md §10): ``PrivateGame`` holds a token and one seat,
the new refusals are typed errors, and a rollback is detected by ``seq``."""

from __future__ import annotations

import random

import httpx
import pytest
from conftest import keep_or_random

from referee.client import (
    GameNotOver,
    NotInPrivateMode,
    PrivateGame,
    PrivateModeOff,
    RefereeClient,
    RollbackDetected,
    SeatRejected,
    TokenRejected,
)
from referee.engine.fair_deal import commitment


@pytest.fixture
def ref(private_app):
    with RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=private_app)) as client:
        yield client


@pytest.fixture
def plain_ref(app):
    with RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=app)) as client:
        yield client


def test_two_private_players_play_to_the_end_and_reveal(ref, private_game_body):
    deal = ref.new_private_game(private_game_body)
    players = [PrivateGame(ref, deal.state, deal.seats[p]) for p in (0, 1)]
    assert [p.player for p in players] == [0, 1] and players[0].commitment == deal.commitment
    rng, token = random.Random("client"), deal.state
    for _ in range(600):
        if players[0].view["phase"] == "over":
            break
        mover = next(p for p in players if any(a["type"] != "concede" for a in p.legal_actions()))
        step = mover.apply(keep_or_random(mover.legal_actions(), rng))
        token = step.state
        players[1 - mover.player].receive(token)
    else:
        players[0].apply({"type": "concede", "player": 0})
        players[1].receive(players[0].token)
    revealed = players[1].reveal(players[0].seat)  # at the end, Aoi gives Ren her seat
    assert commitment(revealed["seed"]) == deal.commitment and revealed["phase"] == "over"


def test_an_older_token_is_a_rollback(ref, private_game_body):
    deal = ref.new_private_game(private_game_body)
    first = ref.private_view(deal.state, deal.seats[0])["active"]
    me = PrivateGame(ref, deal.state, deal.seats[first])
    me.apply({"type": "keep", "player": first})
    with pytest.raises(RollbackDetected):
        me.receive(deal.state)


def test_the_new_refusals_are_typed(ref, plain_ref, private_game_body):
    deal = ref.new_private_game(private_game_body)
    other = ref.new_private_game(private_game_body)
    with pytest.raises(NotInPrivateMode):
        ref.new_private_game({**private_game_body, "seed": "mine"})
    with pytest.raises(TokenRejected) as exc:
        ref.private_view(deal.state[:-2] + "AA", deal.seats[0])
    assert exc.value.code == "bad_token"
    with pytest.raises(SeatRejected) as exc:
        ref.private_view(deal.state, other.seats[0])
    assert exc.value.code == "bad_seat"
    with pytest.raises(SeatRejected) as exc:
        ref.private_apply(deal.state, deal.seats[0], {"type": "concede", "player": 1})
    assert exc.value.code == "not_your_seat"
    with pytest.raises(GameNotOver):
        ref.reveal(deal.state, deal.seats)
    with pytest.raises(SeatRejected):
        ref.reveal(deal.state, [deal.seats[0], deal.seats[0]])
    with pytest.raises(PrivateModeOff):
        plain_ref.reveal(deal.state, deal.seats)


def test_a_seat_asks_for_a_suggestion(ref, private_game_body):
    deal = ref.new_private_game(private_game_body)
    mover = next(s for s in deal.seats if any(a["type"] != "concede" for a in ref.private_legal_actions(deal.state, s)))
    hint = ref.private_suggest(deal.state, mover, "ismcts", iterations=4)
    assert hint.action in ref.private_legal_actions(deal.state, mover) and hint.label
