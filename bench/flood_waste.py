"""Issue 47's wasted Flood: in self-play, how many Flood Disaster
activations damage no enemy card (today: 5 in 6 games on turn 1 at 3,000
iterations)?

    python bench/flood_waste.py --bot "ismcts:iterations=12000" --games 6 --seed 5

Each game is played between two copies of the bot (seeds from the deal's),
chance drawn with its odds; at each activation of a Flood Disaster the
enemy's cards on the grid (their damage, and which stand) are compared
before it and when the player to move is its owner again or the turn has
passed (so only the Flood, and a Nullify answering it, lie between).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from xenophon.kernel.registry import make_game
from xenophon.play.players import make_bot

FLOOD = "Flood Disaster"


def enemy_cards(state, seat: int) -> dict[str, int]:
    """The enemy's cards on the grid: square -> damage."""
    grid = state.to_dict()["grid"]
    return {square: card["damage"] for square, card in grid.items() if card["owner"] != seat}


def flood_slot(state, seat: int, text: str) -> bool:
    """The move activates a face-down Flood Disaster of `seat`."""
    parts = text.split()
    if len(parts) < 2 or parts[0] != "event" or not parts[1].isdigit():
        return False
    slot = state.to_dict()["players"][seat]["slots"][int(parts[1]) - 1]
    return slot is not None and slot["card"] == FLOOD


def damaged(before: dict[str, int], after: dict[str, int]) -> bool:
    return any(square not in after or after[square] > damage for square, damage in before.items())


def play(spec: str, seed: int) -> list[tuple[int, str, bool]]:
    """(turn, move, damaged an enemy card) of each Flood of one game."""
    state = make_game("anabasis", seed=seed).new_initial_state()
    bots = [make_bot(spec, seed=seed * 2 + seat) for seat in (0, 1)]
    rng = random.Random(seed)
    floods = []
    pending = None  # (seat, turn, move, enemy cards before)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
            continue
        seat = state.current_player
        turn = state.to_dict()["turn"]
        if pending and (seat == pending[0] or turn != pending[1]):
            floods.append(
                (pending[1], pending[2], damaged(pending[3], enemy_cards(state, pending[0])))
            )
            pending = None
        move = bots[seat].choose(state)
        if flood_slot(state, seat, move.text):
            pending = (seat, turn, move.text, enemy_cards(state, seat))
        state.apply(move)
    if pending:
        floods.append((pending[1], pending[2], True))  # the game ended on it
    return floods


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="ismcts:iterations=12000")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    start = time.perf_counter()
    wasted = total = 0
    for seed in range(args.seed, args.seed + args.games):
        for turn, move, hit in play(args.bot, seed):
            total += 1
            wasted += not hit
            print(
                f"game {seed}: turn {turn}, {move}: {'damaged' if hit else 'no enemy card damaged'}"
            )
    print(
        f"{args.bot}: {wasted} of {total} Floods damaged no enemy card in {args.games} games "
        f"({time.perf_counter() - start:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
