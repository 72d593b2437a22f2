"""Fingerprints of search results from fixed seeds and iteration budgets: what
a restructuring of the search must leave exactly as it was.

For both games, from the benchmark positions (every stage), each case runs
one search and records, for every root move, its visits and its win
probability written exactly (`float.hex`: the mean of the move's returns,
so its value sum to the bit) with its Wilson lower bound, its principal
line, the tree's node count and bytes, and the move the bot then plays. The cases cover the presets, every
tree option (value scaling, transpositions, priors, root policies, opponent
nodes), playouts (cut-offs, uniform rollouts, the learned evaluation), the
policy sampler, a tree that fills up, restricted root moves, the baselines
(PIMC, the cheating UCT) and both parallel modes.

Only deterministic searches are fingerprinted: iteration budgets (a time
budget's iterations depend on the machine), root parallelism (each worker
grows its own tree from its own generator, in a thread of its own: the sum
does not depend on the threads' timing), and the shared tree with its
workers run one after the other on it (with threads, which worker creates
a node first depends on timing: such a search is not repeatable).

    python tests/search_fingerprints.py --write   # records tests/data/search_fingerprints.json

tests/test_search_fingerprints.py recomputes them on the installed build and
compares. The script runs on the package as it was laid out before the
renovation too (it made the recorded file there).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

try:
    from xenophon.lab.benchmarks import load_positions, position_state
except ImportError:  # the layout before the renovation
    from xenophon.benchmarks import load_positions, position_state  # type: ignore
from xenophon.search.bots import CheatingUCTBot, ISMCTSBot, PIMCBot

DATA = Path(__file__).parent / "data" / "search_fingerprints.json"
ITERATIONS = 1000

#: name -> (bot class, its settings); seeds and budgets are fixed by `fingerprint`
CASES: dict[str, tuple[type, dict[str, Any]]] = {
    "default": (ISMCTSBot, {}),
    "preset v1": (ISMCTSBot, {"preset": "v1"}),
    "c_uct 1.0": (ISMCTSBot, {"c_uct": 1.0}),
    "value_scaling range": (ISMCTSBot, {"value_scaling": "range", "c_uct": 1.0}),
    "value_scaling spread": (ISMCTSBot, {"value_scaling": "spread", "c_uct": 1.0}),
    "transpositions": (ISMCTSBot, {"transpositions": True}),
    "prior_weight": (ISMCTSBot, {"prior_weight": 1.0}),
    "root_policy halving": (ISMCTSBot, {"root_policy": "halving"}),
    "root_policy forced": (ISMCTSBot, {"root_policy": "forced"}),
    "chance stratified": (ISMCTSBot, {"chance": "stratified"}),
    "opponent_nodes searcher": (ISMCTSBot, {"opponent_nodes": "searcher"}),
    "opponent_nodes fused": (ISMCTSBot, {"opponent_nodes": "fused"}),
    "all options": (
        ISMCTSBot,
        {
            "value_scaling": "spread",
            "transpositions": True,
            "prior_weight": 1.0,
            "root_policy": "forced",
            "opponent_nodes": "searcher",
        },
    ),
    "halving transpositions fused": (
        ISMCTSBot,
        {"root_policy": "halving", "transpositions": True, "opponent_nodes": "fused"},
    ),
    "ties first": (ISMCTSBot, {"ties": "first"}),
    "temperature": (ISMCTSBot, {"temperature": 1.0}),
    "cutoff 0": (ISMCTSBot, {"cutoff_turns": 0}),
    "cutoff 4": (ISMCTSBot, {"cutoff_turns": 4}),
    "uniform rollouts": (
        ISMCTSBot,
        {"uniform_playouts": True, "cutoff_turns": -1, "max_playout_actions": 1_000_000},
    ),
    "short playouts": (ISMCTSBot, {"cutoff_turns": -1, "max_playout_actions": 20}),
    "evaluation hand": (ISMCTSBot, {"evaluation": "hand"}),
    "evaluation learned": (ISMCTSBot, {"evaluation": "learned"}),
    "sampler policy greedy": (ISMCTSBot, {"sampler": "policy", "particles": 16}),
    "sampler policy uniform": (
        ISMCTSBot,
        {"sampler": "policy", "likelihood": "uniform", "particles": 16},
    ),
    "tree full": (ISMCTSBot, {"memory_mb": 0.02}),
    "tree full transpositions": (
        ISMCTSBot,
        {"memory_mb": 0.02, "transpositions": True, "opponent_nodes": "fused"},
    ),
    "root parallel": (ISMCTSBot, {"workers": 2}),
    "root parallel halving": (ISMCTSBot, {"workers": 3, "root_policy": "halving"}),
    "pimc": (PIMCBot, {"worlds": 4}),
    "cheating uct": (CheatingUCTBot, {}),
}
#: the shared tree's cases: its workers run one after the other (repeatable)
SHARED_CASES: dict[str, dict[str, Any]] = {
    "shared tree": {},
    "shared tree stratified": {"chance": "stratified"},
    "shared tree all options": {
        "value_scaling": "spread",
        "transpositions": True,
        "prior_weight": 1.0,
        "root_policy": "forced",
        "opponent_nodes": "searcher",
    },
}


def describe(result: Any) -> dict[str, Any]:
    """A search result as exact JSON data."""
    return {
        "moves": [
            [
                m.move.text,
                m.visits,
                float(m.win_probability).hex(),
                float(m.lower_bound).hex(),
                list(m.principal_variation),
            ]
            for m in result.moves
        ],
        "iterations": result.iterations,
        "worlds": result.worlds,
        "nodes": result.nodes,
        "tree_bytes": result.tree_bytes,
        "notes": list(result.notes),
    }


def bot_case(state: Any, kind: type, options: dict[str, Any]) -> dict[str, Any]:
    bot = kind(iterations=ITERATIONS, seed=3, **options)
    first = describe(bot.analyse(state))
    # a second search of the same bot (its seeds move on), then its choice
    result = bot.analyse(state)
    return {"first": first, "second": describe(result), "played": bot.choose_from(result).text}


def restricted_case(state: Any) -> dict[str, Any]:
    """A search restricted to every other root move."""
    allowed = [move.code for move in state.legal_moves()][::2]
    bot = ISMCTSBot(iterations=ITERATIONS, seed=3)
    return {"first": describe(bot.analyse(state, root_moves=allowed))}


def shared_case(state: Any, options: dict[str, Any], count: int = 2) -> dict[str, Any]:
    """A shared tree, its workers run one after the other on it."""
    bot = ISMCTSBot(iterations=ITERATIONS, workers=count, parallel="shared", seed=3, **options)
    player = state.current_player
    workers = bot._workers_for(state, state.to_bytes(), player, count, bot.memory_bytes)
    for worker in workers:
        worker.run(ITERATIONS // count, 0.0)
    return {"first": describe(bot._result(state, player, workers, 1.0, ITERATIONS))}


def fingerprints() -> dict[str, dict[str, Any]]:
    """{"GAME STAGE": {case: fingerprint}} for every benchmark position."""
    out: dict[str, dict[str, Any]] = {}
    for entry in load_positions():
        state = position_state(entry)
        cases: dict[str, Any] = {}
        for name, (kind, options) in CASES.items():
            cases[name] = bot_case(state, kind, options)
        cases["root moves"] = restricted_case(state)
        for name, options in SHARED_CASES.items():
            cases[name] = shared_case(state, options)
        out[f"{entry['game']} {entry['stage']}"] = cases
    return out


def as_text(prints: dict[str, dict[str, Any]]) -> str:
    """The fingerprints as JSON, one line per case (a diff names the case)."""
    lines = []
    for position, cases in sorted(prints.items()):
        body = ",\n".join(
            f"  {json.dumps(name)}: {json.dumps(value, sort_keys=True)}"
            for name, value in sorted(cases.items())
        )
        lines.append(f" {json.dumps(position)}: {{\n{body}\n }}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write {DATA}")
    args = parser.parse_args(argv)
    text = as_text(fingerprints())
    if args.write:
        DATA.parent.mkdir(exist_ok=True)
        DATA.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
