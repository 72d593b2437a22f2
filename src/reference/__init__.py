"""The oracle: a slow, readable Python implementation of each game's rules,
for tests and benchmarks. Importing it registers it as the "oracle" engine
of both games (xenophon.game.register_engine)."""
from __future__ import annotations

from typing import Any

from xenophon.game import register_engine


def _anabasis(game: Any) -> Any:
    from xenophon.reference.anabasis import OracleGame
    return OracleGame(game.cards, game.mode)


def _hero(game: Any) -> Any:
    from xenophon.reference.hero import OracleGame
    return OracleGame(game.cards, *game.decks)


register_engine("oracle", "anabasis", _anabasis)
register_engine("oracle", "hero", _hero)
