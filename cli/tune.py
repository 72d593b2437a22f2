"""`xenophon tune`: self-play positions, a fit of the learned evaluation, its
weights file and report (xenophon.lab.tune; docs/evaluation.md)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
from typing import Any

from xenophon.cli.common import (
    UsageError,
    add_cluster_arguments,
    add_force_argument,
    add_results_arguments,
    backend_from,
    check_resume,
    game_spec_help,
    real_number,
    whole_number,
)
from xenophon.kernel.errors import shown
from xenophon.kernel.evaluation import MAX_HIDDEN_UNITS, write_weights
from xenophon.kernel.files import check_output, same_file, write_atomic
from xenophon.kernel.registry import SpecError, game_from_texts, parse_spec, spec_files
from xenophon.lab.jobs import RunError, run_jobs
from xenophon.lab.tune import (
    DEFAULT_HIDDEN,
    MODELS,
    SCALINGS,
    earlier_games,
    fit,
    load_positions,
    positions_jobs,
    report_text,
    timed,
)
from xenophon.play.players import make_bot

MAX_GAMES = 1_000_000
MAX_POSITIONS = 1000
DEFAULT_BOT = "ismcts:iterations=200"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "tune",
        help="fit the learned evaluation to self-play games",
        description="Play self-play games (the search against itself with some random "
        "moves), label their positions with the final result, fit the learned "
        "evaluation's weights (logistic regression, tapered by phase, or that "
        "and a network's hidden layer) on all but a held-out set of games, and "
        "write the weights file and a report on the held-out positions: the new "
        "evaluation, the hand-set one at its best scale, and a constant (and, for "
        "a network, the linear fit).",
    )
    parser.add_argument("game", help=game_spec_help())
    parser.add_argument(
        "--games",
        type=whole_number(2, MAX_GAMES),
        default=2000,
        help="self-play games (default 2000)",
    )
    parser.add_argument(
        "--bot",
        default=DEFAULT_BOT,
        help=f"the bot spec that plays both seats (default {DEFAULT_BOT}; "
        "'eval=learned,weights=FILE' plays with other weights: the next "
        "generation)",
    )
    parser.add_argument(
        "--explore",
        type=real_number(0, 1),
        default=0.1,
        help="chance of a uniformly random move instead of the bot's (default 0.1)",
    )
    parser.add_argument(
        "--positions",
        type=whole_number(1, MAX_POSITIONS),
        default=12,
        help="positions kept per game, drawn uniformly among its decisions (default 12)",
    )
    parser.add_argument(
        "--add-games",
        metavar="FILE",
        action="append",
        default=[],
        help="the results file of an earlier 'xenophon tune' of this game "
        "(an earlier generation): its games join the fit, held out in "
        "the same share (repeatable)",
    )
    parser.add_argument(
        "--held-out",
        type=real_number(0.05, 0.5),
        default=0.2,
        help="share of the games held out of the fit (default 0.2)",
    )
    parser.add_argument(
        "--blend",
        type=real_number(0, 1),
        default=0.0,
        help="weight of the search's root value in the label, the rest the "
        "final result (default 0)",
    )
    parser.add_argument(
        "--scaling",
        choices=SCALINGS,
        default=SCALINGS[0],
        help="how features are scaled for the L2 penalty: 'feature' (one "
        "scale for a feature's opening and ending weights, the default) "
        "or 'column' (each alone, as generation 0 was fitted)",
    )
    parser.add_argument(
        "--model",
        choices=MODELS,
        default=MODELS[0],
        help="'linear' (the default) or 'mlp': the linear fit and a hidden "
        "layer of --hidden units, evaluated in C (a weights file of "
        "version 2)",
    )
    parser.add_argument(
        "--hidden",
        type=whole_number(1, MAX_HIDDEN_UNITS),
        default=None,
        help=f"hidden units of the network (--model mlp; default {DEFAULT_HIDDEN})",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    parser.add_argument(
        "--out",
        metavar="FILE",
        required=True,
        help="the weights file to write (src/data/GAME/weights.json is the one the project ships)",
    )
    parser.add_argument("--report", metavar="FILE", help="also write the report as JSON")
    add_cluster_arguments(parser)
    add_results_arguments(parser)
    add_force_argument(parser)
    parser.set_defaults(run=run)


def _config(args: argparse.Namespace, name: str, options: dict[str, str]) -> dict[str, Any]:
    """What the positions depend on (the results file's header)."""
    return {
        "game": name,
        "options": options,
        "bot": args.bot,
        "explore": args.explore,
        "positions": args.positions,
        "seed": args.seed,
    }


def _command(args: argparse.Namespace) -> str:
    """The command that makes these weights, every setting written out."""
    words = [
        "xenophon",
        "tune",
        args.game,
        "--games",
        str(args.games),
        "--bot",
        args.bot,
        "--explore",
        f"{args.explore:g}",
        "--positions",
        str(args.positions),
        "--held-out",
        f"{args.held_out:g}",
        "--blend",
        f"{args.blend:g}",
        "--scaling",
        args.scaling,
    ]
    if args.model == "mlp":
        words += ["--model", args.model, "--hidden", str(args.hidden)]
    words += ["--seed", str(args.seed), "--out", str(args.out)]
    for path in args.add_games:
        words += ["--add-games", str(path)]
    return " ".join(shlex.quote(word) for word in words)


def _check_model(args: argparse.Namespace) -> None:
    """--hidden belongs to --model mlp (its default there: DEFAULT_HIDDEN)."""
    if args.model != "mlp" and args.hidden is not None:
        raise UsageError("--hidden sets the network's size: it needs --model mlp")
    if args.model == "mlp" and args.hidden is None:
        args.hidden = DEFAULT_HIDDEN


def run(args: argparse.Namespace) -> int:
    check_resume(args)
    _check_model(args)
    name, options = parse_spec(args.game, "game")
    game = game_from_texts(name, options, seed=args.seed)
    if not hasattr(make_bot(args.bot, 0), "analyse"):
        raise SpecError(f"--bot {shown(args.bot)}: tune needs a searching bot (its root values)")
    inputs = [*spec_files(args.game), *([args.results] if args.results else []), *args.add_games]
    if args.results and any(same_file(args.results, path) for path in args.add_games):
        raise RunError(
            f"{args.results}: is this run's results file; --add-games takes "
            "the files of earlier runs"
        )
    added = {str(path): earlier_games(path, name, options) for path in args.add_games}
    check_output(args.out, force=args.force, inputs=inputs, what="weights file")
    if args.report:
        check_output(args.report, force=args.force, inputs=inputs, what="report")
    seeds = list(range(args.seed, args.seed + args.games))
    jobs = positions_jobs(name, options, args.bot, args.explore, args.positions, seeds)
    played, seconds = timed(
        run_jobs,
        jobs,
        args.results,
        command="tune",
        config=_config(args, name, options),
        backend=backend_from(args),
        resume=args.resume,
        force=args.force,
        unit="game",
    )
    games = [played.results[job.key][0] for job in jobs]
    games += [earlier for file_games in added.values() for earlier in file_games]
    data = load_positions(game, games)
    result = fit(
        game,
        data,
        args.held_out,
        args.seed,
        args.blend,
        args.scaling,
        args.model,
        args.hidden or 0,
        progress=sys.stderr.isatty(),
    )
    made = {
        "command": _command(args),
        **_config(args, name, options),
        "games": args.games,
        "held_out": args.held_out,
        "blend": args.blend,
        "scaling": args.scaling,
    }
    if args.model == "mlp":
        made.update(model=args.model, hidden=args.hidden)
    made["report"] = result.report
    if added:
        made["added_games"] = {path: len(file_games) for path, file_games in added.items()}
    weights = dataclasses.replace(result.weights, made=made)
    write_weights(args.out, weights, force=True)
    print(report_text(name, result.report))
    print(
        f"{len(games)} games ({played.played} played now, {seconds:.0f} s); "
        f"weights written to {args.out}"
    )
    if args.report:
        write_atomic(args.report, json.dumps(result.report, indent=1) + "\n")
        print(f"report written to {args.report}")
    return 0
