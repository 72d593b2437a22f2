"""The puzzle suite of issue 47: positions where the exact solver
(`xenophon.search.solver`) proves one move at least 10 points better, in win
probability over the rest of the turn, than a move a search played.

    python bench/puzzles.py harvest [GAME] --games N --seed S   # self-play, resumable
    python bench/puzzles.py build                     # append the hand-built puzzles
    python bench/puzzles.py relabel                   # patterns read again from the moves
    python bench/puzzles.py --level strong            # solved counts per game and pattern
    python bench/puzzles.py --level strong --quick    # a stable quarter of the suite
    python bench/puzzles.py --level strong --held-out --record FILE   # each puzzle's move
    python bench/puzzles.py --level expert --held-out --against FILE  # turned wrong since FILE
    python bench/puzzles.py --level strong --settings root_policy=auto   # other settings
    python bench/puzzles.py --level strong --settings 'anabasis:weights=A;hero:weights=B'
    python bench/puzzles.py --level strong --seeds 20 --quick  # how often 20 seeds agree
    python bench/puzzles.py --game hero --open   # one game's open half (what tuning may see)
    python bench/puzzles.py recheck hero --worlds 64 --pattern guard   # solved again, more worlds

A puzzle is one JSON line: the position (its state dict, the truth the
search resamples from the seat's information), the seat, every move's value
from the solver, the move a search played (or, hand-built, a move MARGIN
below the best) and its source, the pattern (`classify`: boost-before-attack,
guard, waste, cast-vs-hoard, other) and `held_out`, never used for tuning:
every second puzzle of the first harvest (the first LEGACY_IDS of a file),
then by the position's digest, so that adding puzzles never moves one across
the split. A level solves a puzzle when the move it chooses is less than
`MARGIN` below the best move's value.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import multiprocessing
import random
import sys
import time
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.registry import GAMES, make_game
from xenophon.play.levels import LEVELS, bot_for_level
from xenophon.play.players import make_bot
from xenophon.search.bots import ISMCTSBot
from xenophon.search.solver import Budget, solve

FOLDER = Path(__file__).parent / "puzzles"
#: how much better the solver's best move must be than the search's
MARGIN = 0.10
#: the budget of each solve while harvesting (a position it does not finish is skipped)
HARVEST_BUDGET = Budget(seconds=2.0, nodes=8_000)
#: the iterations of the searches whose moves are checked at each decision
#: (the game is played by the last; a puzzle keeps the first budget whose
#: move is MARGIN below the best)
HARVEST_ITERATIONS = (10, 100)
WORLDS = 4
#: the puzzles harvested before the split by hash: their `held_out` stays as
#: recorded (every second one of a file)
LEGACY_IDS = {"anabasis": 30, "hero": 26}

#: the cards whose use adds to an attack (Anabasis events, Hero operations)
BOOSTS = {"Rally", "Forced March", "War Cry", "Giant Growth", "Wind Ward"}
#: the cards issue 47 names as wasted when spent for little
SPENDABLE = {"Flood Disaster", "Nullify"}
PATTERNS = ("boost-before-attack", "guard", "waste", "cast-vs-hoard", "other")


def position_key(state_dict: dict, seat: int) -> str:
    """A digest of the position, the same wherever the puzzle sits in its file."""
    text = json.dumps({"state": state_dict, "seat": seat}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def held_out_by_hash(state_dict: dict, seat: int) -> bool:
    """The split of a puzzle added after the first harvest: by its
    position's digest, so adding puzzles never moves one across it."""
    return int(position_key(state_dict, seat)[-1], 16) % 2 == 1


def card_used(puzzle: dict, text: str) -> str | None:
    """The card a move spends: an Anabasis event by its slot, a Hero card
    played by its name ('ability on' counts as the avatar's boost)."""
    words = text.split()
    if words[0] == "event":
        slot = puzzle["state"]["players"][puzzle["seat"]]["slots"][int(words[1]) - 1]
        return slot["card"] if slot else None
    if words[0] == "play":
        return " ".join(words[1 : words.index("on")] if "on" in words else words[1:])
    if words[0] == "ability":
        return "War Cry"  # the Flame Warlord's +500, a boost like War Cry
    return None


def classify(puzzle: dict) -> str:
    """The puzzle's pattern from the best move and the move played."""
    best, played = puzzle["best"], puzzle["played"]
    best_card, played_card = card_used(puzzle, best), card_used(puzzle, played)
    attacks = played.startswith("attack")
    if attacks and best_card in BOOSTS:
        return "boost-before-attack"
    spends_for_little = played_card in SPENDABLE and played != best
    if spends_for_little or (played.startswith("play") and played_card != best_card):
        return "waste"
    guards = best.split()[0] in ("guard", "evade") and played.split()[0] != best.split()[0]
    if guards or (attacks and not best.startswith("attack")):
        return "guard"
    if best_card or best.startswith("deploy"):
        if played.split()[0] in ("end", "pass", "retainer") or played.startswith("buy"):
            return "cast-vs-hoard"
    return "other"


def solved_values(state, seat: int, budget: Budget) -> tuple[dict, str, set, int] | None:
    """Every move's value, the best move, the moves whose value is exact and
    the worlds averaged; None when the solver does not finish every move."""
    result = solve(state, seat, worlds=WORLDS, budget=budget)
    if result.exhausted or any(value.win is None for value in result.moves):
        return None
    values = {value.move.text: round(value.win, 6) for value in result.moves}  # type: ignore[arg-type]
    exact = {value.move.text for value in result.moves if value.exact}
    return values, result.best.move.text, exact, result.worlds


def make_puzzle(
    state, solved: tuple[dict, str, set, int], played: str, played_by: str, source: str
) -> dict:
    values, best, exact_moves, worlds = solved
    data = state.to_dict()
    seat = state.current_player
    puzzle = {
        "game": state.game.name,
        "state": data,
        "seat": seat,
        "turn": data["turn"],
        "values": values,
        "best": best,
        "exact": best in exact_moves,
        "worlds": worlds,
        "played": played,
        "played_by": played_by,
        "source": source,
        "held_out": held_out_by_hash(data, seat),
    }
    puzzle["pattern"] = classify(puzzle)
    return puzzle


def puzzle_of(state, seat: int, candidates: list[tuple[str, str]], source: str) -> dict | None:
    """The puzzle of a position, or None when the solver does not finish it
    or no candidate (move, who played it) is MARGIN below the best."""
    solved = solved_values(state, seat, HARVEST_BUDGET)
    if solved is None:
        return None
    values, best = solved[0], solved[1]
    wrong = [(move, by) for move, by in candidates if values[best] - values[move] >= MARGIN]
    if not wrong:
        return None
    return make_puzzle(state, solved, *wrong[0], source)


def harvest_game(job: tuple[str, int]) -> tuple[str, int, list[dict]]:
    """The puzzles of one self-play game between two small searches; at each
    decision the moves of a search at each of HARVEST_ITERATIONS are checked."""
    game_name, seed = job
    state = make_game(game_name, seed=seed).new_initial_state()
    bots = {
        (seat, iterations): ISMCTSBot(iterations=iterations, seed=seed * 2 + seat)
        for seat in (0, 1)
        for iterations in HARVEST_ITERATIONS
    }
    found = []
    rng = random.Random(seed)
    decision = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply_code(state.sample_chance(rng).code)
            continue
        seat = state.current_player
        decision += 1
        moves = {n: bots[(seat, n)].choose(state) for n in HARVEST_ITERATIONS}
        if len(state.legal_actions()) > 1:
            candidates = [(move.text, f"ismcts:iterations={n}") for n, move in moves.items()]
            source = f"self-play {game_name} seed {seed} decision {decision}"
            puzzle = puzzle_of(state, seat, candidates, source)
            if puzzle:
                found.append(puzzle)
        state.apply(moves[HARVEST_ITERATIONS[-1]])
    return game_name, seed, found


def piece(card: str, owner: int) -> dict:
    """A character on the grid as the state dict writes it: ready, undamaged."""
    return {
        "card": card,
        "owner": owner,
        "damage": 0,
        "ready": True,
        "moved": False,
        "face_down": False,
        "atk_bonus": 0,
    }


def anabasis_base(ap: int = 3, castle_hp: int = 1):
    """An Anabasis field phase of seat 0, AP and castle HP given, no event
    in either player's slots, the enemy castle at 10 HP."""
    state = make_game("anabasis", seed=1).new_initial_state()
    state.resolve_chance(random.Random(0))
    data = state.to_dict()
    data["phase"] = "field"
    data["players"][0].update(castle_hp=castle_hp, ap=ap)
    data["players"][0]["slots"] = [None, None, None]
    data["players"][1]["slots"] = [None, None, None]
    return data


def catapult_rally_position(square: str = "d4", enemy_castle_hp: int = 10, ap: int = 3):
    """Issue 47's first pattern: seat 0's Catapult (SIEGE, 60% HIT) in reach
    of the enemy castle (10 HP) with Rally face down and 3 AP, its own castle
    at 1 HP between two enemy Swordsmen. Attacking first wins only on a hit
    that Rally can no longer add to (6 damage is not enough); Rally first
    makes a hit 10 damage: about 84% against 60% over the turn. The
    variants move the Catapult, lower the enemy castle or give more AP."""
    data = anabasis_base(ap)
    data["players"][0]["slots"][0] = {"card": "Rally", "face_up": False}
    data["players"][1]["castle_hp"] = enemy_castle_hp
    data["grid"].update(c1=piece("Swordsman", 1), e1=piece("Swordsman", 1))
    data["grid"][square] = piece("Catapult", 0)
    return make_game("anabasis").state_from_dict(data)


def flood_own_rank_position(files: str = "bc", rank: int = 2, enemy: str = "c5"):
    """A Flood Disaster that would hit only one's own characters: seat 0's
    wounded Militia (1 HP left) on `files` of `rank`, Flood face down, an
    enemy Swordsman at `enemy`. Flooding that rank destroys them; keeping the
    Flood (end) is better."""
    data = anabasis_base(ap=2, castle_hp=10)
    data["players"][0]["slots"][0] = {"card": "Flood Disaster", "face_up": False}
    for file in files:
        data["grid"][f"{file}{rank}"] = dict(piece("Militia", 0), damage=2)
    data["grid"][enemy] = piece("Swordsman", 1)
    return make_game("anabasis").state_from_dict(data)


def varied(puzzle_id: str, own_hp: int | None = None, enemy_hp: int | None = None):
    """A harvested position with either side's HP changed (a Hero avatar's,
    an Anabasis castle's)."""
    game_name = puzzle_id.rsplit("-", 1)[0]
    puzzle = next(p for p in load(game_name) if p["id"] == puzzle_id)
    data = json.loads(json.dumps(puzzle["state"]))
    seat = puzzle["seat"]
    key = "castle_hp" if "castle_hp" in data["players"][seat] else "hp"
    if own_hp is not None:
        data["players"][seat][key] = own_hp
    if enemy_hp is not None:
        data["players"][1 - seat][key] = enemy_hp
    return make_game(game_name).state_from_dict(data)


#: the harvested positions varied by HP, with the pattern each variant is kept for
VARIED = (
    ("guard", "hero-4", (None, 6, 12), (None, 4, 8)),
    ("guard", "hero-30", (None, 6, 12), (None, 4, 8)),
    ("cast-vs-hoard", "hero-1", (None, 6, 12), (None, 4, 8)),
    ("cast-vs-hoard", "hero-29", (None, 6, 12), (None, 4, 8)),
    ("boost-before-attack", "hero-28", (None, 6, 12), (None, 4, 8)),
    ("boost-before-attack", "hero-40", (None, 6, 16), (None, 4, 8)),
    ("waste", "hero-27", (None, 6, 12), (None, 4, 8)),
    ("cast-vs-hoard", "hero-2", (None, 6, 12), (None, 4, 8)),
    ("cast-vs-hoard", "hero-36", (None, 6, 12), (None, 4, 8)),
    ("guard", "hero-6", (None, 6, 12), (None, 4, 8)),
    ("guard", "hero-80", (None, 4, 12), (None, 4, 8)),
    ("guard", "hero-10", (None, 6, 12), (None, 4, 8)),
    ("guard", "hero-17", (None, 6, 15), (None, 4, 8)),
    ("guard", "hero-22", (None, 10, 15), (None, 4, 8)),
    ("guard", "hero-33", (None, 6, 18), (None, 4, 8)),
    ("cast-vs-hoard", "hero-12", (None, 6, 12), (None, 4, 8)),
    ("cast-vs-hoard", "hero-23", (None, 6, 12), (None, 4, 8)),
    ("cast-vs-hoard", "hero-16", (None, 6, 12), (None, 4, 8)),
    ("guard", "hero-3", (None, 6, 12), (None, 4, 8)),
    ("guard", "hero-20", (None, 6, 12), (None, 4, 8)),
    ("guard", "anabasis-8", (None, 3, 7), (None, 3, 7)),
    ("guard", "anabasis-20", (None, 3, 7), (None, 3, 7)),
    ("guard", "anabasis-47", (None, 3, 7), (None, 3, 7)),
    ("guard", "anabasis-52", (None, 3, 7), (None, 3, 7)),
    ("cast-vs-hoard", "anabasis-53", (None, 3, 7), (None, 3, 7)),
    ("guard", "anabasis-134", (None, 3, 7), (None, 3, 7)),
    ("other", "anabasis-121", (None, 3, 7), (None, 3, 7)),
    ("other", "anabasis-131", (None, 3, 7), (None, 3, 7)),
    ("other", "anabasis-136", (None, 3, 7), (None, 3, 7)),
    ("other", "anabasis-124", (None, 3, 7), (None, 3, 7)),
    ("other", "anabasis-129", (None, 3, 7), (None, 3, 7)),
    ("other", "anabasis-133", (None, 3, 7), (None, 3, 7)),
)


#: the hand-built positions: (pattern, builder, the builder's arguments);
#: a builder with no arguments is the position as first built
HAND_BUILT = (
    ("boost-before-attack", catapult_rally_position, ()),
    *(
        ("boost-before-attack", catapult_rally_position, (square, hp, ap))
        # left out, the solver separating no attack by 10 points from the
        # best: (d4, 8, 4) and d3 with 4 AP
        for square, hp, ap in (("d4", 10, 4), ("d4", 9, 3), ("d4", 9, 4), ("d4", 8, 3))
        + (("d3", 10, 3), ("d3", 9, 3), ("d3", 8, 3))
    ),
    *(
        ("waste", flood_own_rank_position, (files, rank, enemy))
        # one or two Militia lost is 9 points or less by the evaluation
        for files in ("abc", "efg", "bcef", "abefg")
        for rank in (1, 2)
        for enemy in ("c5", "e6")
    ),
    *(
        (pattern, varied, (puzzle_id, own, enemy))
        for pattern, puzzle_id, owns, enemies in VARIED
        for own in owns
        for enemy in enemies
        if (own, enemy) != (None, None)
    ),
)
#: the solve budget of a hand-built position (solved once, when built)
BUILD_BUDGET = Budget(seconds=60.0)


def hand_built_puzzle(state, pattern: str, source: str) -> dict | None:
    """The puzzle of a built position: a best move (of those tied at the top)
    and a move MARGIN below it, the best such pair whose pattern is
    `pattern`; None if there is none."""
    solved = solved_values(state, state.current_player, BUILD_BUDGET)
    if solved is None:
        return None
    values = solved[0]
    ranked = sorted(values, key=lambda text: -values[text])
    top = values[ranked[0]]
    for best in (text for text in ranked if values[text] == top):
        for move in (text for text in ranked if top - values[text] >= MARGIN):
            puzzle = make_puzzle(state, (values, best, *solved[2:]), move, "hand-built", source)
            if puzzle["pattern"] == pattern:
                return puzzle
    return None


def build() -> None:
    """Appends the hand-built puzzles not yet in their game's file (a
    position the solver does not separate by MARGIN in that pattern is
    reported and left out)."""
    for pattern, builder, arguments in HAND_BUILT:
        source = " ".join([builder.__name__, *map(str, arguments)])
        state = builder(*arguments)
        if any(puzzle["source"] == source for puzzle in load(state.game.name)):
            continue
        puzzle = hand_built_puzzle(state, pattern, source)
        if puzzle is None:
            print(f"{source}: not a {pattern} puzzle by the solver, left out", file=sys.stderr)
            continue
        written = append_puzzles(state.game.name, [puzzle])
        for puzzle in written:
            print(f"{puzzle['id']}: {pattern} ({source})", file=sys.stderr)


def harvested_seeds(game_name: str) -> set[int]:
    """The seeds whose self-play game has been harvested (a resumed harvest skips them)."""
    path = FOLDER / f"{game_name}-seeds.txt"
    if not path.exists():
        return set()
    return {int(line) for line in path.read_text().split()}


def append_puzzles(game_name: str, puzzles: list[dict]) -> list[dict]:
    """Appends the puzzles not yet in the file (by position and seat),
    numbered on; returns those written. The file is locked meanwhile, so
    that a build and a harvest running at once do not number alike."""
    written = []
    with (FOLDER / f"{game_name}.jsonl").open("a+") as out:
        fcntl.flock(out, fcntl.LOCK_EX)
        out.seek(0)
        present = [json.loads(line) for line in out.read().splitlines() if line.strip()]
        known = {position_key(p["state"], p["seat"]) for p in present}
        for puzzle in puzzles:
            key = position_key(puzzle["state"], puzzle["seat"])
            if key in known:
                continue
            known.add(key)
            puzzle["id"] = f"{game_name}-{len(present) + len(written) + 1}"
            out.write(json.dumps(puzzle, sort_keys=True) + "\n")
            written.append(puzzle)
    return written


def harvest(game_names: list[str], games: int, seed: int, processes: int) -> None:
    """Harvests `games` self-play games a game from `seed` on, in
    `processes` processes; resumable: a seed done is listed in
    GAME-seeds.txt once its puzzles are written, and is skipped next time."""
    from tqdm import tqdm

    FOLDER.mkdir(exist_ok=True)
    jobs = [(name, s) for s in range(seed, seed + games) for name in game_names]
    todo = [(name, s) for name, s in jobs if s not in harvested_seeds(name)]
    found: Counter = Counter()
    bar = tqdm(
        total=len(jobs), initial=len(jobs) - len(todo), unit="game", disable=not sys.stderr.isatty()
    )
    with multiprocessing.Pool(processes) as pool:
        for name, done_seed, puzzles in pool.imap_unordered(harvest_game, todo):
            found[name] += len(append_puzzles(name, puzzles))
            with (FOLDER / f"{name}-seeds.txt").open("a") as out:
                out.write(f"{done_seed}\n")
            bar.update()
            bar.set_postfix({n: len(load(n)) for n in game_names})
    bar.close()
    for name in game_names:
        print(f"{name}: {found[name]} new puzzles, {len(load(name))} in all", file=sys.stderr)


def load(game_name: str) -> list[dict]:
    path = FOLDER / f"{game_name}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def position(puzzle: dict):
    """The puzzle's position, or None when the core's state reader does not
    take its dict (a position inside a battle's windows)."""
    try:
        return make_game(puzzle["game"]).state_from_dict(puzzle["state"])
    except XenophonError:
        return None


def settings_in(settings: str | None, game_name: str) -> str | None:
    """The settings for `game_name`: `settings` itself, or where it is given
    per game ('anabasis:weights=A;hero:weights=B', for what belongs to one
    game, such as a weights file) the part that names the game (None: none)."""
    if settings is None or ":" not in settings:
        return settings
    parts = dict(part.partition(":")[::2] for part in settings.split(";"))
    return parts.get(game_name) or None


def bot_for(level: str, seed: int, settings: str | None, game_name: str):
    """The level's bot, or with `settings` (a bot spec's settings, 'root_policy=auto',
    or per game: `settings_in`) a search of the level's budget in `game_name`, time
    cap and workers with those settings."""
    settings = settings_in(settings, game_name)
    if settings is None:
        return bot_for_level(level, seed)
    budget = LEVELS[level]
    given = f"iterations={budget.iterations_in(game_name)}"
    given += f",time={budget.seconds}" if budget.seconds else ""
    if level == "max":
        given += f",workers={bot_for_level(level, seed).workers}"
    return make_bot(f"ismcts:{given},{settings}", seed)


def choice(job: tuple[dict, str, int, str | None]) -> tuple[str, str | None, float]:
    """The puzzle's id, the move the level's bot chooses (None when the
    core's state reader refuses the position) and the CPU seconds it took."""
    puzzle, level, seed, settings = job
    state = position(puzzle)
    if state is None:
        return puzzle["id"], None, 0.0
    started = time.process_time()
    move = bot_for(level, seed, settings, state.game.name).choose(state).text
    return puzzle["id"], move, time.process_time() - started


def right_by(values: dict, move: str) -> bool:
    """`move` is less than MARGIN below the best of `values`."""
    return max(values.values()) - values[move] < MARGIN


def is_right(puzzle: dict, move: str) -> bool:
    """The move is less than MARGIN below the solver's best."""
    return right_by(puzzle["values"], move)


def in_quick_subset(puzzle: dict) -> bool:
    """A quarter of the suite by the position's digest (stable as puzzles are
    added), for a measure that fits in a minute or two."""
    return int(position_key(puzzle["state"], puzzle["seat"])[-2], 16) % 4 == 0


def selected(held_out_only: bool, quick: bool, games=GAMES, open_only: bool = False) -> list[dict]:
    """The puzzles measured: held-out only, open only (what tuning may look
    at) or both, the quick quarter or all, of `games`."""
    return [
        puzzle
        for game_name in games
        for puzzle in load(game_name)
        if (puzzle["held_out"] or not held_out_only)
        and not (puzzle["held_out"] and open_only)
        and (in_quick_subset(puzzle) or not quick)
    ]


def choices(puzzles: list[dict], level: str, seed: int, settings, processes: int):
    """Each puzzle's chosen move by id, and the CPU seconds of all the
    searches, run in `processes` processes."""
    jobs = [(puzzle, level, seed, settings) for puzzle in puzzles]
    chosen, cpu = {}, 0.0
    for puzzle_id, move, seconds in searched(jobs, processes, "puzzle"):
        chosen[puzzle_id] = move
        cpu += seconds
    return chosen, cpu


def searched(jobs: list[tuple], processes: int, unit: str):
    """`choice` of each job, in `processes` processes (one: in this one), as
    they finish, with a progress bar on a terminal."""
    from tqdm import tqdm

    with multiprocessing.Pool(processes) if processes > 1 else nullcontext() as pool:
        found = pool.imap_unordered(choice, jobs) if pool else map(choice, jobs)
        yield from tqdm(
            found, total=len(jobs), unit=unit, leave=False, disable=not sys.stderr.isatty()
        )


def report(
    puzzles: list[dict], chosen: dict, held_out_only: bool, open_only: bool = False
) -> list[str]:
    """Solved counts per game and pattern, open and held-out, and each game's totals."""
    counts: Counter = Counter()
    for puzzle in puzzles:
        move = chosen[puzzle["id"]]
        if move is None:
            counts[(puzzle["game"], "unreadable")] += 1
            continue
        part = "held-out" if puzzle["held_out"] else "open"
        for pattern in (puzzle["pattern"], "all"):
            counts[(puzzle["game"], pattern, part, "all")] += 1
            counts[(puzzle["game"], pattern, part, "solved")] += is_right(puzzle, move)
    parts = ("held-out",) if held_out_only else ("open",) if open_only else ("open", "held-out")
    lines = []
    for game_name in sorted({puzzle["game"] for puzzle in puzzles}):
        unreadable = counts[(game_name, "unreadable")]
        if unreadable:
            lines.append(
                f"  {game_name}: {unreadable} puzzles whose position the state reader refuses"
            )
        found = {key[1] for key in counts if key[0] == game_name and len(key) == 4}
        extra = sorted(found - {*PATTERNS, "all"})
        for pattern in (*PATTERNS, *extra, "all"):
            cells = []
            for part in parts:
                total = counts[(game_name, pattern, part, "all")]
                solved_count = counts[(game_name, pattern, part, "solved")]
                share = f" ({solved_count / total:.0%})" if total else ""
                cells.append(f"{part} {solved_count}/{total}{share}")
            if any(counts[(game_name, pattern, part, "all")] for part in parts):
                lines.append(f"  {game_name:9} {pattern:20} " + "   ".join(cells))
    return lines


def measure(
    level: str,
    seed: int,
    held_out_only: bool,
    settings: str | None = None,
    quick: bool = False,
    processes: int = 2,
    record: Path | None = None,
    against: Path | None = None,
    games=GAMES,
    open_only: bool = False,
) -> None:
    given = f" with {settings}" if settings else ""
    subset = ", quick subset" if quick else ""
    print(f"level {level}{given}{subset}: puzzles solved (a move within {MARGIN:.0%} of the best)")
    puzzles = selected(held_out_only, quick, games, open_only)
    started = time.monotonic()
    chosen, cpu = choices(puzzles, level, seed, settings, processes)
    wall = time.monotonic() - started
    print("\n".join(report(puzzles, chosen, held_out_only, open_only)))
    print(f"  {len(puzzles)} puzzles in {wall:.0f} s, {cpu:.0f} s of CPU ({processes} processes)")
    if record:
        record.write_text(json.dumps(chosen, indent=0, sort_keys=True) + "\n")
    if against:
        print("\n".join(turned_wrong(puzzles, json.loads(against.read_text()), chosen)))


def turned_wrong(puzzles: list[dict], before: dict, now: dict) -> list[str]:
    """The puzzles right in `before` (another level's recorded choices) and
    wrong now: issue 47 asks for none when now is the larger budget."""
    turned = [
        puzzle["id"]
        for puzzle in puzzles
        if before.get(puzzle["id"])
        and now[puzzle["id"]]
        and is_right(puzzle, before[puzzle["id"]])
        and not is_right(puzzle, now[puzzle["id"]])
    ]
    compared = sum(1 for puzzle in puzzles if before.get(puzzle["id"]) and now[puzzle["id"]])
    return [
        f"  right before and wrong now: {len(turned)} of {compared} compared {' '.join(turned)}"
    ]


def separated(puzzle: dict) -> bool:
    """The solver's best move is MARGIN or more above every other move."""
    values = sorted(puzzle["values"].values(), reverse=True)
    return len(values) > 1 and values[0] - values[1] >= MARGIN


def agreement(
    puzzles: list[dict], level: str, seeds: int, settings: str | None, processes: int
) -> None:
    """For each of `puzzles` whose best move the solver separates from the
    second by MARGIN or more: the most frequent choice's count over `seeds`
    search seeds (the issue's target: at least 19 of 20), the searches run
    in `processes` processes."""
    print(f"level {level}{' with ' + settings if settings else ''}: agreement over {seeds} seeds")
    kept = [puzzle for puzzle in puzzles if separated(puzzle) and position(puzzle) is not None]
    jobs = [(puzzle, level, seed, settings) for puzzle in kept for seed in range(seeds)]
    chosen: dict[str, Counter] = {puzzle["id"]: Counter() for puzzle in kept}
    for puzzle_id, move, _ in searched(jobs, processes, "search"):
        chosen[puzzle_id][move] += 1
    least = seeds - seeds // 20
    for game_name in GAMES:
        counts = []
        for puzzle in kept:
            if puzzle["game"] != game_name:
                continue
            move, count = chosen[puzzle["id"]].most_common(1)[0]
            counts.append(count)
            right = "best" if move == puzzle["best"] else "not best"
            print(f"  {puzzle['id']}: {count}/{seeds} ({right}: {move})")
        if counts:
            met = sum(count >= least for count in counts)
            print(f"  {game_name}: {met}/{len(counts)} puzzles with at least {least}")


#: a recheck's budget a puzzle: far above the harvest's, the worlds being many more
RECHECK_BUDGET = Budget(seconds=120.0, nodes=50_000_000)


def resolved(puzzle: dict, worlds: int, seed: int = 0) -> dict | None:
    """Every move's value solved again over `worlds` worlds (None when the
    solver does not finish every move, or the state reader refuses the
    position)."""
    state = position(puzzle)
    if state is None:
        return None
    result = solve(state, puzzle["seat"], worlds=worlds, budget=RECHECK_BUDGET, seed=seed)
    if any(value.win is None for value in result.moves):
        return None
    return {value.move.text: value.win for value in result.moves}


def recheck(game_names: list[str], worlds: int, pattern: str | None, against: Path | None) -> None:
    """Each puzzle (of `pattern`, or all) solved again with `worlds` worlds:
    does its played move stay MARGIN below the best? The harvest averaged
    WORLDS worlds, so an answer that rests on how those few drew the hidden
    cards (the opponent's fast operations, in Hero) does not survive. With
    `against` (a --record file), the recorded moves right by the new values."""
    recorded = json.loads(against.read_text()) if against else {}
    print(f"solved again with {worlds} worlds: the played move still {MARGIN:.0%} below the best")
    counts: Counter = Counter()
    for game_name in game_names:
        for puzzle in load(game_name):
            if pattern and puzzle["pattern"] != pattern:
                continue
            key = (game_name, puzzle["pattern"], "held-out" if puzzle["held_out"] else "open")
            values = resolved(puzzle, worlds)
            if values is None:
                counts[(*key, "unsolved")] += 1
                continue
            counts[(*key, "all")] += 1
            survives = not right_by(values, puzzle["played"])
            counts[(*key, "survive")] += survives
            move = recorded.get(puzzle["id"])
            counts[(*key, "recorded right")] += bool(move) and right_by(values, move)
            if not survives:
                best, played = puzzle["best"], puzzle["played"]
                print(
                    f"  {puzzle['id']} does not survive: {best} {puzzle['values'][best]:.3f}"
                    f" -> {values[best]:.3f}, {played} {puzzle['values'][played]:.3f}"
                    f" -> {values[played]:.3f}"
                )
    for key in sorted({key[:3] for key in counts}):
        cells = [f"{counts[(*key, 'survive')]}/{counts[(*key, 'all')]} survive"]
        if recorded:
            cells.append(f"recorded move right {counts[(*key, 'recorded right')]}")
        if counts[(*key, "unsolved")]:
            cells.append(f"{counts[(*key, 'unsolved')]} not solved")
        print(f"  {key[0]:9} {key[1]:20} {key[2]:8} " + ", ".join(cells))


def relabel() -> None:
    """Rewrites each puzzle's pattern as `classify` reads it (ids, split and
    everything else unchanged)."""
    for game_name in GAMES:
        puzzles = load(game_name)
        for puzzle in puzzles:
            puzzle["pattern"] = classify(puzzle)
        lines = [json.dumps(puzzle, sort_keys=True) + "\n" for puzzle in puzzles]
        (FOLDER / f"{game_name}.jsonl").write_text("".join(lines))
        print(game_name, dict(Counter(p["pattern"] for p in puzzles)), file=sys.stderr)


def input_problem(level: str, against: Path | None) -> str | None:
    """What is wrong with the level or the --against file, if anything."""
    try:
        bot_for_level(level, 0)
    except XenophonError as error:
        return str(error)
    if against is not None and not against.is_file():
        return f"no record file {against}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "command",
        nargs="?",
        choices=("harvest", "build", "relabel", "recheck"),
        help="harvest, build, relabel or recheck",
    )
    parser.add_argument("game", nargs="?", choices=GAMES)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--processes", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--level", default="strong", help="the level measured (default strong)")
    half = parser.add_mutually_exclusive_group()
    half.add_argument("--held-out", action="store_true", help="measure the held-out half only")
    half.add_argument("--open", action="store_true", help="measure the open half only")
    parser.add_argument(
        "--settings",
        help="search settings at the level's budget, e.g. 'root_policy=auto', or per "
        "game: 'anabasis:eval=learned,weights=FILE;hero:eval=learned,weights=FILE'",
    )
    parser.add_argument("--quick", action="store_true", help="a stable quarter of the suite")
    parser.add_argument("--record", type=Path, help="write each puzzle's chosen move to this file")
    parser.add_argument(
        "--against", type=Path, help="list puzzles right in this --record file and wrong now"
    )
    parser.add_argument(
        "--seeds", type=int, help="count how often this many search seeds agree (separated puzzles)"
    )
    parser.add_argument(
        "--worlds", type=int, default=64, help="recheck: worlds a solve averages (default 64)"
    )
    parser.add_argument("--game", choices=GAMES, dest="measured", help="measure this game only")
    parser.add_argument("--pattern", choices=PATTERNS, help="recheck: this pattern's puzzles only")
    args = parser.parse_args()
    games = [args.game] if args.game else list(GAMES)
    if args.command == "harvest":
        harvest(games, args.games, args.seed, args.processes)
        return 0
    if args.command == "build":
        build()
        return 0
    if args.command == "relabel":
        relabel()
        return 0
    if args.command == "recheck":
        if not 1 <= args.worlds <= 1000:
            parser.error("--worlds must be from 1 to 1000")
        if args.against is not None and not args.against.is_file():
            parser.error(f"no record file {args.against}")
        recheck(games, args.worlds, args.pattern, args.against)
        return 0
    problem = input_problem(args.level, args.against)
    if problem:
        print(f"puzzles.py: {problem}", file=sys.stderr)
        return 2
    if args.settings is not None and args.level not in LEVELS:
        parser.error("--settings needs a level name (its budget is used)")
    if args.seeds is not None:
        puzzles = selected(args.held_out, args.quick, games, args.open)
        agreement(puzzles, args.level, args.seeds, args.settings, args.processes)
        return 0
    measure(
        args.level,
        args.seed,
        args.held_out,
        args.settings,
        args.quick,
        args.processes,
        args.record,
        args.against,
        [args.measured] if args.measured else list(GAMES),
        args.open,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
