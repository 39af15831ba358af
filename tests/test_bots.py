"""The bots and referee play: each bot is told only its own seat; matches are seeded; --url plays through a
real referee, in private mode through seats."""

from __future__ import annotations

import json

import pytest
from conftest import STATE_KEY

from referee.bots.match import play_game, wilson
from referee.bots.players import Bot, make_bot
from referee.cli import main
from referee.engine import Catalog
from referee.scenarios.invariants import knowable

CATALOG = Catalog.builtin()


class Spy(Bot):
    """A random bot that keeps what it was told."""

    name = "spy"

    def __init__(self, truth):
        super().__init__(CATALOG, "spy")
        self.truth = truth
        self.told: list[tuple[dict, list, set]] = []
        self.inner = make_bot("random", CATALOG, "spy")

    def start(self, seat, decks, game_seed):
        super().start(seat, decks, game_seed)
        self.inner.start(seat, decks, game_seed)

    def act(self, view, events, legal):
        self.told.append((view, events, knowable(self.truth(), self.seat)))
        return self.inner.act(view, events, legal)


def test_a_bot_is_told_only_what_its_seat_may_know():
    from referee.bots.match import game_for

    game = game_for(CATALOG, "spy", 0)
    holder = {}
    spies = [Spy(lambda: holder["state"]), Spy(lambda: holder["state"])]
    from referee.engine import Session

    original = Session.view

    def view(self, player):  # the state each view was taken from, for the spy's check
        holder["state"] = self.state
        return original(self, player)

    Session.view = view
    try:
        play_game(CATALOG, spies, game, 400)
    finally:
        Session.view = original
    for seat, spy in enumerate(spies):
        assert spy.told
        for told_view, events, allowed in spy.told:
            assert told_view["viewer"] == seat
            assert set(told_view["cards"]) <= allowed
            assert "seed" not in told_view and all(isinstance(pl["file"], int) for pl in told_view["players"])
            assert all("seed" not in e for e in events)


@pytest.mark.parametrize("bot", ["random", "greedy", "ismcts:4"])
def test_every_bot_plays_a_whole_game_of_legal_actions(bot):
    from referee.bots.match import game_for

    winner, actions = play_game(
        CATALOG, [make_bot(bot, CATALOG, "a"), make_bot("random", CATALOG, "b")], game_for(CATALOG, "g", 1)
    )
    assert winner in (0, 1) and actions > 20


def test_play_prints_wins_as_json_and_is_seeded(capsys):
    assert main(["play", "--bots", "greedy,random", "--games", "4", "--seed", "t", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["games"] == 4 and set(first["wins"]) == {"greedy", "random"}
    assert sum(first["wins"].values()) + first["draws"] == 4
    main(["play", "--bots", "greedy,random", "--games", "4", "--seed", "t", "--json"])
    assert json.loads(capsys.readouterr().out) == first


def test_play_with_an_unknown_bot_is_one_line_and_exit_2(capsys):
    assert main(["play", "--bots", "greedy,chess", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown bot 'chess'" in err


def test_wilson_interval():
    lo, hi = wilson(160, 200)
    assert round(lo, 3) == 0.739 and round(hi, 3) == 0.85  # the Wilson score interval of 160 wins in 200


@pytest.mark.e2e
def test_play_through_a_private_referee_plays_through_seats(serve, capsys):
    server = serve(workers=1, env={"REFEREE_STATE_KEY": STATE_KEY})
    assert main(["play", "--bots", "greedy,random", "--games", "1", "--url", server.url, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["referee"] == server.url and doc["games"] == 1
    assert sum(doc["wins"].values()) + doc["draws"] == 1


@pytest.mark.e2e
def test_play_through_a_plain_referee_gives_the_in_process_result(serve, capsys):
    server = serve(workers=1)
    main(["play", "--bots", "greedy,random", "--games", "2", "--seed", "u", "--url", server.url, "--json"])
    remote = json.loads(capsys.readouterr().out)
    main(["play", "--bots", "greedy,random", "--games", "2", "--seed", "u", "--json"])
    local = json.loads(capsys.readouterr().out)
    assert (remote["wins"], remote["actions"]) == (local["wins"], local["actions"])


def test_the_package_exports_make_bot_and_the_determinize_function():
    import inspect

    import referee.bots
    from referee.bots import ActionSpace, determinize, make_bot

    assert inspect.isfunction(determinize) and inspect.isfunction(make_bot) and inspect.isclass(ActionSpace)
    assert referee.bots.determinize is determinize  # the function, not its module
    assert make_bot("ismcts:3", CATALOG).iterations == 3
