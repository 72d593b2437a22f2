"""Fingerprints of the Hero C tables built from the shipped card set and the
test decks: what a change to the way the tables are handed to the core must
leave exactly as it was.

For each deck pairing of tests/hero_decks.py the tables' names, the initial
state (its bytes, hash and both seats' information-set keys) and a seeded
random walk of WALK_ACTIONS actions (new games started as games end): after
each action the state's bytes, hash and information-set keys, and at every
CHECK_EVERY-th action both seats' evaluations, learned features and a
resampled world. Every table value the rules, the views, the evaluation and
the features read is thereby reached.

    python tests/hero_tables_fingerprints.py --write   # records tests/data/hero_tables.json

tests/test_hero_core_data.py recomputes them on the installed build and
compares. The script runs on the package as it was before the tables took
plain data (HeroCardSet.core_data) too: it made the recorded file there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from hero_decks import CARDS, PAIRINGS
from xenophon._core import hero as core

DATA = Path(__file__).parent / "data" / "hero_tables.json"
WALK_ACTIONS = 2000
CHECK_EVERY = 25


def make_tables(cards, deck0, deck1):
    """The C tables of a card set and two decks."""
    if hasattr(cards, "core_data"):
        return core.Tables(cards.core_data(deck0, deck1))
    return core.Tables(cards, deck0, deck1)  # the binding before the plain-data handover


def choose(state, rng: random.Random) -> int:
    """A random legal code; a chance outcome with its true probability."""
    if state.is_chance():
        outcomes = state.chance_outcomes()
        return rng.choices([c for c, _ in outcomes], weights=[p for _, p in outcomes])[0]
    return rng.choice(state.legal_actions())


def keys(state) -> list[int]:
    return [state.hash(), state.information_set_key(0), state.information_set_key(1)]


def fingerprint(tables, seed: int) -> dict[str, Any]:
    state = core.CoreState.initial(tables)
    initial = {
        "bytes": hashlib.sha256(state.to_bytes()).hexdigest(),
        "keys": keys(state),
    }
    rng = random.Random(seed)
    walk, games = hashlib.sha256(), 1
    for step in range(WALK_ACTIONS):
        if state.is_terminal():
            state, games = core.CoreState.initial(tables), games + 1
        code = choose(state, rng)
        state.apply(code)
        walk.update(state.to_bytes())
        walk.update(repr((code, keys(state))).encode())
        if step % CHECK_EVERY == 0 and not state.is_terminal():
            for seat in (0, 1):
                walk.update(float.hex(state.evaluate(seat)).encode())
                walk.update(repr([float.hex(x) for x in state.features(seat)]).encode())
                walk.update(state.resample(seat, step).to_bytes())
    return {
        "names": [tables.card_names, tables.avatar_names, tables.deck_names],
        "initial": initial,
        "walk": walk.hexdigest(),
        "games": games,
    }


def fingerprints() -> dict[str, dict[str, Any]]:
    return {
        name: fingerprint(make_tables(CARDS, deck0, deck1), seed)
        for seed, (name, (deck0, deck1)) in enumerate(sorted(PAIRINGS.items()))
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"record {DATA}")
    args = parser.parse_args(argv)
    computed = fingerprints()
    text = json.dumps(computed, indent=1, sort_keys=True) + "\n"
    if args.write:
        DATA.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
