"""Anabasis: cards moving and fighting on a 7 x 6 grid, with a shared market.

>>> from xenophon.anabasis import Game
>>> state = Game(seed=1).new_initial_state()
>>> moves = state.resolve_chance(state.game.rng)   # setup: deals, market, draws
>>> state.current_player
0
"""

from xenophon.anabasis.game import Game, State
from xenophon.kernel.game import CHANCE, TERMINAL, Move

__all__ = ["Game", "State", "Move", "CHANCE", "TERMINAL"]
