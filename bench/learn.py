"""The learning loop, one generation (docs/learning.md): log self-play, then
train the sparse-input network on the log, then gate it against its parent.

    python bench/learn.py generation hero --folder bench/learn/hero-g3 --games 3110 \\
        --first-seed 100001 --leaves 4 --workers 2 --out bench/learn/hero-g3-network.npz \\
        --blend 0,0.5,1 --leaf-weight 8 --epochs 3 --book bench/books/hero-i500.json

runs the three steps below as one command, each resumed where an earlier run
of it stopped; it exits 0 when the gate (a GSPRT within a deal, 0 against
+30 Elo, at equal iterations) keeps the network, 1 when the loop stops.
The steps alone:

    python bench/learn.py log hero --folder bench/learn/hero-g1 --games 2000 --workers 2
    python bench/learn.py train hero --folder bench/learn/hero-g1 \\
        --out bench/learn/hero-g1-network.npz

`log` plays `--games` games (seeds `--first-seed`, ...), one job each
(xenophon.lab.jobs: all cores with `--workers`, a progress bar on a terminal
only): each writes its shard `FOLDER/shard-SEED.npz` and its row in
`FOLDER/index.jsonl`. `--resume` plays only the games missing from the
index, so a larger `--games` extends a log. `train` fits the network on
every shard of the index (`xenophon.lab.network`) and writes the network
file and its report (OUT with `.json`); the match then is

    xenophon match hero 'ismcts:eval=net,weights=OUT' ismcts --sprt 0,30 ...

`log --leaves N` also logs up to N random leaves of each searched decision
(its root moves applied), which `train --leaf-weight W` trains on; `score`
gives each network's and the learned evaluation's figures on a log (root
log-loss, spread, the split of the correction, leaf log-loss and sibling
concordance: xenophon.lab.network.log_report).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

from xenophon.cli.common import parse_sprt
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.evaluation import (
    read_network,
    read_weights,
    shipped_weights_file,
    write_network,
)
from xenophon.kernel.files import make_folders, write_atomic
from xenophon.kernel.registry import game_from_texts
from xenophon.lab.dealbook import read_book
from xenophon.lab.jobs import make_backend, read_results, results_config, results_header, run_jobs
from xenophon.lab.learnlog import COMMAND, INDEX_NAME, log_jobs, read_log
from xenophon.lab.network import log_report, new_params, to_network, train
from xenophon.lab.tournament import play_match


def log_config(args: argparse.Namespace) -> dict:
    return {
        "game": args.game,
        "options": {},
        "bot": args.bot,
        "deep_bot": args.deep_bot,
        "explore": args.explore,
        "deep_share": args.deep_share,
        "folder": str(Path(args.folder).resolve()),
        # only when asked: the configuration of a log without leaves is unchanged
        **({"leaves": args.leaves} if args.leaves else {}),
    }


def run_log(args: argparse.Namespace) -> None:
    if args.leaves < 0:
        raise XenophonError(f"--leaves must be 0 or more, not {args.leaves}")
    make_folders(args.folder)
    config = log_config(args)
    seeds = list(range(args.first_seed, args.first_seed + args.games))
    started = time.monotonic()
    run = run_jobs(
        log_jobs(config, seeds),
        Path(args.folder) / INDEX_NAME,
        command=COMMAND,
        config={k: v for k, v in config.items() if k != "folder"},
        backend=make_backend(None, args.workers),
        resume=args.resume,
        unit="game",
    )
    seconds = time.monotonic() - started
    played = [rows[0] for key, rows in run.results.items()]
    positions = sum(row["positions"] for row in played)
    print(
        f"{len(played)} games, {positions:,} positions "
        f"({sum(row['deep'] for row in played):,} deep-labelled) in {args.folder}; "
        f"this run played {run.played} games in {seconds:.0f} s"
    )


def index_rows(folder: str) -> list[dict]:
    path = Path(folder) / INDEX_NAME
    if not path.is_file():
        raise XenophonError(f"{path}: no log index (run 'log' first)")
    done = read_results(path, results_header(COMMAND, results_config(path, COMMAND)), None)
    return [rows[0] for rows in done.values()]


def parse_blends(text: str) -> list[float]:
    try:
        blends = [float(part) for part in text.split(",")]
    except ValueError:
        raise XenophonError(
            f"--blend takes numbers from 0 to 1, comma-separated: {text!r}"
        ) from None
    if not blends or not all(0 <= blend <= 1 for blend in blends):
        raise XenophonError(f"--blend takes numbers from 0 to 1, comma-separated: {text!r}")
    return blends


def train_command(args: argparse.Namespace) -> str:
    """The `train` command that makes args.out (recorded in the file)."""
    options = [
        ("--folder", args.folder),
        ("--out", args.out),
        ("--max-games", args.max_games),
        ("--hidden", args.hidden),
        ("--epochs", args.epochs),
        ("--rate", args.rate),
        ("--blend", args.blend),
        ("--leaf-weight", args.leaf_weight),
        ("--seed", args.seed),
    ]
    words = [f"{flag} {shlex.quote(str(value))}" for flag, value in options if value is not None]
    return f"python bench/learn.py train {shlex.quote(args.game)} " + " ".join(words)


def train_in_a_child(args: argparse.Namespace) -> None:
    """The `train` step in a process of its own: JAX starts threads, and the
    gate's pool forks afterwards (a fork of a threaded process can deadlock)."""
    arguments = shlex.split(train_command(args))[3:]  # after "python bench/learn.py train"
    done = subprocess.run([sys.executable, __file__, "train", *arguments], check=False)
    if done.returncode:
        sys.exit(done.returncode)  # the child said why, in one line


def run_train(args: argparse.Namespace) -> None:
    """Trains the network once per --blend, keeps the one with the lowest
    held-out log-loss against the results (the blend chosen on held-out
    games), and writes it and its report."""
    blends = parse_blends(args.blend)
    rows = index_rows(args.folder)
    if args.max_games:
        rows = sorted(rows, key=lambda row: row["seed"])[: args.max_games]
    game = game_from_texts(args.game, {}, seed=1)
    linear = read_weights(shipped_weights_file(args.game), args.game)
    log = read_log(args.folder, rows)
    trained = {}
    for blend in blends:
        started = time.monotonic()
        params, report = train(
            log,
            linear,
            hidden=args.hidden,
            epochs=args.epochs,
            rate=args.rate,
            blend=blend,
            leaf_weight=args.leaf_weight,
            seed=args.seed,
            progress=sys.stderr.isatty(),
        )
        report["blend"] = blend
        report["seconds"] = round(time.monotonic() - started, 1)
        trained[blend] = (params, report)
        if len(blends) > 1:
            loss = report["held_out_log_loss"]["network"]
            print(f"blend {blend:g}: held-out log-loss {loss:.5f}", file=sys.stderr)
    chosen = min(blends, key=lambda blend: trained[blend][1]["held_out_log_loss"]["network"])
    params, report = trained[chosen]
    if len(blends) > 1:
        report["blends_tried"] = {
            f"{blend:g}": trained[blend][1]["held_out_log_loss"]["network"] for blend in blends
        }
    made = {
        "command": train_command(args),
        "report": {k: v for k, v in report.items() if k != "history"},
    }
    network = to_network(
        params,
        args.game,
        game.tables.net_input_names,
        game.tables.feature_names,
        linear.taper_turns,
        made,
    )
    write_network(args.out, network, force=args.force)
    write_atomic(Path(args.out).with_suffix(".json"), json.dumps(report, indent=1) + "\n")
    print(json.dumps(made["report"], indent=1))


def network_bot(network: str, options: str = "") -> str:
    """The bot of a network file ('learned': today's defaults), with more
    search options ("iterations=500,...") when given."""
    settings = [] if network == "learned" else ["eval=net", f"weights={network}"]
    settings += [options] if options else []
    return "ismcts" + (":" + ",".join(settings) if settings else "")


def run_generation(args: argparse.Namespace) -> None:
    """One generation of the loop: the log played or resumed with the
    parent's bot, the network trained (or the one this command trained
    before, reused), then its gate against the parent at equal iterations,
    a GSPRT within a deal; says whether it is kept. Exit status 0 when kept,
    1 when not: the loop stops there."""
    parse_blends(args.blend)  # bad input stops before any game
    if args.bot is None:
        args.bot = network_bot(args.parent)
    args.resume = True
    run_log(args)
    out = Path(args.out)
    if out.exists():
        made = read_network(args.out, args.game).meta.get("made", {})
        if made.get("command") != train_command(args):
            raise XenophonError(
                f"{args.out} exists and was not made by this generation's training "
                "(another file, or remove it)"
            )
        print(f"{args.out}: trained already by the same command, kept as it is")
    else:
        train_in_a_child(args)
    results = out.with_name(out.stem + "-gate.jsonl")
    report = play_match(
        args.game,
        network_bot(args.out, args.gate_options),
        network_bot(args.parent, args.gate_options),
        games=args.gate_games,
        seed=args.gate_seed,
        processes=args.workers,
        sprt=(*args.sprt, 0.05, 0.05),
        results=str(results),
        resume=results.exists(),
        book=read_book(args.book, args.game).deals if args.book else None,
    )
    print(report.text())
    kept = bool(report.sprt and report.sprt.startswith("H1"))
    verdict = {
        "network": args.out,
        "parent": args.parent,
        "gate": str(results),
        "decision": report.sprt or f"undecided at the cap of {args.gate_games} games",
        "kept": kept,
        "summary": report.summary(),
    }
    write_atomic(out.with_name(out.stem + "-generation.json"), json.dumps(verdict, indent=1) + "\n")
    if kept:
        print(f"kept: {args.out} is the next generation's parent (--parent {args.out})")
        return
    print(f"not kept ({verdict['decision']}): the loop stops here")
    sys.exit(1)


def run_score(args: argparse.Namespace) -> None:
    rows = sorted(index_rows(args.folder), key=lambda row: row["seed"])
    if args.max_games:
        rows = rows[: args.max_games]
    linear = read_weights(shipped_weights_file(args.game), args.game)
    log = read_log(args.folder, rows)
    models = {"learned": new_params(log["own"].shape[1], log["features"].shape[1], 1, 1, linear, 0)}
    for path in args.networks:
        arrays = read_network(path, args.game).arrays
        models[path] = {key: value.astype("float64") for key, value in arrays.items()}
    report = {"games": len(rows), **log_report(log, linear.taper_turns, models, "learned")}
    text = json.dumps(report, indent=1) + "\n"
    if args.out:
        write_atomic(args.out, text)
    print(text, end="")


def add_log_options(parser: argparse.ArgumentParser, bot_default: str | None) -> None:
    parser.add_argument("game")
    parser.add_argument("--folder", required=True)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument(
        "--bot", default=bot_default, help="the bot of both seats (today's defaults)"
    )
    parser.add_argument("--deep-bot", default="ismcts:iterations=8000")
    parser.add_argument("--deep-share", type=float, default=0.05)
    parser.add_argument(
        "--explore", type=int, default=10, help="decisions of each seat drawn by visits"
    )
    parser.add_argument(
        "--leaves",
        type=int,
        default=0,
        help="log up to N random leaves of each searched decision (its root moves applied)",
    )
    parser.add_argument("--workers", type=int, default=None)


def add_train_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True)
    parser.add_argument("--max-games", type=int, default=None, help="train on the first N games")
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--rate", type=float, default=1e-3)
    parser.add_argument(
        "--blend",
        default="0.5",
        help="the target's share of the search's value beside the result; several "
        "(0,0.5,1) train one network each and keep the best on the held-out games",
    )
    parser.add_argument(
        "--leaf-weight",
        type=float,
        default=0.0,
        help="weight of the leaves' loss (a log with --leaves) beside the roots'",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--force", action="store_true")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    log = sub.add_parser("log", help="log self-play games")
    add_log_options(log, "ismcts")
    log.add_argument("--resume", action="store_true")
    fit = sub.add_parser("train", help="train the network on a log")
    fit.add_argument("game")
    fit.add_argument("--folder", required=True)
    add_train_options(fit)
    generation = sub.add_parser(
        "generation", help="one generation: log (resumed), train, gate against the parent"
    )
    add_log_options(generation, None)
    add_train_options(generation)
    generation.add_argument(
        "--parent",
        default="learned",
        help="'learned' (today's defaults) or the network file of the kept generation",
    )
    generation.add_argument("--book", default=None, help="the gate's deal book")
    generation.add_argument("--gate-seed", type=int, default=1, help="the gate's first deal")
    generation.add_argument("--gate-games", type=int, default=400, help="the gate's cap")
    generation.add_argument("--sprt", type=parse_sprt, default=(0.0, 30.0))
    generation.add_argument(
        "--gate-options",
        default="",
        help="search options of both gate bots (default none: equal iterations, the defaults')",
    )
    score = sub.add_parser(
        "score", help="score networks and the learned evaluation on a log's roots and leaves"
    )
    score.add_argument("game")
    score.add_argument("--folder", required=True)
    score.add_argument("--networks", nargs="*", default=[])
    score.add_argument("--max-games", type=int, default=None, help="the first N games only")
    score.add_argument("--out", default=None, help="also write the report (JSON) here")
    args = parser.parse_args()
    steps = {"log": run_log, "train": run_train, "generation": run_generation, "score": run_score}
    steps[args.step](args)


if __name__ == "__main__":
    try:
        main()
    except XenophonError as error:
        sys.exit(f"learn: {error}")
    except KeyboardInterrupt:
        sys.exit(130)
