"""Private play over a real ``referee serve`` with a state key: two clients, each holding only
its own seat, play a whole game through the tokens the app between them relays; neither ever
receives the other's hand, and the revealed game's deal verifies."""

from __future__ import annotations

import random

import orjson
import pytest
from conftest import STATE_KEY, keep_or_random

from referee.client import PrivateGame, RefereeClient
from referee.engine import Catalog
from referee.engine.fair_deal import commitment, verify_deal

pytestmark = pytest.mark.e2e


def who_acts(view: dict) -> int:
    """The responder while a window is open, else the active player (RULES 12)."""
    return view["pending"]["responder"] if view["pending"] else view["active"]


def shown_while_pending(view: dict) -> set[str]:
    """The card of a pending action: its declaration showed it, though it stays in the hand (docs/api.md §5)."""
    action = (view["pending"] or {}).get("action", {})
    return {action["card"]} if "card" in action and action["type"] != "play_case" else set()


def test_two_players_with_one_seat_each_play_a_whole_game_in_secret(serve, private_game_body):
    server = serve(workers=2, env={"REFEREE_STATE_KEY": STATE_KEY})
    with RefereeClient(server.url) as app, RefereeClient(server.url) as c0, RefereeClient(server.url) as c1:
        deal = app.new_private_game(private_game_body)  # the app deals and hands out one seat each
        players = [PrivateGame(c0, deal.state, deal.seats[0]), PrivateGame(c1, deal.state, deal.seats[1])]
        received: list[list[tuple[bytes, list[str]]]] = [[], []]  # per player: (answer, opponent's hand then)

        def note(player: int, answer: dict) -> None:
            view = answer.get("view", answer)
            received[player].append((orjson.dumps(answer), list(view["players"][1 - player]["hand"])))

        for p in (0, 1):
            note(p, players[p].view)
        rng = random.Random("e2e-private")
        for _ in range(800):
            if players[0].view["phase"] == "over":
                break
            mover = players[who_acts(players[0].view)]
            step = mover.apply(keep_or_random(mover.legal_actions(), rng))
            note(mover.player, step._asdict())
            note(1 - mover.player, players[1 - mover.player].receive(step.state))
        else:
            pytest.fail("the game did not end in 800 actions")
        revealed = players[0].reveal(players[1].seat)  # at the end, the players swap seats

    assert commitment(revealed["seed"]) == deal.commitment
    verify_deal(Catalog.builtin(), revealed, deal.commitment)
    cards = revealed["cards"]
    for p in (0, 1):
        assert received[p], p
        for text, their_hand in received[p]:
            assert revealed["seed"].encode() not in text
            answer = orjson.loads(text)
            view = answer.get("view", answer)
            hidden = set(their_hand) - shown_while_pending(view)
            assert not hidden & set(view["cards"]), "a view named a card of the opponent's hand"
            for iid in hidden:
                assert f'"{iid}":"{cards[iid]}"'.encode() not in text
                for event in answer.get("events", []):
                    assert not (event.get("case") == iid and "card" in event)
