"""A Hero incarnation: avatars leading units in front and back rows.

>>> from xenophon.hero import Game
>>> state = Game(seed=1).new_initial_state()
>>> moves = state.resolve_chance(state.game.rng)   # the opening hands
>>> state.current_player
0
"""

from xenophon.hero.game import Game, State
from xenophon.kernel.game import CHANCE, TERMINAL, Move

__all__ = ["Game", "State", "Move", "CHANCE", "TERMINAL"]
