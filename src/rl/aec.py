"""A PettingZoo AEC environment of either game (docs/tensors.md).

>>> from xenophon.rl.aec import env                              # doctest: +SKIP
>>> e = env(name)          # a game name, or a Game
>>> e.reset(seed=1)
>>> for agent in e.agent_iter():
...     observation, reward, termination, truncation, info = e.last()
...     mask = observation["action_mask"]
...     e.step(None if termination else e.action_space(agent).sample(mask))

Agents ``player_0`` and ``player_1`` are the seats. An agent's observation
is a dict: ``observation``, its tensor (the information-state tensor, or
the observation tensor with ``tensor="observation"``), and ``action_mask``,
1 for each legal action code when it is to move. Chance is drawn by the
environment. At the end each agent's reward is its return (+1, -1, 0).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from xenophon.kernel.game import Game
from xenophon.rl.common import (
    ACTIONS,
    action_mask,
    check_tensor,
    game_of,
    seat_tensor,
    settle,
    tensor_space,
)

AGENTS = ("player_0", "player_1")


class XenophonAECEnv(AECEnv):
    """Both seats of one game as PettingZoo agents."""

    metadata = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: Game | str,
        tensor: str = "information_state",
        render_mode: str | None = None,
    ):
        super().__init__()
        self.game = game_of(game)
        self.tensor = check_tensor(tensor)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"xenophon_{self.game.name}_v0"}
        self.possible_agents = list(AGENTS)
        box = tensor_space(self.game, self.tensor)
        mask = spaces.Box(0, 1, shape=(ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": box, "action_mask": mask}) for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(ACTIONS) for agent in AGENTS}
        self.state_: Any = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None or not hasattr(self, "_rng"):
            self._rng = random.Random(seed)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict] = {agent: {} for agent in AGENTS}
        self.state_ = self.game.new_initial_state()
        settle(self.state_, self._rng)
        self.agent_selection = AGENTS[self.state_.current_player]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        player = AGENTS.index(agent)
        mask = action_mask(self.state_) if self.state_.current_player == player else None
        return {
            "observation": seat_tensor(self.state_, player, self.tensor),
            "action_mask": mask if mask is not None else np.zeros(ACTIONS, dtype=np.int8),
        }

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        code = int(action)
        if code not in self.state_.legal_actions():
            raise ValueError(f"{agent}: action {code} is not a legal code now")
        self._cumulative_rewards[agent] = 0.0
        self.state_.apply_code(code)
        settle(self.state_, self._rng)
        self._clear_rewards()
        if self.state_.is_terminal():
            for agent_, value in zip(AGENTS, self.state_.returns()):
                self.rewards[agent_] = float(value)
                self.terminations[agent_] = True
        else:
            self.agent_selection = AGENTS[self.state_.current_player]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state_ is None:
            return None
        seat = max(self.state_.current_player, 0)
        text: str = self.state_.render(seat)
        return text

    def close(self) -> None:
        pass


def env(game: Game | str, **settings: Any) -> XenophonAECEnv:
    """The AEC environment of `game` (a Game or a game name)."""
    return XenophonAECEnv(game, **settings)


__all__ = ["AGENTS", "XenophonAECEnv", "env"]
