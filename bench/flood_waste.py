"""Issue 47's wasted Flood: in self-play, how many Flood Disaster
activations damage no enemy card (docs/search.md, "Wasted Floods")?

    python bench/flood_waste.py --bot "ismcts:iterations=12000" --games 6 --seed 5

Each game is played between two copies of the bot (seeds from the deal's),
chance drawn with its odds; at each activation of a Flood Disaster the
enemy's cards on the grid (their damage, and which stand) are compared
before it and when the player to move is its owner again or the turn has
passed (so only the Flood, and a Nullify answering it, lie between); an
enemy card gone from the grid counts as destroyed (a Flood's 2 damage heals
at the owner's next Standby unless it destroys). Of the
Floods that damage no enemy card, the summary counts apart those on a rank
where no enemy character stood (the moves `GamePlugin.futile_moves` names,
which a search with `futile_moves=skip` never chooses while another move is
legal) and the others a Nullify answered.

    python bench/flood_waste.py --bot "ismcts:iterations=3000,futile_moves=skip" --games 20
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import NamedTuple

from xenophon.anabasis.futile import futile_moves
from xenophon.kernel.registry import make_game
from xenophon.play.players import make_bot

FLOOD = "Flood Disaster"
NULLIFY = "Nullify"


def enemy_cards(state, seat: int) -> dict[str, int]:
    """The enemy's cards on the grid: square -> damage."""
    grid = state.to_dict()["grid"]
    return {square: card["damage"] for square, card in grid.items() if card["owner"] != seat}


def event_slot(state, seat: int, text: str, card: str) -> bool:
    """The move activates a face-down `card` of `seat`."""
    parts = text.split()
    if len(parts) < 2 or parts[0] != "event" or not parts[1].isdigit():
        return False
    slot = state.to_dict()["players"][seat]["slots"][int(parts[1]) - 1]
    return slot is not None and slot["card"] == card


def flood_slot(state, seat: int, text: str) -> bool:
    """The move activates a face-down Flood Disaster of `seat`."""
    return event_slot(state, seat, text, FLOOD)


class Flood(NamedTuple):
    turn: int
    move: str
    hit: bool  # it damaged an enemy card
    killed: bool  # an enemy card left the grid (damage heals at its owner's next Standby)
    nullified: bool  # a Nullify answered it
    futile: bool  # no enemy character stood on its rank (GamePlugin.futile_moves)


def damaged(before: dict[str, int], after: dict[str, int]) -> bool:
    return any(square not in after or after[square] > damage for square, damage in before.items())


def destroyed(before: dict[str, int], after: dict[str, int]) -> bool:
    return any(square not in after for square in before)


def play(spec: str, seed: int) -> list[Flood]:
    """Each Flood of one game."""
    state = make_game("anabasis", seed=seed).new_initial_state()
    bots = [make_bot(spec, seed=seed * 2 + seat) for seat in (0, 1)]
    rng = random.Random(seed)
    floods = []
    pending = None  # (seat, turn, move, enemy cards before, futile)
    nullified = False
    while not state.is_terminal():
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
            continue
        seat = state.current_player
        turn = state.to_dict()["turn"]
        if pending and (seat == pending[0] or turn != pending[1]):
            after = enemy_cards(state, pending[0])
            hit, killed = damaged(pending[3], after), destroyed(pending[3], after)
            floods.append(Flood(pending[1], pending[2], hit, killed, nullified, pending[4]))
            pending = None
        futile = futile_moves(state)
        move = bots[seat].choose(state)
        if pending and seat != pending[0]:
            nullified = nullified or event_slot(state, seat, move.text, NULLIFY)
        if flood_slot(state, seat, move.text):
            pending = (seat, turn, move.text, enemy_cards(state, seat), move.code in futile)
            nullified = False
        state.apply(move)
    if pending:
        # the game ended on it
        floods.append(Flood(pending[1], pending[2], True, True, nullified, pending[4]))
    return floods


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="ismcts:iterations=12000")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    start = time.perf_counter()
    floods = []
    for seed in range(args.seed, args.seed + args.games):
        for flood in play(args.bot, seed):
            floods.append(flood)
            outcome = (
                "destroyed" if flood.killed else "damaged" if flood.hit else "no enemy card damaged"
            )
            notes = [
                note
                for note, holds in (
                    ("Nullified", flood.nullified),
                    ("no enemy on its rank", flood.futile),
                )
                if holds
            ]
            print(
                f"game {seed}: turn {flood.turn}, {flood.move}: {outcome}"
                + (f" ({', '.join(notes)})" if notes else "")
            )
    wasted = [flood for flood in floods if not flood.hit]
    print(
        f"{args.bot}: {len(wasted)} of {len(floods)} Floods damaged no enemy card in "
        f"{args.games} games: {sum(f.futile for f in wasted)} on a rank without an enemy "
        f"character, {sum(f.nullified and not f.futile for f in wasted)} others answered by "
        f"a Nullify; {sum(f.killed for f in floods)} destroyed an enemy card "
        f"({time.perf_counter() - start:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
