"""A Gymnasium environment: one agent plays a seat of either game against a
built-in player (docs/tensors.md).

>>> from xenophon.rl.single import XenophonEnv                   # doctest: +SKIP
>>> env = XenophonEnv(name, opponent="greedy")   # a game name, or a Game
>>> observation, info = env.reset(seed=1)
>>> action = env.action_space.sample(info["action_mask"])
>>> observation, reward, terminated, truncated, info = env.step(action)

The opponent is a level (``beginner`` ... ``max``, docs/play.md) or a bot
spec (``random``, ``greedy``, ``ismcts:iterations=500``...). The agent plays
``seat`` (0 or 1; None: a seat drawn at each reset). Its observation is its
tensor; ``info["action_mask"]`` marks the legal action codes. An illegal
code ends the episode as a loss (reward -1, ``info["illegal"]`` True), so
that any action of the space is a step; otherwise the reward is 0 until the
end and then the agent's return.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from xenophon.kernel.game import Game, State
from xenophon.play.external import play_step
from xenophon.play.levels import bot_for_level, level_named
from xenophon.play.players import make_bot
from xenophon.rl.common import (
    ACTIONS,
    action_mask,
    check_tensor,
    game_of,
    seat_tensor,
    seed_of,
    settle,
    tensor_space,
)


def opponent_bot(spec: str, seed: int) -> Any:
    """The built-in player of a level name or a bot spec."""
    return bot_for_level(spec, seed) if level_named(spec) else make_bot(spec, seed)


class XenophonEnv(gym.Env):
    """One seat of a game against a built-in player."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: Game | str,
        opponent: str = "random",
        seat: int | None = 0,
        tensor: str = "information_state",
        render_mode: str | None = None,
    ):
        self.game = game_of(game)
        if seat not in (0, 1, None):
            raise ValueError("seat must be 0, 1 or None")
        opponent_bot(opponent, 0)  # a bad spec fails here, not at the first step
        self.opponent_spec = opponent
        self.seat_choice = seat
        self.tensor = check_tensor(tensor)
        self.render_mode = render_mode
        self.observation_space = tensor_space(self.game, self.tensor)
        self.action_space = spaces.Discrete(ACTIONS)
        self.state: State | None = None
        self.over = False

    def _observation(self) -> np.ndarray:
        assert self.state is not None
        return seat_tensor(self.state, self.seat, self.tensor)

    def _info(self, **extra: Any) -> dict[str, Any]:
        assert self.state is not None
        mask = action_mask(self.state) if self.state.current_player == self.seat else None
        return {
            "action_mask": mask if mask is not None else np.zeros(ACTIONS, dtype=np.int8)
        } | extra

    def _play_on(self) -> None:
        """Chance and the opponent's decisions until the agent's turn or the end."""
        assert self.state is not None
        while not self.state.is_terminal():
            settle(self.state, self._rng, self._players)
            if self.state.is_terminal() or self.state.current_player == self.seat:
                return
            play_step(self.state, self.opponent.choose(self.state).code, self._players)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = seed_of(None, self.np_random)
        self._rng = random.Random(game_seed)
        self.seat = self.seat_choice if self.seat_choice is not None else game_seed % 2
        self.opponent = opponent_bot(self.opponent_spec, game_seed)
        # the players by seat, shown each step (an external opponent follows the game)
        self._players = [self.opponent, None] if self.seat == 1 else [None, self.opponent]
        self.state = self.game.new_initial_state()
        self.over = False
        self._play_on()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.over:
            raise RuntimeError("the episode is over: call reset()")
        code = int(action)
        if code not in self.state.legal_actions():
            self.over = True  # the position stays as it was: the agent lost
            return self._observation(), -1.0, True, False, self._info(illegal=True)
        play_step(self.state, code, self._players)
        self._play_on()
        over = self.over = self.state.is_terminal()
        reward = float(self.state.returns()[self.seat]) if over else 0.0
        return self._observation(), reward, over, False, self._info(illegal=False)

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.state is None:
            return None
        text: str = self.state.render(self.seat)
        return text
