"""Move quality at equal iterations: our ISMCTS and OpenSpiel's C++ ISMCTS,
both with one uniform rollout to the end an iteration and c = 1, on positions
of games between two ISMCTS bots; each search's choice scored by a reference
search (ours with 40x the iterations) as the regret of its win probability.
Load does not distort it (it counts choices, not seconds).

    python bench/move_quality.py [--game anabasis] [--positions 30] [--seeds 12] [--out FILE]
"""

import argparse
import json
import random
import statistics

from xenophon.kernel.registry import game_from_spec
from xenophon.play.players import make_bot

EQUAL = "iterations={n},uniform_playouts=1,c_uct=1.0,cutoff_turns=-1,max_playout_actions=1000000"


def positions_of(game_spec: str, count: int, seed: int) -> list:
    """Decision positions with several legal moves, from games of two ISMCTS bots."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        game = game_from_spec(game_spec, seed=rng.getrandbits(32))
        bots = [make_bot("ismcts:iterations=300", rng.getrandbits(16)) for _ in range(2)]
        state = game.new_initial_state()
        while not state.is_terminal() and len(found) < count:
            if state.is_chance():
                state.apply_code(state.sample_chance(rng).code)
                continue
            if len(state.legal_actions()) > 1 and rng.random() < 0.1:
                found.append(state.copy())
            state.apply_code(bots[state.current_player].choose(state).code)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="anabasis")
    parser.add_argument("--positions", type=int, default=30)
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--out")
    args = parser.parse_args()
    searchers = {
        "xenophon": f"ismcts:{EQUAL.format(n=args.iterations)}",
        "openspiel": f"openspiel:iterations={args.iterations}",
    }
    reference = f"ismcts:{EQUAL.format(n=40 * args.iterations)}"
    regrets = {name: [] for name in searchers}
    agree = {name: 0 for name in searchers}
    for state in positions_of(args.game, args.positions, seed=1):
        ref = make_bot(reference, 0).analyse(state)
        value = {m.move.code: m.win_probability for m in ref.moves}
        best = ref.best.move.code
        for name, spec in searchers.items():
            for seed in range(1, args.seeds + 1):
                code = make_bot(spec, seed).choose(state).code
                regrets[name].append(value[best] - value.get(code, 0.0))
                agree[name] += code == best
    n = args.positions * args.seeds
    rows = {
        name: {
            "choices": n,
            "agree_with_reference": round(agree[name] / n, 3),
            "mean_regret": round(statistics.mean(regrets[name]), 4),
            "regret_se": round(statistics.stdev(regrets[name]) / n**0.5, 4),
        }
        for name in searchers
    }
    result = {
        "command": "python bench/move_quality.py "
        + " ".join(f"--{k} {v}" for k, v in vars(args).items() if k != "out" and v is not None),
        "reference": reference,
        "rows": rows,
    }
    print(json.dumps(result, indent=1))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1)


if __name__ == "__main__":
    main()
