"""How deep the search's descents reach, and how many nodes it makes, as the
budget grows, with each way of keying the other player's nodes
(`opponent_nodes`, docs/search.md): a search whose opponent nodes split by
the hidden hand of each sampled world cannot grow past the opponent's first
reply, so more iterations stop adding depth.

The positions are those of bench/visit_shares.py (20 per game: deal seeds 1
to 20 after 0 to 32 random decisions); one worker, search seed = deal. Per
game, option and budget: the mean descent depth (tree steps per iteration),
nodes per iteration, and iterations per second (one core, noisy on a shared
machine; the depths and nodes are not).

    python bench/tree_depth.py --out bench/results/tree-depth.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from visit_shares import GAMES, POSITIONS, position
from xenophon.search.bots import ISMCTSBot

BUDGETS = (1000, 4000, 16000)
OPTIONS = ("own", "searcher", "fused")


def measure(state, opponent_nodes: str, iterations: int, seed: int) -> dict[str, float]:
    bot = ISMCTSBot(iterations=iterations, seed=seed, opponent_nodes=opponent_nodes)
    workers = bot._workers_for(state, state.to_bytes(), state.current_player, 1, bot.memory_bytes)
    start = time.perf_counter()
    bot._run(workers, iterations, 0.0)
    seconds = time.perf_counter() - start
    worker = workers[0]
    return {
        "depth": worker.path_steps / worker.iterations,
        "nodes_per_iteration": worker.nodes / worker.iterations,
        "iterations_per_second": worker.iterations / seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the JSON file to write")
    args = parser.parse_args()
    rows = []
    for game in GAMES:
        states = [(deal, position(game, deal)) for deal in range(1, POSITIONS + 1)]
        states = [(d, s) for d, s in states if not s.is_terminal() and len(s.legal_moves()) > 1]
        for option in OPTIONS:
            for budget in BUDGETS:
                runs = [measure(state, option, budget, deal) for deal, state in states]
                row = {
                    "game": game,
                    "opponent_nodes": option,
                    "iterations": budget,
                    "positions": len(runs),
                }
                for name in runs[0]:
                    row[name] = round(statistics.mean(r[name] for r in runs), 3)
                rows.append(row)
                print(
                    f"{game:9} {option:9} {budget:6}: depth {row['depth']:.2f}, "
                    f"nodes/iteration {row['nodes_per_iteration']:.3f}, "
                    f"{row['iterations_per_second']:,.0f} iterations/s",
                    flush=True,
                )
    with open(args.out, "w") as out:
        json.dump(
            {"command": "python bench/tree_depth.py --out " + args.out, "rows": rows}, out, indent=1
        )


if __name__ == "__main__":
    main()
