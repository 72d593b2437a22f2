"""Writes src/data/bench_positions.json (installed as xenophon/data/): fixed opening, midgame and
endgame positions of each game, taken from one seeded self-play game of ISMCTS (300 iterations a
move) per game. Rerun only to change the bench: `python bench/make_positions.py`."""

import json
import random
from pathlib import Path

from xenophon.kernel.registry import make_game
from xenophon.search.bots import ISMCTSBot

GAMES = {"anabasis": {"mode": "standard"}, "hero": {"decks": ["crimson_conqueror", "wild_grove"]}}


def self_play(name, options, seed):
    game = make_game(name, seed=seed, **options)
    state = game.new_initial_state()
    bots = [ISMCTSBot(iterations=300, seed=seed + seat) for seat in (0, 1)]
    moves, decisions = [], []
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance():
            move = state.sample_chance(rng)
        else:
            if len(state.legal_actions()) > 4:
                decisions.append((len(moves), state.to_dict()["turn"]))
            move = bots[state.current_player].choose(state)
        state.apply_code(move.code)
        moves.append(move.text)
    return moves, decisions


def main():
    positions = []
    for name, options in GAMES.items():
        moves, decisions = self_play(name, options, seed=2024)
        last_turn = decisions[-1][1]
        wanted = {"opening": 3, "midgame": max(4, last_turn // 2), "endgame": max(5, last_turn - 2)}
        for stage, turn in wanted.items():
            index = next(i for i, t in decisions if t >= turn)
            positions.append(
                {"game": name, "stage": stage, "options": options, "moves": moves[:index]}
            )
    path = Path(__file__).resolve().parent.parent / "src" / "data" / "bench_positions.json"
    path.write_text(json.dumps(positions, indent=1) + "\n")
    print(f"wrote {len(positions)} positions to {path}")


if __name__ == "__main__":
    main()
