"""The Elo ladder of the AI's levels (docs/play.md "Levels"): each level
against the next weaker one, in paired deals (one deal played from both
seats), for each game; the weakest level is the anchor (Elo 1000) and each
level adds the Elo of its score against the one below.

    python bench/levels.py [--deals 20] [--game anabasis] [--processes 1]
    python bench/levels.py --game anabasis --more normal --deals 24 --seed 1001
    python bench/levels.py --game hero --player "python:my_module:MyPlayer" --deals 10

writes bench/levels-results-GAME.json (every game, with the iterations each
side searched) and src/data/levels.json (the ladder `xenophon play` names its
levels by); --more plays only the pairings of the levels named (new ones or
more games), writing the results file after every game: the same command
resumes it. Only the games played at the levels' budgets of today count:
a level whose budget changed is off the measured ladder (and the levels
above it) until its pairing is played again; src/data/levels.json's
"estimated" Elo stand for those. The top levels think for seconds a
decision: a pairing of 12 deals costs hours (docs/play.md). A score of all
wins or all losses is counted as half a game short of it, so the ladder
stays finite.
--player rates a bot spec (an external player, docs/players.md) on the shipped
ladder instead: it plays each measured level (`level:NAME`; not the estimated
ones) on the same deals from both seats, and its Elo is the level's plus its
Elo within a deal against it; writes nothing.
"""

import argparse
import json
import time
from dataclasses import asdict, replace
from multiprocessing import Pool
from pathlib import Path

from xenophon.kernel.registry import game_from_spec
from xenophon.lab.tournament import GameRecord, MatchReport, paired_interval, play_match, play_out
from xenophon.play.levels import (
    ANCHOR_ELO,
    LADDER,
    LEVELS,
    Level,
    LevelBot,
    estimated_levels,
    ladder_elos,
)

GAMES = ("anabasis", "hero")
ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "levels-results.json"  # -GAME is added to the stem
LADDER_FILE = ROOT / "src" / "data" / "levels.json"


def uncapped(name: str) -> Level:
    """The level `name` as the ladder measures it: its iterations alone. The
    time cap only guards a machine much slower than the one the budgets were
    sized on; under the load of a measuring machine it would end searches
    early, and the result would depend on that load."""
    return replace(LEVELS[name], seconds=None)


def play_game(task: tuple[str, str, str, int, int]) -> dict:
    """One game: level `stronger` in seat `seat`, `weaker` in the other."""
    game_name, stronger, weaker, seed, seat = task
    players: list = [None, None]
    players[seat] = LevelBot(uncapped(stronger), seed * 2 + 1)
    players[1 - seat] = LevelBot(uncapped(weaker), seed * 2 + 2)
    record = play_out(game_from_spec(game_name, seed=seed), players, seed, seat)
    iterations = [
        LEVELS[stronger].iterations_in(game_name),
        LEVELS[weaker].iterations_in(game_name),
    ]
    return {
        "game": game_name,
        "stronger": stronger,
        "weaker": weaker,
        **asdict(record),
        "iterations": iterations,
    }


def of_today(row: dict) -> bool:
    """The game was played at the budgets its levels have today."""
    game = row["game"]
    budgets = [
        LEVELS[row["stronger"]].iterations_in(game),
        LEVELS[row["weaker"]].iterations_in(game),
    ]
    return row["iterations"] == budgets


def finite_elo(report: MatchReport) -> float:
    half = 0.5 / report.games
    return MatchReport.elo(min(max(report.score, half), 1 - half))


def ladder_of(
    game: str, games: list[dict], pairs: list[tuple[str, str]]
) -> tuple[dict[str, int], list[dict]]:
    """The game's measured Elo ladder and the summary of each pairing, from
    its games at today's budgets: from the anchor up to the first pairing
    without such games."""
    elo = {LADDER[0].name: float(ANCHOR_ELO)}
    summaries = []
    for stronger, weaker in pairs:
        played = [r for r in games if r["stronger"] == stronger and of_today(r)]
        if not played:
            break
        report = MatchReport(game, stronger, weaker)
        for row in sorted(
            played,
            key=lambda r: (r["seed"], r["first_seat_of_a"]),
        ):
            report.add(
                GameRecord(
                    row["seed"],
                    row["first_seat_of_a"],
                    row["returns"],
                    row["turns"],
                    row["actions"],
                )
            )
        summary = report.summary()
        low, high = paired_interval(report.pair_scores())
        summary["paired_elo_interval95"] = [
            round(MatchReport.elo(low), 1),
            round(MatchReport.elo(high), 1),
        ]
        summary["elo_step"] = round(finite_elo(report), 1)
        summaries.append(summary)
        elo[stronger] = elo[weaker] + summary["elo_step"]
        print(report.text(), flush=True)
    return {name: round(value) for name, value in elo.items()}, summaries


def rate_player(game: str, spec: str, deals: int, seed: int, processes: int) -> list[dict]:
    """A player against each measured level of the game's shipped ladder:
    per level its score, its Elo within a deal and its Elo on the ladder."""
    ladder, rows = ladder_elos(game), []
    estimated = estimated_levels(game)
    measured = [
        level.name for level in LADDER if level.name in ladder and level.name not in estimated
    ]
    for level in measured:
        report = play_match(
            game, spec, f"level:{level}", games=2 * deals, seed=seed, processes=processes
        )
        print(report.text(), flush=True)
        fit = report.summary()["deal_fit"]
        within = fit["elo"]
        rows.append(
            {
                "level": level,
                "level_elo": ladder[level],
                "score": round(report.score, 3),
                "elo_within_a_deal": within,
                "interval95": fit.get("elo_interval95"),
                "elo": None if within is None else round(ladder[level] + within),
            }
        )
    rated = [row for row in rows if row["elo"] is not None]
    if rated:
        near = min(rated, key=lambda row: abs(row["score"] - 0.5))
        print(
            f"{spec} on the {game} ladder: Elo {near['elo']} (against {near['level']}, "
            f"the level its score is nearest 50% with: {near['score']:.0%})"
        )
    return rows


def write_results(path: Path, commands: list[str], summaries: list[dict], games: list[dict]):
    text = json.dumps({"commands": commands, "summaries": summaries, "games": games}, indent=1)
    path.write_text(text + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--game", choices=GAMES, action="append")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument(
        "--more",
        metavar="LEVEL",
        action="append",
        help="play only the pairing of LEVEL and the level below it, adding "
        "its games to the game's results file (deals from --seed; a game "
        "the file holds already is not played again, so the same command "
        "resumes a stopped run); the ladder is made from every game in the "
        "file at today's budgets",
    )
    parser.add_argument("--player", metavar="SPEC", help="rate this bot on the shipped ladder")
    args = parser.parse_args()
    if args.player:
        for game in args.game or GAMES:
            print(json.dumps(rate_player(game, args.player, args.deals, args.seed, args.processes)))
        return
    pairs = [(LADDER[i + 1].name, LADDER[i].name) for i in range(len(LADDER) - 1)]
    played = [pair for pair in pairs if not args.more or pair[0] in args.more]
    command = "python bench/levels.py " + " ".join(
        [f"--deals {args.deals}", f"--seed {args.seed}"]
        + [f"--game {g}" for g in args.game or ()]
        + [f"--more {m}" for m in args.more or ()]
    )
    for game in args.game or GAMES:
        results = RESULTS.with_name(f"levels-results-{game}.json")
        old = json.loads(results.read_text()) if args.more else {"commands": [], "games": []}
        tasks = [
            (game, stronger, weaker, args.seed + deal, seat)
            for stronger, weaker in played
            for deal in range(args.deals)
            for seat in (0, 1)
        ]
        # a game of these deals played already (at today's budgets) is not played again
        done = {
            (r["stronger"], r["seed"], r["first_seat_of_a"]) for r in old["games"] if of_today(r)
        }
        left = [t for t in tasks if (t[1], t[3], t[4]) not in done]
        if len(left) < len(tasks):
            print(f"{game}: {len(tasks) - len(left)} of these games are in {results} already")
        commands = old["commands"] + ([command] if command not in old["commands"] else [])
        games, started = list(old["games"]), time.time()
        with Pool(args.processes) as pool:
            for number, row in enumerate(pool.imap_unordered(play_game, left), start=1):
                games.append(row)
                write_results(results, commands, [], games)  # a stopped run resumes from it
                print(
                    f"{game}: {number}/{len(left)} games, {time.time() - started:.0f} s",
                    flush=True,
                )
        ladder, summaries = ladder_of(game, games, pairs)
        write_results(results, commands, summaries, games)
        # the ladder file keeps the other game's ladder, the budgets and the estimates
        data = json.loads(LADDER_FILE.read_text()) if LADDER_FILE.exists() else {}
        data.setdefault("commands", {})[game] = commands
        data.setdefault("elo", {})[game] = ladder
        # each measured step's 95% interval (paired deals), by its upper level
        data.setdefault("steps", {})[game] = {
            summary["bot_a"]: summary["paired_elo_interval95"] for summary in summaries
        }
        data["anchor"] = LADDER[0].name
        LADDER_FILE.write_text(json.dumps(data, indent=1) + "\n")
        print(json.dumps(ladder, indent=1))


if __name__ == "__main__":
    main()
