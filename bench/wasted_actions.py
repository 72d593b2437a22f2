"""Issue 64's wasted actions in self-play: how often a level fires Flood
Disaster at a rank where no enemy character stands, plays Rally on a
character that can strike nothing more this turn, or moves a character and
at its very next decision moves it straight back (`move b2-b1` then `move
b1-b2`, nothing between: no chance outcome, no other decision).

    python bench/wasted_actions.py --level normal --games 20 --seed 1
    python bench/wasted_actions.py --level normal --settings futile_moves=search --games 20

Each game is played between two copies of the level's bot (with `--settings`,
a search of the level's budget with those settings: bench/puzzles.py's
`bot_for`), chance drawn with its odds, one process. The Flood and Rally
tests are src/anabasis/futile.py's (`enemy_character_ranks`,
`cannot_strike`); the move-then-undo pair is read from the moves played, as
the issue counts it (a pair the rules make worth playing, a CHARGE
character's, still counts).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from puzzles import bot_for  # noqa: E402
from xenophon.anabasis.futile import cannot_strike, enemy_character_ranks  # noqa: E402
from xenophon.anabasis.notation import EVENT, square_name  # noqa: E402
from xenophon.kernel.codes import decode  # noqa: E402
from xenophon.kernel.registry import make_game  # noqa: E402
from xenophon.play.levels import LEVELS  # noqa: E402

GAME = "anabasis"


def event_waste(state, code: int) -> str | None:
    """'flood' or 'rally' when `code` fires one where it cannot tell, else
    None (the event counted apart: 'flood fired', 'rally fired')."""
    kind, slot, arg = decode(code)
    if kind != EVENT:
        return None
    seat = state.current_player
    view = state.view(seat)
    held = view["players"][seat]["slots"][slot]
    cards = state.game.cards
    effect = cards.by_name(held["card"]).effect if held else None
    if effect == "flood" and arg not in enemy_character_ranks(view, cards, seat):
        return "flood"
    if effect == "rally" and cannot_strike(view, cards, seat, square_name(arg)):
        return "rally"
    return None


def fired(state, code: int) -> str | None:
    """'flood' or 'rally' when `code` activates one (any target)."""
    kind, slot, _ = decode(code)
    if kind != EVENT:
        return None
    held = state.to_dict()["players"][state.current_player]["slots"][slot]
    effect = state.game.cards.by_name(held["card"]).effect if held else None
    return effect if effect in ("flood", "rally") else None


def undoes(previous: str | None, text: str) -> bool:
    """`text` moves back the character `previous` (the step just before) moved."""
    if previous is None or not previous.startswith("move ") or not text.startswith("move "):
        return False
    start, end = previous.split()[1].split("-")
    return text == f"move {end}-{start}"


def play(level: str, settings: str | None, seed: int) -> Counter:
    """The counts of one self-play game."""
    state = make_game(GAME, seed=seed).new_initial_state()
    bots = [bot_for(level, seed * 2 + seat, settings, GAME) for seat in (0, 1)]
    rng = random.Random(seed)
    counts: Counter = Counter(games=1)
    previous = None  # the text of the step just before, when a decision
    while not state.is_terminal():
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
            previous = None
            continue
        seat = state.current_player
        move = bots[seat].choose(state)
        counts["decisions"] += 1
        counts["moves"] += move.text.startswith("move ")
        event = fired(state, move.code)
        if event:
            counts[f"{event} fired"] += 1
        waste = event_waste(state, move.code)
        if waste:
            counts[f"{waste} wasted"] += 1
        if undoes(previous, move.text):
            counts["move-then-undo pairs"] += 1
            print(f"game {seed}, turn {state.to_dict()['turn']}: {previous} then {move.text}")
        previous = move.text
        state.apply(move)
        previous = previous if state.current_player == seat else None
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="normal", choices=list(LEVELS))
    parser.add_argument("--settings", help="a bot spec's settings, e.g. futile_moves=search")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="a JSON file to write the counts to")
    args = parser.parse_args()
    if args.games < 1:
        print("--games must be at least 1", file=sys.stderr)
        return 2
    start = time.perf_counter()
    total: Counter = Counter()
    for seed in range(args.seed, args.seed + args.games):
        counts = play(args.level, args.settings, seed)
        total += counts
        print(f"game {seed}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    seconds = time.perf_counter() - start
    summary = {
        "level": args.level,
        "settings": args.settings,
        "seeds": [args.seed, args.seed + args.games - 1],
        "seconds": round(seconds),
        **dict(sorted(total.items())),
    }
    print(json.dumps(summary))
    if args.out:
        Path(args.out).write_text(json.dumps(summary, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
