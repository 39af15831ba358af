"""A PettingZoo AEC environment for Ace File '99 (the optional extra ``ace-file-referee[bots]``).

>>> from referee.env import env
>>> e = env(seed=7)
>>> e.reset(seed=7)
>>> obs, reward, termination, truncation, info = e.last()
>>> sorted(obs), e.agent_selection
(['action_mask', 'observation'], 'player_0')

Agents ``player_0`` and ``player_1``; whoever the rules let act is the agent
selected (the responder inside a response window, RULES 12.1). Each agent
observes only its own seat's view (docs/api.md §5), encoded as a fixed-size
vector (:class:`referee.bots.encoding.Observation`), and an ``action_mask``
over the catalog's stable discrete action space
(:class:`referee.bots.encoding.ActionSpace`); docs/bots.md has both layouts.
The reward is +1 to the winner and -1 to the loser when the game ends, else 0;
a game still going after ``max_actions`` actions is truncated for both.
``info`` holds ``legal`` (index → the action) for the agent to act.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from referee.bots.encoding import ActionSpace, Observation
from referee.engine import Catalog, Session

AGENTS = ("player_0", "player_1")


def env(
    catalog: Catalog | None = None,
    decks: list[Any] | None = None,
    seed: int | str | None = None,
    response_windows: str = "strict",
    render_mode: str | None = None,
    max_actions: int = 3000,
) -> AceFileEnv:
    """The environment: the built-in catalog and two random legal decks from the seed unless given."""
    return AceFileEnv(catalog, decks, seed, response_windows, render_mode, max_actions)


class AceFileEnv(AECEnv):
    metadata: ClassVar[dict[str, Any]] = {
        "name": "ace_file_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        catalog: Catalog | None = None,
        decks: list[Any] | None = None,
        seed: int | str | None = None,
        response_windows: str = "strict",
        render_mode: str | None = None,
        max_actions: int = 3000,
    ):
        super().__init__()
        self.catalog = catalog or Catalog.builtin()
        self.decks = decks
        self.default_seed = seed
        self.options = {"response_windows": response_windows}
        self.render_mode = render_mode
        self.max_actions = max_actions
        self.actions = ActionSpace(self.catalog)
        self.encoder = Observation(self.catalog)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.actions.n,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(self.actions.n)
        self._resets = 0
        self.session: Session | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    # -- the game ------------------------------------------------------------------------------

    def reset(self, seed: int | str | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is None:
            seed = self.default_seed if self._resets == 0 and self.default_seed is not None else None
        if seed is None:
            seed = f"env-{self.default_seed}-{self._resets}"
        self._resets += 1
        text = str(seed)
        if self.decks is not None:
            game = {"decks": self.decks, "seed": text, "options": self.options}
        else:
            from referee.engine.playout import random_new_game

            game = random_new_game(self.catalog, text, options=self.options)
        self.game = game
        self.session, _ = Session.new(self.catalog, game)
        self.steps = 0
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    @property
    def _game(self) -> Session:
        """The game in play; ``reset`` must come first, as in every PettingZoo environment."""
        if self.session is None:
            raise RuntimeError("call reset() before using the environment")
        return self.session

    def _actor(self) -> int:
        s = self._game.state
        actor: int = s["pending"]["responder"] if s["pending"] is not None else s["active"]
        return actor

    def _legal(self, seat: int) -> dict[int, dict[str, Any]]:
        if self._game.over:
            return {}
        return self.actions.legal(self._game.legal_actions(seat), self._game.view(seat))

    def _select(self) -> None:
        seat = self._actor()
        self.agent_selection = AGENTS[seat]
        for a in self.agents:
            self.infos[a] = {"legal": self._legal(seat)} if a == self.agent_selection else {}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        view = self._game.view(seat)
        legal = self.infos.get(agent, {}).get("legal", {}) if agent == self.agent_selection else {}
        return {"observation": self.encoder.encode(view), "action_mask": self.actions.mask(legal)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self.infos[agent].get("legal", {})
        if action is None or int(action) not in legal:
            raise ValueError(f"action {action} is not legal for {agent} now (see action_mask)")
        self._cumulative_rewards[agent] = 0.0
        self._game.apply(legal[int(action)])
        self.steps += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        result = self._game.state["result"]
        if result is not None:
            winner = AGENTS[result["winner"]]
            for a in self.agents:
                self.rewards[a] = 1.0 if a == winner else -1.0
                self.terminations[a] = True
                self.infos[a] = {"result": result}
        elif self.steps >= self.max_actions:
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a] = {}
        else:
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The selected agent's view as text (``ansi``: returned; ``human``: printed)."""
        if self.session is None:
            return None
        text = render_view(self.catalog, self._game.view(AGENTS.index(self.agent_selection)))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def render_view(catalog: Catalog, view: dict[str, Any]) -> str:
    """One seat's view as lines of text: whose turn, both sides' zones, the open window."""
    seat, cards = view["viewer"], view["cards"]

    def name(iid: str) -> str:
        cid = cards.get(iid)
        return f"{cid} {catalog[cid].name_en or catalog[cid].name}" if cid else "(hidden)"

    lines = [
        f"turn {view['turn']}, {view['phase']} / {view['step']}, player {view['active']} active; you are player {seat}"
    ]
    for p in (seat, 1 - seat):
        pl = view["players"][p]
        who = "you" if p == seat else "opponent"
        lines.append(f"{who}: file {pl['file']}, hand {len(pl['hand'])}, trash {len(pl['trash'])}")
        if p == seat:
            lines.append("  hand: " + ", ".join(name(i) for i in pl["hand"]))
        for e in pl["cases"]:
            lines.append(
                f"  case {name(e['card'])}{' face up' if e['face_up'] else ''}{' actioned' if e['actioned'] else ''}"
            )
        for e in pl["fairies"]:
            lines.append(f"  fairy {name(e['card'])}{' on ' + name(e['case']) if e['case'] else ' standby'}")
        for e in pl["evidence"]:
            lines.append(f"  evidence {name(e['card'])} on {name(e['case'])}")
    if view.get("pending"):
        act = view["pending"]["action"]
        lines.append(
            f"window open: player {act['player']}'s {act['type']}, player {view['pending']['responder']} to respond"
        )
    if view.get("result"):
        lines.append(f"game over: player {view['result']['winner']} wins ({view['result']['reason']})")
    return "\n".join(lines)
