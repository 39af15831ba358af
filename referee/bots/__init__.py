"""Bots for Ace File '99: determinization of one seat's view, the random, greedy and ISMCTS players, and bot-against-bot matches (docs/bots.md)."""
