"""A PettingZoo AEC environment for Ace File '99 (the optional extra ``bots``: ``pip install -e '.[bots]'``).

>>> from referee.bots.env import env
>>> e = env(seed=7)
>>> e.reset(seed=7)
>>> obs, reward, termination, truncation, info = e.last()
>>> sorted(obs), e.agent_selection
(['action_mask', 'observation'], 'player_0')

Agents ``player_0`` and ``player_1``; whoever the rules let act is the agent
selected (the responder inside a response window, RULES 12.1). Each agent
observes only its own seat's view (docs/api.md §5), encoded as a fixed-size
vector (:class:`referee.bots.encoding.Observation`), with ``infostate=True``
also its information state (:class:`referee.bots.encoding.InfoState`: the
view, the opponent's cards it has seen, the events it was told), and an
``action_mask`` over the catalog's complete discrete action space
(:class:`referee.bots.actions.ActionSpace`); docs/bots.md has the layouts.
:meth:`AceFileEnv.state` sees everything (both seats and both files), for a
centralised critic; ``observe`` never more than the seat may know.
The reward is +1 to the winner and -1 to the loser when the game ends, else 0;
a game still going after ``max_actions`` actions is truncated for both.
``info`` holds ``legal`` (index → the action) for the agent to act.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable
from typing import Any, ClassVar

from referee.bots.encoding import ActionSpace, InfoState, Observation, seat_of
from referee.bots.extra import AECEnv, np, spaces
from referee.bots.seat import seat_events
from referee.engine import ActionDict, Catalog, EventDict, Session, ViewDict

AGENTS = ("player_0", "player_1")
WINDOWS = ("auto", "strict")


def env(
    catalog: Catalog | str | os.PathLike[str] | None = None,
    decks: list[Any] | None = None,
    seed: int | str | None = None,
    response_windows: str = "strict",
    render_mode: str | None = None,
    max_actions: int = 3000,
    allow_concede: bool = False,
    infostate: bool = False,
) -> AceFileEnv:
    """The environment: the built-in catalog (or a Catalog, or a catalog file's path) and two random legal decks
    from the seed unless given."""
    return AceFileEnv(catalog, decks, seed, response_windows, render_mode, max_actions, allow_concede, infostate)


def catalog_of(catalog: Any) -> Catalog:
    """A Catalog from a Catalog, a path to a catalog file, or None (the built-in one)."""
    if catalog is None:
        return Catalog.builtin()
    if isinstance(catalog, Catalog):
        return catalog
    if isinstance(catalog, str | os.PathLike):
        return Catalog.from_path(os.fspath(catalog))
    raise TypeError(f"catalog: a referee.engine.Catalog or the path of a catalog file, not {type(catalog).__name__}")


class AceFileEnv(AECEnv):
    metadata: ClassVar[dict[str, Any]] = {
        "name": "ace_file_v1",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        catalog: Catalog | str | os.PathLike[str] | None = None,
        decks: list[Any] | None = None,
        seed: int | str | None = None,
        response_windows: str = "strict",
        render_mode: str | None = None,
        max_actions: int = 3000,
        allow_concede: bool = False,
        infostate: bool = False,
    ):
        super().__init__()
        if response_windows not in WINDOWS:
            raise ValueError(f"response_windows: one of {', '.join(WINDOWS)} (RULES 9.4), not {response_windows!r}")
        if type(max_actions) is not int or max_actions < 1:
            raise ValueError(f"max_actions: a positive integer, not {max_actions!r}")
        self.catalog = catalog_of(catalog)
        self.decks = decks
        self.default_seed = seed
        self.options = {"response_windows": response_windows}
        self.render_mode = render_mode
        self.max_actions = max_actions
        self.allow_concede = allow_concede
        self.infostate = infostate
        self.actions = ActionSpace(self.catalog)
        self.encoder = Observation(self.catalog)
        self.info_encoder = InfoState(self.catalog)
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        entries: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.actions.n,), np.int8),
        }
        if infostate:
            entries["infostate"] = spaces.Box(-np.inf, np.inf, (self.info_encoder.size,), np.float32)
        self._observation_space = spaces.Dict(entries)
        self._action_space = spaces.Discrete(self.actions.n)
        self.state_space = spaces.Box(-np.inf, np.inf, (2 * self.encoder.size + 2 * self.encoder.c,), np.float32)
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
        self.session, events = Session.new(self.catalog, game)
        self.steps = 0
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        # What each seat has been told, for the information state: its events, the cards it has seen.
        self.told: list[deque[EventDict]] = [deque(maxlen=InfoState.recent) for _ in AGENTS]
        self.known: list[dict[str, str]] = [{}, {}]
        self.opponent_seen: list[dict[str, str]] = [{}, {}]
        self._views: dict[int, ViewDict] = {}
        if self.infostate:
            self._tell(events)
        self._select()

    @property
    def _game(self) -> Session:
        """The game in play; ``reset`` must come first, as in every PettingZoo environment."""
        if self.session is None:
            raise RuntimeError("call reset() before using the environment")
        return self.session

    def _view(self, seat: int) -> ViewDict:
        """The seat's view of the state now (made once per step)."""
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = self._game.view(seat)
        return view

    def _tell(self, events: Iterable[EventDict]) -> None:
        """Each seat's share of ``events`` (private mode's filter), and the cards its view now shows."""
        state = self._game.state
        for seat in (0, 1):
            for event in seat_events(events, state, seat):
                self.told[seat].appendleft(event)
            view = self._view(seat)
            self.known[seat].update(view["cards"])
            opp = view["players"][1 - seat]
            for iid in [
                *opp["hand"],
                *(e["card"] for e in opp["cases"]),
                *(e["card"] for e in opp["fairies"]),
                *(e["card"] for e in opp["evidence"]),
                *opp["trash"],
            ]:
                cid = view["cards"].get(iid)
                if cid is not None:
                    self.opponent_seen[seat][iid] = cid

    def _legal(self, game: Session, seat: int) -> dict[int, ActionDict]:
        listed = game.legal_actions(seat)
        if not self.allow_concede:
            listed = [a for a in listed if a["type"] != "concede"] or listed  # concede only when alone
        return self.actions.legal(listed, self._view(seat))

    def _select(self) -> None:
        """The agent the rules let act (RULES 12.1), and its legal actions in its ``info``."""
        game = self._game
        seat = game.board.who_acts()
        self.agent_selection = AGENTS[seat]
        self.infos[AGENTS[seat]] = {"legal": self._legal(game, seat)}
        self.infos[AGENTS[1 - seat]] = {}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        view = self._view(seat)
        legal = self.infos.get(agent, {}).get("legal", {}) if agent == self.agent_selection else {}
        obs = {"observation": self.encoder.encode(view), "action_mask": self.actions.mask(legal)}
        if self.infostate:
            obs["infostate"] = self.info_encoder.encode(
                view, self.opponent_seen[seat], self.told[seat], self.known[seat], obs["observation"]
            )
        return obs

    def state(self) -> np.ndarray:
        """Everything, for a centralised critic (never an agent's observation): both seats' view vectors, and
        each player's file as copies of each catalog id (together with the views: every card of the game)."""
        s = self._game.state
        files = np.zeros(2 * self.encoder.c, dtype=np.float32)
        for p in (0, 1):
            for iid in s["players"][p]["file"]:
                files[p * self.encoder.c + self.encoder.position[s["cards"][iid]]] += 1
        return np.concatenate([self.encoder.encode(self._view(0)), self.encoder.encode(self._view(1)), files])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self.infos[agent].get("legal", {})
        if action is None or int(action) not in legal:
            raise ValueError(f"action {action} is not legal for {agent} now (see action_mask)")
        self._cumulative_rewards[agent] = 0.0
        game = self._game
        # The action is one the engine listed, so already in the engine's form: applied without reading it again.
        applied = game.apply_parsed(legal[int(action)])
        self._views = {}
        if self.infostate:
            self._tell(applied.events)
        self.steps += 1
        result = game.state["result"]
        if result is not None:
            winner = AGENTS[result["winner"]]
            for a in self.agents:
                self.rewards[a] = 1.0 if a == winner else -1.0
                self.terminations[a] = True
                self.infos[a] = {"result": result}
            self._accumulate_rewards()
        elif self.steps >= self.max_actions:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a] = {}
        else:  # the rewards stay 0 until the end (reset made them so): nothing to accumulate
            self._select()

    def render(self) -> str | None:
        """The selected agent's view as text (``ansi``: returned; ``human``: printed)."""
        if self.session is None:
            return None
        text = render_view(self.catalog, self._view(AGENTS.index(self.agent_selection)))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def render_view(catalog: Catalog, view: ViewDict) -> str:
    """One seat's view as lines of text: whose turn, both sides' zones, the open window."""
    seat, cards = seat_of(view), view["cards"]

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
        for f in pl["fairies"]:
            lines.append(f"  fairy {name(f['card'])}{' on ' + name(f['case']) if f['case'] else ' standby'}")
        for ev in pl["evidence"]:
            lines.append(f"  evidence {name(ev['card'])} on {name(ev['case'])}")
    pending, result = view.get("pending"), view.get("result")
    if pending:
        act = pending["action"]
        lines.append(f"window open: player {act['player']}'s {act['type']}, player {pending['responder']} to respond")
    if result:
        lines.append(f"game over: player {result['winner']} wins ({result['reason']})")
    return "\n".join(lines)
