"""RULES 14 and docs/api.md §15: the next game of a match.

A game of a match carries ``match`` (``{"best_of", "game", "wins", "winner"}``);
the board counts each finished game's win there (``Board.lose``), and names the
match's winner once a player has won a majority (RULES 14.3). The next game is
dealt from the last one's final state: the same decks, names, options, clock
and format (RULES 14.1), the first player the loser's choice (14.2), and a
fresh seed (whoever deals draws it).
"""

from __future__ import annotations

from typing import Any

from referee.engine.errors import RuleViolation
from referee.engine.facts import Phase, other
from referee.engine.fair_deal import new_game_of
from referee.engine.registry import rule
from referee.engine.state_types import MatchDict, StateDict


@rule("14.1", "not_a_match", "match_game_not_over")
@rule("14.2", "loser_chooses")
@rule("14.3", "match_over")
def next_game(state: StateDict, first_player: int, chooser: int | None = None) -> tuple[dict[str, Any], MatchDict]:
    """The NewGame of the match's next game and its ``match``, from the last game's final (checked) state.

    ``chooser`` is who chose ``first_player``, where the caller knows (a seat); ``None``: the caller is
    trusted (plain mode). The NewGame has no seed: the dealer draws a fresh one.

    >>> next_game({"match": None}, 0)
    Traceback (most recent call last):
    ...
    referee.engine.errors.RuleViolation: This game is not part of a match.
    """
    match = state["match"]
    if match is None:
        raise RuleViolation("not_a_match")
    result = state["result"]
    if state["phase"] != Phase.OVER or result is None:
        raise RuleViolation("match_game_not_over", game=match["game"])
    if match["winner"] is not None:
        raise RuleViolation("match_over", player=match["winner"], wins=max(match["wins"]), loses=min(match["wins"]))
    loser = other(result["winner"])
    if chooser is not None and chooser != loser:
        raise RuleViolation("loser_chooses", player=chooser, actor=loser)
    game = new_game_of(state, seeded_first_player=True)
    del game["seed"]
    game["first_player"] = first_player
    if state["clock"] is not None:
        game["clock"] = {"initial": state["clock"]["initial"], "increment": state["clock"]["increment"]}
    if "watch_delay" in state:  # the spectators of a match see each game as far behind (docs/api.md §12)
        game["watch_delay"] = state["watch_delay"]
    played = state.get("format")
    if played is not None:  # the same format and revision bind every game of a match (RULES 3.9, 14.1)
        game["format"] = {"id": played["id"], "date": played["revision"]}
    follows: MatchDict = {
        "best_of": match["best_of"],
        "game": match["game"] + 1,
        "wins": list(match["wins"]),
        "winner": None,
    }
    return game, follows
