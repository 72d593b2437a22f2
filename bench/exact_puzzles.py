"""Issue 64's exact puzzles: positions from self-play where the game may be
decided within the current turn, with a proven answer. The exact solver
(`xenophon.search.solver`, `horizon_loses`: over the rest of the turn, a
position left at its end counting as not won) gives each first move its
probability of winning the game within this turn, exactly: every chance
outcome weighed with its odds, the opponent's windows played against the
seat, nothing estimated. A puzzle is a position where that probability is
above 0 for some move and the best moves (`winning`, equal to the best value)
stand at least MARGIN above every other (`proven_answer`): in one world where
the solve met no decision of the opponent and no card hidden from the seat
(`every_world`: the answer holds whatever the opponent holds), else the same
in each of WORLDS worlds drawn from the seat's information. `certain` marks
those whose best moves win with certainty.

    python bench/exact_puzzles.py harvest [GAME] --games N --seed S   # resumable
    python bench/exact_puzzles.py summary                          # counts, random floor
    python bench/exact_puzzles.py measure --level strong --held-out   # a level's score

Each game is played between two 100-iteration searches (search seeds from
the deal's), chance drawn with its odds; afterwards every decision with a
choice in the game's last LAST_TURNS turns is solved (at most BUDGET a world). A puzzle is one
JSON line in `bench/puzzles/exact-GAME.jsonl`: the position (its state
dict), the seat, `winning`, every move's value, the random mover's score
(`random_score`: the share of legal first moves that are best), the deal and
the decision (`source`). `held_out` is the deal's parity (odd: held out), so
the positions of one game, which are variants of each other (one
combination's steps), never fall in both halves. A finished deal is listed
in `bench/puzzles/exact-GAME-seeds.txt`; a resumed harvest skips it.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from puzzles import FOLDER, bot_for, position, position_key  # noqa: E402
from xenophon.kernel.registry import GAMES, make_game  # noqa: E402
from xenophon.play.levels import LEVELS  # noqa: E402
from xenophon.search.bots import ISMCTSBot  # noqa: E402
from xenophon.search.solver import Budget, solve  # noqa: E402

BUDGET = Budget(seconds=5.0, nodes=200_000)
SELF_PLAY_ITERATIONS = 100
#: the least gap between the best moves' chance and every other move's
MARGIN = 0.10
#: values this close are one value (sums of products of the odds)
TIE = 1e-9
#: a certain win is counted apart where at most this share of the moves win
HARD = 0.5
#: the last turns of a game whose decisions are solved
LAST_TURNS = 4
#: the worlds solved where a solve meets something hidden from the seat
WORLDS = 4


def suite_path(game_name: str) -> Path:
    return FOLDER / f"exact-{game_name}.jsonl"


def seeds_path(game_name: str) -> Path:
    return FOLDER / f"exact-{game_name}-seeds.txt"


def late_positions(game_name: str, seed: int) -> list[tuple[int, object]]:
    """(decision number, position) of each decision with a choice in the last
    LAST_TURNS turns of one self-play game."""
    state = make_game(game_name, seed=seed).new_initial_state()
    bots = [ISMCTSBot(iterations=SELF_PLAY_ITERATIONS, seed=seed * 2 + s) for s in (0, 1)]
    rng = random.Random(seed)
    decisions: list[tuple[int, int, object]] = []  # (decision, turn, position)
    while not state.is_terminal():
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
            continue
        decisions.append((len(decisions) + 1, state.backend.turn(), state.copy()))
        state.apply(bots[state.current_player].choose(state))
    first = state.backend.turn() - LAST_TURNS + 1
    return [(n, s) for n, turn, s in decisions if turn >= first and len(s.legal_actions()) > 1]


def world_answer(state, seed: int, budget: Budget) -> tuple[dict, bool] | None:
    """(each move's exact chance of winning within the turn, whether the
    solve met something hidden from the seat) in one world drawn from the
    seat's information; None when the solver does not finish every move."""
    result = solve(
        state, state.current_player, worlds=1, budget=budget, seed=seed, horizon_loses=True
    )
    values = {v.move.text: v.win for v in result.moves}
    if result.exhausted or any(win is None for win in values.values()):
        return None
    return values, result.hidden_matters


def best_moves(values: dict) -> list[str] | None:
    """The moves of the best value when it is above 0 and MARGIN above every
    other move's, else None."""
    best = max(values.values())
    winning = sorted(text for text, win in values.items() if win >= best - TIE)
    others = [win for text, win in values.items() if text not in winning]
    if best <= 0 or not others or best - max(others) < MARGIN:
        return None
    return winning


def proven_answer(state, budget: Budget = BUDGET) -> dict | None:
    """The position's answer: the best moves (`best_moves`), every move's
    exact chance of winning within the turn. Where the solve meets a decision
    of the opponent or a card hidden from the seat, each of WORLDS worlds
    drawn from the seat's information is solved and must give the same best
    moves (`every_world` False: proven in those worlds, not in all); None
    when a solve does not finish or no best moves stand out."""
    first = world_answer(state, 0, budget)
    if first is None:
        return None
    answers = [first[0]]
    if first[1]:
        for seed in range(1, WORLDS):
            found = world_answer(state, seed, budget)
            if found is None:
                return None
            answers.append(found[0])
    winning = best_moves(answers[0])
    if winning is None or any(best_moves(values) != winning for values in answers[1:]):
        return None
    mean = {text: sum(v[text] for v in answers) / len(answers) for text in answers[0]}
    return {
        "winning": winning,
        "values": {text: round(win, 6) for text, win in mean.items()},
        "certain": min(mean[text] for text in winning) >= 1.0 - TIE,
        "every_world": not first[1],
        "worlds": len(answers),
        "random_score": round(len(winning) / len(mean), 6),
    }


def harvest_game(game_name: str, seed: int) -> list[dict]:
    """The exact puzzles of one self-play game."""
    puzzles = []
    for decision, state in late_positions(game_name, seed):
        data = state.to_dict()
        seat = state.current_player
        if position({"game": game_name, "state": data}) is None:
            continue  # the core's state reader does not take this dict
        answer = proven_answer(state)
        if answer is None:
            continue
        puzzles.append(
            {
                "game": game_name,
                "state": data,
                "seat": seat,
                "turn": data["turn"],
                **answer,
                "deal": seed,
                "source": f"self-play {game_name} seed {seed} decision {decision}",
                "held_out": seed % 2 == 1,
            }
        )
    return puzzles


def load(game_name: str) -> list[dict]:
    path = suite_path(game_name)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def append(game_name: str, seed: int, puzzles: list[dict]) -> int:
    """Appends the puzzles not yet in the suite, numbered on, then lists the
    seed as done; returns how many were new."""
    present = load(game_name)
    known = {position_key(p["state"], p["seat"]) for p in present}
    new = 0
    with suite_path(game_name).open("a") as out:
        for puzzle in puzzles:
            key = position_key(puzzle["state"], puzzle["seat"])
            if key in known:
                continue
            known.add(key)
            new += 1
            puzzle["id"] = f"exact-{game_name}-{len(present) + new}"
            out.write(json.dumps(puzzle, sort_keys=True) + "\n")
    with seeds_path(game_name).open("a") as out:
        out.write(f"{seed}\n")
    return new


def done_seeds(game_name: str) -> set[int]:
    path = seeds_path(game_name)
    return {int(word) for word in path.read_text().split()} if path.exists() else set()


def harvest(game_names: list[str], games: int, seed: int) -> None:
    FOLDER.mkdir(exist_ok=True)
    for game_name in game_names:
        done = done_seeds(game_name)
        for deal in range(seed, seed + games):
            if deal in done:
                continue
            start = time.perf_counter()
            new = append(game_name, deal, harvest_game(game_name, deal))
            print(
                f"{game_name} seed {deal}: {new} new, {len(load(game_name))} in all "
                f"({time.perf_counter() - start:.0f} s)",
                flush=True,
            )


def summary(game_names: list[str]) -> None:
    """Per game and half: puzzles, deals and the random mover's mean score."""
    for game_name in game_names:
        puzzles = load(game_name)
        for held_out in (False, True):
            half = [p for p in puzzles if p["held_out"] == held_out]
            floor = sum(p["random_score"] for p in half) / len(half) if half else 0.0
            deals = len({p["deal"] for p in half})
            certain = [p for p in half if p["certain"]]
            every = sum(p["every_world"] for p in half)
            hard = sum(p["random_score"] <= HARD for p in certain)
            print(
                f"{game_name} {'held-out' if held_out else 'open'}: {len(half)} puzzles "
                f"from {deals} deals, random mover {floor:.1%}; {len(certain)} certain "
                f"wins ({hard} where at most {HARD:.0%} of the moves win), {every} proven "
                "in every world"
            )


def measure(game_names: list[str], level: str, held_out_only: bool, seed: int = 1) -> dict:
    """Per game and half, how many puzzles the level's bot answers with a best
    move (one search a puzzle, search seed `seed`), and of the certain wins."""
    counts = {}
    for game_name in game_names:
        for puzzle in load(game_name):
            if held_out_only and not puzzle["held_out"]:
                continue
            state = make_game(game_name).state_from_dict(puzzle["state"])
            move = bot_for(level, seed, None, game_name).choose(state).text
            half = "held-out" if puzzle["held_out"] else "open"
            for key in ((game_name, half, "all"), (game_name, half, "certain")):
                if key[2] == "certain" and not puzzle["certain"]:
                    continue
                right, total = counts.get(key, (0, 0))
                counts[key] = (right + (move in puzzle["winning"]), total + 1)
    for (game_name, half, kind), (right, total) in sorted(counts.items()):
        print(f"{level} {game_name} {half} {kind}: {right}/{total}")
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("harvest", "summary", "measure"))
    parser.add_argument("game", nargs="?", choices=list(GAMES))
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="normal", choices=list(LEVELS))
    parser.add_argument("--held-out", action="store_true", help="measure the held-out half only")
    args = parser.parse_args()
    game_names = [args.game] if args.game else list(GAMES)
    if args.games < 1:
        print("--games must be at least 1", file=sys.stderr)
        return 2
    if args.command == "harvest":
        harvest(game_names, args.games, args.seed)
    if args.command == "measure":
        measure(game_names, args.level, args.held_out)
        return 0
    summary(game_names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
