"""Decisions per second of random play with the player's tensor at each
decision: xenophon's Batch (src/bindings/tensors.hpp) of 1 game and of N
games against OpenSpiel's Python loop over the same games, measured side by
side in one run (docs/tensors.md, "Throughput").

    python bench/tensor_throughput.py [--seconds 2] [--rounds 5] [--batch 256] [--native]
                                      [--out bench/tensor-throughput-results.json]

A step is one decision of the player to move, a uniformly random legal
action; chance is drawn between decisions and a game that ends starts again.
Each setting steps for about --seconds, in --rounds rounds in which the
settings take turns; the figures are the medians of the rounds:

- ``openspiel-py``: OpenSpiel's Python loop over our games registered with
  pyspiel (``python_xenophon_GAME``, xenophon.interop.openspiel): legal
  actions, a random choice, ``apply_action``, chance by ``chance_outcomes``;
- ``openspiel-py+tensor``: the same, also reading the player's observation
  tensor at each decision (what an RL loop does);
- ``openspiel-native-py`` (with --native): the same loop as openspiel-py
  over the native C++ games (xenophon.interop.native);
- ``xenophon-single``: Batch of 1 game stepped from Python, the observation
  tensor and legal codes written by C at each step, the action drawn with numpy;
- ``xenophon-batched``: Batch of --batch games stepped by one call;
- ``xenophon-batched-2-threads``: the same, the games split over 2 threads.

The ratios are xenophon's medians over each OpenSpiel setting's.
"""

import argparse
import importlib
import json
import os
import platform
import random
import statistics
import time

import numpy as np

from xenophon.kernel.plugin import plugins
from xenophon.kernel.registry import make_game


def spiel_steps(game, seconds, tensor, seed):
    """Decisions per second of OpenSpiel's Python loop on a pyspiel game."""
    rng = random.Random(seed)
    state, steps = game.new_initial_state(), 0
    start = time.perf_counter()
    while True:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            codes, weights = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(codes, weights=weights)[0])
        else:
            if tensor:
                state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
            if steps % 64 == 0 and time.perf_counter() - start >= seconds:
                return steps / (time.perf_counter() - start)


def batch_steps(xgame, n, seconds, seed, threads=1):
    """Decisions per second of a Batch of n games (the actions drawn with numpy)."""
    core = importlib.import_module(type(xgame.new_initial_state().backend).__module__)
    batch = core.Batch(xgame.tables, n, seed, "observation", threads)
    rng = np.random.default_rng(seed)
    rows, calls = np.arange(n), 0
    start = time.perf_counter()
    while True:
        pick = (rng.random(n) * batch.n_legal).astype(np.int64)
        batch.step(batch.legal[rows, pick])
        calls += 1
        if calls % 16 == 0 and time.perf_counter() - start >= seconds:
            return calls * n / (time.perf_counter() - start)


def settings(name, args):
    """{setting: a function of seconds giving its decisions per second}."""
    import pyspiel

    from xenophon.interop import openspiel as interop

    xgame = make_game(name, seed=1)
    spiel = pyspiel.load_game(interop.GAME_NAMES[name])
    runs = {
        "openspiel-py": lambda seconds: spiel_steps(spiel, seconds, False, 1),
        "openspiel-py+tensor": lambda seconds: spiel_steps(spiel, seconds, True, 1),
    }
    if args.native:
        from xenophon.interop import native

        native_game = native.NativeGame(xgame).spiel
        runs["openspiel-native-py"] = lambda seconds: spiel_steps(native_game, seconds, False, 1)
    runs["xenophon-single"] = lambda seconds: batch_steps(xgame, 1, seconds, 1)
    runs["xenophon-batched"] = lambda seconds: batch_steps(xgame, args.batch, seconds, 1)
    runs["xenophon-batched-2-threads"] = lambda seconds: batch_steps(
        xgame, args.batch, seconds, 1, 2
    )
    return runs


def measure_game(name, args):
    """The median rate of each setting over --rounds rounds, the settings
    taking turns within each round (so that a change of the machine's load
    falls on all of them), and the ratios of the medians."""
    runs = settings(name, args)
    rates = {key: [] for key in runs}
    for _ in range(args.rounds):
        for key, run in runs.items():
            rates[key].append(run(args.seconds))
    medians = {key: statistics.median(values) for key, values in rates.items()}
    row = {key: round(value) for key, value in medians.items()}
    for ours in ("xenophon-batched", "xenophon-batched-2-threads", "xenophon-single"):
        for theirs in [key for key in medians if key.startswith("openspiel")]:
            row[f"{ours} / {theirs}"] = round(medians[ours] / medians[theirs], 1)
    row["rounds"] = {key: [round(value) for value in values] for key, values in rates.items()}
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="each setting, each round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--native", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    results = {
        "command": "python bench/tensor_throughput.py "
        + f"--seconds {args.seconds:g} --rounds {args.rounds} --batch {args.batch}"
        + (" --native" if args.native else ""),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "unit": "decisions per second",
        "games": {},
    }
    for plugin in plugins():
        results["games"][plugin.name] = measure_game(plugin.name, args)
        print(plugin.name, json.dumps(results["games"][plugin.name]), flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump(results, out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main()
