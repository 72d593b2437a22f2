"""What both environments share: the game, its tensor space, the action
mask and the drawing of chance."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import Game, State
from xenophon.kernel.registry import make_game
from xenophon.play.external import play_step

#: action codes are 16 bits (docs/architecture.md)
ACTIONS = 1 << 16
TENSORS = ("information_state", "observation")


def game_of(game: Game | str) -> Game:
    """A Game, or the game of that name with its default options (C engine)."""
    xgame = make_game(game) if isinstance(game, str) else game
    if xgame.engine != "c":
        raise XenophonError("the environments play the C engine (its tensors)")
    return xgame


def check_tensor(tensor: str) -> str:
    if tensor not in TENSORS:
        raise XenophonError(f"unknown tensor '{tensor}' ({' or '.join(TENSORS)})")
    return tensor


def tensor_space(game: Game, tensor: str) -> spaces.Box:
    """The Box of a seat's tensor: any finite float32 (counters may go below
    0, and no bound is tight for every card set)."""
    size = game.tables.tensor_size(tensor)
    limit = np.finfo(np.float32).max
    return spaces.Box(-limit, limit, shape=(size,), dtype=np.float32)


def action_mask(state: State) -> np.ndarray:
    """1 for each legal code of the player to move (all 0 at the end)."""
    mask = np.zeros(ACTIONS, dtype=np.int8)
    if not state.is_terminal():
        mask[state.legal_actions()] = 1
    return mask


def seat_tensor(state: State, player: int, tensor: str) -> np.ndarray:
    """`player`'s tensor of kind `tensor`, written by the C core."""
    result: np.ndarray = getattr(state.backend, f"{tensor}_tensor")(player)
    return result


def settle(state: State, rng: random.Random, players: Sequence[Any] = ()) -> None:
    """Draws chance outcomes by their probabilities until a decision or the
    end, each shown to the `players` (by seat) that follow the game."""
    while state.is_chance():
        codes, weights = zip(*state.chance_probabilities())
        play_step(state, rng.choices(codes, weights=weights)[0], players)


def seed_of(seed: int | None, np_random: Any) -> int:
    """The seed of a game: the caller's, else one drawn from the env's generator."""
    return int(seed) if seed is not None else int(np_random.integers(2**62))
