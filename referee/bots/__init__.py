"""Bots for Ace File '99 (docs/bots.md): determinization of one seat's view, the random, greedy and ISMCTS
players, bot-against-bot matches and the arena, ``/v1/suggest``'s choice, and the complete action space.

The PettingZoo environment is :mod:`referee.bots.env` (the extra ``bots``: ``pip install -e '.[bots]'``);
nothing else here needs that extra.
"""

from referee.bots.actions import ActionSpace
from referee.bots.determinize import Memory, determinize
from referee.bots.players import BOTS, LEVELS, Bot, Level, make_bot

__all__ = ["BOTS", "LEVELS", "ActionSpace", "Bot", "Level", "Memory", "determinize", "make_bot"]
