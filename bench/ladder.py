"""The ladder of docs/lab/strength-log.md "Inference and the ladder": A/A checks (a
bot against itself with other seeds: ours, and OpenSpiel's C++ ISMCTS), ours
against OpenSpiel's at equal iterations, and the policy sampler against the
uniform one at equal iterations, in pairs of games (one deal, seats swapped);
and, only when named with --only, the doubling rungs at equal time
(`doubling-GAME-tT`: 2T seconds a move against T, T from 0.1 to 0.8).

    python bench/ladder.py [--deals 100] [--only NAME ...] [--processes N] [--tally]
                           [--sprt ELO0 ELO1]

Each pairing's games go to bench/ladder/NAME.jsonl as they finish (an
interrupted ladder resumes where it stopped), its report to
bench/ladder/NAME.json; the summaries to bench/ladder-results.json (a run
replaces the rows of the pairings it ran and keeps the others), and a
table (pentanomial counts, score, Elo from the pairs) is printed. `--tally`
plays nothing: it reports the deals the results files hold so far.
`--sprt ELO0 ELO1` stops each pairing when the GSPRT on its pentanomial
pairs decides between two Elo within a deal (`xenophon match --sprt`),
--deals being the cap.
"""

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.registry import SpecError
from xenophon.lab.tournament import check_sprt, finished_match, play_match

HERE = Path(__file__).resolve().parent
#: OpenSpiel's setting: one uniformly random rollout to the end a leaf, c = 1
EQUAL_ITERATIONS = (
    "ismcts:iterations=500,uniform_playouts=1,c_uct=1.0,cutoff_turns=-1,max_playout_actions=1000000"
)
OPENSPIEL = "openspiel:iterations=500"
#: the same, drawing the move among root moves equal in visits and value
EQUAL_ITERATIONS_TIES = EQUAL_ITERATIONS + ",ties=random"
PAIRINGS = {
    "aa-ismcts-anabasis": ("anabasis", EQUAL_ITERATIONS, EQUAL_ITERATIONS),
    "aa-openspiel-anabasis": ("anabasis", OPENSPIEL, OPENSPIEL),
    # deals 101 on: not those of the published runs (bench/peers-strength.json)
    "ismcts-vs-openspiel-anabasis": ("anabasis", EQUAL_ITERATIONS, OPENSPIEL, 100),
    # the same deals, ours descending into a new leaf's node where one exists,
    # as OpenSpiel's does (the first difference of "Inference and the ladder")
    "transpositions-vs-openspiel-anabasis": (
        "anabasis",
        EQUAL_ITERATIONS + ",transpositions=1",
        OPENSPIEL,
        100,
    ),
    # the same deals, ours drawing the move among root moves equal in visits
    # and value instead of taking the lowest code (`end`): the A/A stalls
    "ties-vs-openspiel-anabasis": ("anabasis", EQUAL_ITERATIONS_TIES, OPENSPIEL, 100),
    "aa-ismcts-ties-anabasis": ("anabasis", EQUAL_ITERATIONS_TIES, EQUAL_ITERATIONS_TIES),
    "ties-vs-openspiel-hero": ("hero", EQUAL_ITERATIONS_TIES, OPENSPIEL, 100),
    "policy-vs-uniform-anabasis": (
        "anabasis",
        "ismcts:iterations=500,sampler=policy",
        "ismcts:iterations=500",
    ),
    "policy-vs-uniform-hero": (
        "hero",
        "ismcts:iterations=500,sampler=policy",
        "ismcts:iterations=500",
    ),
}
#: The scaling rungs of the search issue: the defaults at twice the time a move
#: against the defaults at the time before, 0.1 s to 1.6 s, on deals 90001 on.
#: Equal time, so only on a machine with nothing else running, with one
#: process a core; each rung costs twice the one before (Anabasis's first,
#: 200 deals, about 40 minutes on 2 cores; all eight about 28 hours). They
#: run only when named with --only.
DOUBLING_TIMES = (0.1, 0.2, 0.4, 0.8)
DOUBLING = {
    f"doubling-{game}-t{time:g}": (
        game,
        f"ismcts:time={2 * time:g}",
        f"ismcts:time={time:g}",
        90000,
    )
    for game in ("anabasis", "hero")
    for time in DOUBLING_TIMES
}
DEFAULT_RUN = list(PAIRINGS)
PAIRINGS.update(DOUBLING)


def save_rows(path: Path, rows: list[dict], command: str) -> None:
    """Writes this run's rows (each with the command that made it) into the
    summaries file: the pairings it did not run keep their rows."""
    kept = []
    if path.exists():
        earlier = json.loads(path.read_text())
        ran = {row["name"] for row in rows}
        kept = [
            {"command": earlier.get("command"), **row} if "command" not in row else row
            for row in earlier.get("rows", [])
            if row["name"] not in ran
        ]
    new_rows = [{"command": command, **row} for row in rows]
    order = list(PAIRINGS)
    merged = sorted(
        kept + new_rows,
        key=lambda row: order.index(row["name"]) if row["name"] in order else len(order),
    )
    path.write_text(json.dumps({"rows": merged}, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100, help="deals a pairing (two games each)")
    parser.add_argument("--only", choices=sorted(PAIRINGS), action="append")
    parser.add_argument("--processes", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--tally", action="store_true", help="play nothing: report what the results files hold"
    )
    parser.add_argument(
        "--sprt",
        nargs=2,
        type=float,
        metavar=("ELO0", "ELO1"),
        help="stop a pairing on the GSPRT's decision (Elo within a deal; --deals the cap)",
    )
    args = parser.parse_args()
    if args.sprt:
        try:
            check_sprt(*args.sprt)
        except SpecError as error:
            parser.error(str(error))
    sprt = (*args.sprt, 0.05, 0.05) if args.sprt else None
    out = HERE / "ladder"
    out.mkdir(exist_ok=True)
    rows = []
    for name in args.only or DEFAULT_RUN:
        game, bot_a, bot_b, *offset = PAIRINGS[name]
        seed = args.seed + (offset[0] if offset else 0)
        start = time.time()
        results = out / f"{name}.jsonl"
        if args.tally:
            if not results.exists():
                continue
            report = finished_match(
                game, bot_a, bot_b, 2 * args.deals, seed, str(results), sprt=sprt
            )
        else:
            report = play_match(
                game,
                bot_a,
                bot_b,
                games=2 * args.deals,
                seed=seed,
                processes=args.processes,
                results=str(results),
                resume=True,
                sprt=sprt,
            )
        report.write_json(str(out / f"{name}.json"))
        rows.append({"name": name, **report.summary(), "seconds": round(time.time() - start)})
        print(report.text(), flush=True)
    # The command as typed, so every option (seed, processes) reruns as it ran.
    command = "python bench/ladder.py " + shlex.join(sys.argv[1:])
    save_rows(HERE / "ladder-results.json", rows, command)
    print(
        "\n| pairing | game | deals | pentanomial | score | paired 95% interval | Elo [95%] "
        "| Elo within a deal [95%] | SPRT |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        low, high = r["paired_interval95"]
        elo_low, elo_high = r["pair_elo_interval95"]
        fit = r["deal_fit"]
        within_low, within_high = fit["elo_interval95"]
        print(
            f"| {r['name']} | {r['game']} | {sum(r['pentanomial'])} | {r['pentanomial']} "
            f"| {r['score']:.1%} | {low:.1%} – {high:.1%} "
            f"| {r['pair_elo']:+.0f} [{elo_low:+.0f}, {elo_high:+.0f}] "
            f"| {fit['elo']:+.0f} [{within_low:+.0f}, {within_high:+.0f}] "
            f"| {r['sprt'] or '–'} |"
        )


if __name__ == "__main__":
    try:
        main()
    except XenophonError as error:  # e.g. a results file of other options: one line
        raise SystemExit(f"ladder: {error}") from None
