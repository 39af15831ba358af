"""``referee.env`` is :mod:`referee.bots.env`, the PettingZoo environment (kept importable under its old name)."""

from referee.bots.env import AceFileEnv, env, render_view

__all__ = ["AceFileEnv", "env", "render_view"]
