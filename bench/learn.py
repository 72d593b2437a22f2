"""The learning loop, one generation (docs/learning.md): log self-play, then
train the sparse-input network on the log.

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
import sys
import time
from pathlib import Path

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.evaluation import (
    read_network,
    read_weights,
    shipped_weights_file,
    write_network,
)
from xenophon.kernel.files import make_folders, write_atomic
from xenophon.kernel.registry import game_from_texts
from xenophon.lab.jobs import make_backend, read_results, results_config, results_header, run_jobs
from xenophon.lab.learnlog import COMMAND, INDEX_NAME, log_jobs, read_log
from xenophon.lab.network import log_report, new_params, to_network, train


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


def run_train(args: argparse.Namespace) -> None:
    rows = index_rows(args.folder)
    if args.max_games:
        rows = sorted(rows, key=lambda row: row["seed"])[: args.max_games]
    game = game_from_texts(args.game, {}, seed=1)
    linear = read_weights(shipped_weights_file(args.game), args.game)
    log = read_log(args.folder, rows)
    started = time.monotonic()
    params, report = train(
        log,
        linear,
        hidden=args.hidden,
        epochs=args.epochs,
        rate=args.rate,
        blend=args.blend,
        leaf_weight=args.leaf_weight,
        seed=args.seed,
        progress=sys.stderr.isatty(),
    )
    report["seconds"] = round(time.monotonic() - started, 1)
    made = {
        "command": "python bench/learn.py train " + " ".join(sys.argv[2:]),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    log = sub.add_parser("log", help="log self-play games")
    log.add_argument("game")
    log.add_argument("--folder", required=True)
    log.add_argument("--games", type=int, default=100)
    log.add_argument("--first-seed", type=int, default=1)
    log.add_argument("--bot", default="ismcts", help="the bot of both seats (today's defaults)")
    log.add_argument("--deep-bot", default="ismcts:iterations=8000")
    log.add_argument("--deep-share", type=float, default=0.05)
    log.add_argument(
        "--explore", type=int, default=10, help="decisions of each seat drawn by visits"
    )
    log.add_argument(
        "--leaves",
        type=int,
        default=0,
        help="log up to N random leaves of each searched decision (its root moves applied)",
    )
    log.add_argument("--workers", type=int, default=None)
    log.add_argument("--resume", action="store_true")
    fit = sub.add_parser("train", help="train the network on a log")
    fit.add_argument("game")
    fit.add_argument("--folder", required=True)
    fit.add_argument("--out", required=True)
    fit.add_argument("--max-games", type=int, default=None, help="train on the first N games")
    fit.add_argument("--hidden", type=int, default=32)
    fit.add_argument("--epochs", type=int, default=20)
    fit.add_argument("--rate", type=float, default=1e-3)
    fit.add_argument("--blend", type=float, default=0.5)
    fit.add_argument(
        "--leaf-weight",
        type=float,
        default=0.0,
        help="weight of the leaves' loss (a log with --leaves) beside the roots'",
    )
    fit.add_argument("--seed", type=int, default=1)
    fit.add_argument("--force", action="store_true")
    score = sub.add_parser(
        "score", help="score networks and the learned evaluation on a log's roots and leaves"
    )
    score.add_argument("game")
    score.add_argument("--folder", required=True)
    score.add_argument("--networks", nargs="*", default=[])
    score.add_argument("--max-games", type=int, default=None, help="the first N games only")
    score.add_argument("--out", default=None, help="also write the report (JSON) here")
    args = parser.parse_args()
    {"log": run_log, "train": run_train, "score": run_score}[args.step](args)


if __name__ == "__main__":
    try:
        main()
    except XenophonError as error:
        sys.exit(f"learn: {error}")
    except KeyboardInterrupt:
        sys.exit(130)
