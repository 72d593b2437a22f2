#!/usr/bin/env python3
"""A random player for xenophon, in two forms (docs/players.md):

- a Python class: ``xenophon match "python:examples/random_player.py:RandomPlayer" random``
- a program speaking the player protocol on stdin/stdout:
  ``xenophon match "cmd:python3 examples/random_player.py" random``

It imports nothing of xenophon: only the standard library.
"""

import json
import random
import sys


class RandomPlayer:
    """Plays a uniformly random legal move."""

    def __init__(self):
        self.rng = random.Random()

    def new_game(self, game, seat, options, seed):
        """Called once a game, before the first decision (optional)."""
        self.rng.seed(seed)

    def choose(self, view, legal_moves):
        """The move to play: one of `legal_moves` (texts in the game's
        notation; a piece that has a name is named by it, 'attack c > op.a', as
        in the view's pieces' "name"), given `view`, what this seat sees of
        the position."""
        return self.rng.choice(legal_moves)

    def game_over(self, view, returns, forfeit):
        """Called at the end of the game (optional)."""


def serve(player, lines=sys.stdin, out=sys.stdout):
    """The player protocol: one JSON object a line in, one a line out."""
    for line in lines:
        message = json.loads(line)
        if message["type"] == "start":
            player.new_game(message["game"], message["seat"], message["options"], message["seed"])
            reply = {"type": "ready", "protocol": 2, "name": "random_player.py"}
        elif message["type"] == "move":
            reply = {"move": player.choose(message["view"], message["legal_moves"])}
        else:  # game_over: nothing to answer
            player.game_over(message["view"], message["returns"], message["forfeit"])
            return
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    serve(RandomPlayer())
