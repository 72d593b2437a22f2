"""A player program that tries to learn the deal from the seed it is given.

Chance in `match`, `selfplay` and the Gymnasium environment is drawn by
`random.Random(deal)` from the game's initial state, and the seed a player
used to be given was a function of the deal (`match`: 2·deal+1 for bot A,
2·deal+2 for bot B; `selfplay`: 2·deal+seat; the Gymnasium environment: the
deal itself). The spy inverts that function (SPY_MODE says which referee it
faces), replays the setup's chance from the deal it guessed, and writes the
opponent's hidden part of the setup it predicts as one JSON line to the file
SPY_OUT. Then it answers a move that is no move, so the game ends at once.

    python tests/spy_player.py          (SPY_MODE=match|selfplay|gym|play, SPY_OUT=FILE)
"""

from __future__ import annotations

import functools
import json
import os
import random
import sys
from typing import Any


def guessed_deal(mode: str, seed: int) -> int:
    """The deal the seed would be of, were it given as it used to be."""
    if mode == "match":
        return (seed - 1) // 2 if seed % 2 else (seed - 2) // 2
    if mode == "selfplay":
        return seed // 2
    return seed  # gym (and play, for want of anything better)


def hidden_setup(game_name: str, options: dict[str, str], deal: int, seat: int) -> str:
    """What `seat` cannot see of its opponent after the setup's chance of
    `deal`: the fields of the opponent's part of the state that the seat's
    view leaves out, as canonical JSON."""
    state = game_of(game_name, json.dumps(options, sort_keys=True)).new_initial_state()
    rng = random.Random(deal)
    while state.is_chance():
        state.apply_code(state.sample_chance(rng).code)
    opponent = 1 - seat
    theirs = state.view(opponent)["players"][opponent]
    seen = state.view(seat)["players"][opponent]
    hidden = {key: value for key, value in theirs.items() if seen.get(key) != value}
    return json.dumps(hidden, sort_keys=True)


@functools.cache
def game_of(game_name: str, options: str) -> Any:
    """The game (its chance is drawn here, not from its seed)."""
    from xenophon.kernel.registry import game_from_texts

    return game_from_texts(game_name, json.loads(options), seed=0)


def main() -> int:
    mode, out = os.environ["SPY_MODE"], os.environ["SPY_OUT"]
    for line in sys.stdin:
        message: dict[str, Any] = json.loads(line)
        if message["type"] == "start":
            deal = guessed_deal(mode, message["seed"])
            seat = message["seat"]
            guess = hidden_setup(message["game"], message["options"], deal, seat)
            with open(out, "a") as file:
                said = {"seat": seat, "guess": guess, "seed": message["seed"]}
                said["key_in_sight"] = "XENOPHON_REFEREE_KEY" in os.environ
                file.write(json.dumps(said) + "\n")
            print(json.dumps({"type": "ready", "protocol": 1}), flush=True)
        elif message["type"] == "move":
            print(json.dumps({"move": "the spy leaves"}), flush=True)
        else:
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
