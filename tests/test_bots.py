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


def test_play_is_seeded_and_writes_each_game_as_a_record_that_replays_to_its_end(tmp_path, capsys):
    from referee.bots.match import game_for, seat_names
    from referee.engine import replay
    from referee.engine.records import read

    assert main(["play", "--bots", "greedy,random", "--games", "4", "--seed", "t", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["games"] == 4 and set(first["wins"]) == {"greedy", "random"}
    assert sum(first["wins"].values()) + first["draws"] == 4
    main(["play", "--bots", "greedy,random", "--games", "4", "--seed", "t", "--json", "--records", str(tmp_path)])
    assert json.loads(capsys.readouterr().out) == first | {"records": str(tmp_path)}
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"game-{i:04d}.afr" for i in range(4)]
    greedy_won = 0
    for i in range(4):  # game i: greedy at seat i % 2 (docs/bots.md)
        assert main(["replay", str(tmp_path / f"game-{i:04d}.afr"), "--out", str(tmp_path / "end.json")]) == 0
        end = json.loads((tmp_path / "end.json").read_text())
        assert end["seed"] == f"t:{i // 2}" and end["players"][i % 2]["name"] == "greedy"
        greedy_won += end["result"]["winner"] == i % 2
    assert greedy_won == first["wins"]["greedy"]
    # game 0 played again here, move for move: its record holds those moves, and replays to that end
    game = game_for(CATALOG, "t", 0, {"response_windows": "strict"}) | {"players": seat_names(("greedy", "random"), 0)}
    moves: list = []
    play_game(CATALOG, [make_bot("greedy", CATALOG, "t:A"), make_bot("random", CATALOG, "t:B")], game, moves=moves)
    assert read((tmp_path / "game-0000.afr").read_bytes()).actions == moves
    main(["replay", str(tmp_path / "game-0000.afr"), "--out", str(tmp_path / "end.json")])
    assert json.loads((tmp_path / "end.json").read_text()) == replay(CATALOG, moves, game=game)[0]


def test_play_with_an_unknown_bot_is_one_line_and_exit_2(capsys):
    assert main(["play", "--bots", "greedy,chess", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown bot 'chess'" in err


def test_wilson_interval():
    lo, hi = wilson(160, 200)
    assert round(lo, 3) == 0.739 and round(hi, 3) == 0.85  # the Wilson score interval of 160 wins in 200


@pytest.mark.e2e
def test_play_through_a_private_referee_plays_through_seats_and_the_service_writes_the_record(serve, tmp_path, capsys):
    server = serve(workers=1, env={"REFEREE_STATE_KEY": STATE_KEY})
    argv = ["play", "--bots", "greedy,random", "--games", "1", "--url", server.url, "--json"]
    assert main([*argv, "--records", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["referee"] == server.url and doc["games"] == 1
    assert sum(doc["wins"].values()) + doc["draws"] == 1
    # the game is over, so the service gave its whole record: the seed it dealt with, which replays here
    record = tmp_path / "game-0000.afr"
    assert "[Seed " in record.read_text() and main(["replay", str(record)]) == 0
    winner = next(i for i, name in enumerate(("greedy", "random")) if doc["wins"][name])
    assert f"{('greedy', 'random')[winner]} wins" in capsys.readouterr().out


@pytest.mark.e2e
def test_play_through_a_plain_referee_gives_the_in_process_games_and_records(serve, tmp_path, capsys):
    server = serve(workers=1)
    argv = ["play", "--bots", "greedy,random", "--games", "2", "--seed", "u", "--json", "--records"]
    main([*argv, str(tmp_path / "remote"), "--url", server.url])
    remote = json.loads(capsys.readouterr().out)
    main([*argv, str(tmp_path / "local")])
    local = json.loads(capsys.readouterr().out)
    assert (remote["wins"], remote["actions"]) == (local["wins"], local["actions"])
    for i in range(2):  # the service's record of each game is the one written here, byte for byte
        name = f"game-{i:04d}.afr"
        assert (tmp_path / "remote" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    # and `referee replay --url` checks a record against the running referee
    assert main(["replay", "--url", server.url, str(tmp_path / "remote" / "game-0001.afr")]) == 0
    assert "all " in capsys.readouterr().out
    lines = (tmp_path / "local" / "game-0001.afr").read_text().split("\n")
    second = lines.index(next(line for line in lines if line.startswith("2. ")))
    lines[second] = lines[second - 1].replace("1. ", "2. ")  # the first player keeps twice
    bad = tmp_path / "bad.afr"
    bad.write_text("\n".join(lines))
    assert main(["replay", "--url", server.url, str(bad)]) == 1
    assert capsys.readouterr().out.startswith(f"{bad}:{second + 1}: move 2 of ")


def test_the_package_exports_make_bot_and_the_determinize_function():
    import inspect

    import referee.bots
    from referee.bots import ActionSpace, determinize, make_bot

    assert inspect.isfunction(determinize) and inspect.isfunction(make_bot) and inspect.isclass(ActionSpace)
    assert referee.bots.determinize is determinize  # the function, not its module
    assert make_bot("ismcts:3", CATALOG).iterations == 3


def test_the_levels_name_a_bot_and_its_fixed_work_weakest_first():
    """docs/bots.md "Levels": one table; each level a bot of BOTS with a fixed amount of work, so that a level
    plays the same move on every machine."""
    from referee.bots.players import BOTS, LEVELS, GreedyBot, ISMCTSBot

    assert list(LEVELS) == ["beginner", "club", "expert"]
    assert all(level.bot in BOTS for level in LEVELS.values())
    assert isinstance(make_bot("beginner", CATALOG), GreedyBot)
    club, expert = make_bot("club", CATALOG), make_bot("expert", CATALOG)
    assert isinstance(club, ISMCTSBot) and isinstance(expert, ISMCTSBot)
    assert (club.iterations, expert.iterations) == (LEVELS["club"].iterations, LEVELS["expert"].iterations)
    assert LEVELS["beginner"].iterations is None and club.iterations < expert.iterations
    assert club.seconds is None and expert.seconds is None  # fixed work, never a clock


def test_a_level_plays_the_same_game_twice():
    from referee.bots.match import game_for

    game = game_for(CATALOG, "levels", 0, {"response_windows": "auto"})
    moves: list[list] = [[], []]
    for run in moves:
        play_game(CATALOG, [make_bot("club", CATALOG, "x"), make_bot("beginner", CATALOG, "y")], game, 60, run)
    assert len(moves[0]) == 60 and moves[0] == moves[1]


def test_ismcts_with_widening_greedy_moves_and_reused_samples_plays_legal_moves_the_same_way_twice():
    from referee.bots.match import game_for

    game = game_for(CATALOG, "options", 1, {"response_windows": "auto"})
    options = {"iterations": 8, "widening": 1.0, "rollout": 1, "samples": 2}
    moves: list[list] = [[], []]
    for run in moves:  # play_game applies every move through the engine: an illegal one raises
        play_game(
            CATALOG, [make_bot("ismcts", CATALOG, "x", **options), make_bot("greedy", CATALOG, "y")], game, 40, run
        )
    assert len(moves[0]) == 40 and moves[0] == moves[1]


def test_widening_opens_the_root_to_its_best_one_ply_action_first():
    """With one iteration, only the first action by one-ply score is tried: ISMCTS plays it."""
    from referee.bots.match import game_for
    from referee.bots.players import ISMCTSBot, one_ply
    from referee.engine import Session
    from referee.engine.playout import random_action
    from referee.engine.setup import SeededStream

    session, _ = Session.new(CATALOG, game_for(CATALOG, "widen", 0))
    stream = SeededStream("widen")
    while session.state["phase"] == "mulligan" or len(session.legal_actions(session.board.who_acts())) < 6:
        session.apply(random_action(session.board, stream))
    seat = session.board.who_acts()
    bot = ISMCTSBot(CATALOG, "w", iterations=1, widening=1.0)
    bot.start(seat, [None, None], "g")
    legal = session.legal_actions(seat)
    playable = [a for a in legal if a["type"] != "concede"]
    chosen = bot.act(session.view(seat), [], legal)
    # the sample the search dealt first (the bot's seed, its decision count, the iteration)
    values = one_ply(CATALOG, bot.sample(session.view(seat), "it0"), playable, seat)
    assert chosen == playable[values.index(max(values))]
