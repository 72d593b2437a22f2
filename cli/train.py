"""`xenophon train`: the learning loop, generation after generation (log,
train, gate), resumable at every step (xenophon.lab.learnloop; docs/learning.md)."""

from __future__ import annotations

import argparse
from typing import Any

from xenophon.cli.common import (
    add_cluster_arguments,
    parse_sprt,
    real_number,
    whole_number,
)
from xenophon.kernel.registry import GAMES
from xenophon.lab.learnloop import (
    LEARNED,
    GateSettings,
    LogSettings,
    LoopError,
    LoopSettings,
    TrainSettings,
    parse_blends,
    run_loop,
)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "train",
        help="the learning loop: log self-play, train a network, gate it; N generations",
        description="Run (or resume: the same command goes on where it stopped) the "
        "learning loop in FOLDER: each generation logs self-play games with its "
        "parent's bot, trains a network on them and gates it against the parent "
        "(a GSPRT within a deal); a kept network is the next parent. Stops after "
        "--patience generations in a row are not kept.",
    )
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--folder", required=True, help="the loop's folder (made if missing)")
    parser.add_argument("--generations", type=whole_number(1, 1000), default=1)
    parser.add_argument(
        "--parent",
        default=LEARNED,
        help="the first generation's parent: 'learned' (today's evaluation) or a network file",
    )
    parser.add_argument(
        "--window",
        type=whole_number(1, 100),
        default=1,
        help="train each generation on its log and the logs of the generations before it, "
        "this many in all (default 1: its own)",
    )
    parser.add_argument("--patience", type=whole_number(1, 100), default=2)
    add_log_arguments(parser.add_argument_group("logging"))
    add_train_arguments(parser.add_argument_group("training"))
    add_gate_arguments(parser.add_argument_group("gate"))
    add_cluster_arguments(parser)
    parser.set_defaults(run=run)


def add_log_arguments(group: Any) -> None:
    group.add_argument("--games", type=whole_number(1, 10**7), default=1000)
    group.add_argument("--first-seed", type=int, default=1)
    group.add_argument("--bot", default=None, help="the logging bot (default: the parent's)")
    group.add_argument("--deep-bot", default="ismcts:iterations=8000")
    group.add_argument("--deep-share", type=real_number(0, 1), default=0.05)
    group.add_argument("--explore", type=whole_number(0, 1000), default=10)
    group.add_argument("--leaves", type=whole_number(0, 64), default=4)


def add_train_arguments(group: Any) -> None:
    group.add_argument("--hidden", type=whole_number(1, 4096), default=32)
    group.add_argument("--epochs", type=whole_number(1, 1000), default=3)
    group.add_argument("--rate", type=real_number(1e-7, 1), default=1e-3)
    group.add_argument(
        "--blend",
        type=blends,
        default=(0.0, 0.5, 1.0),
        help="the value target's share of the search's value beside the result; several "
        "(default 0,0.5,1) train one network each, the best on held-out games kept",
    )
    group.add_argument("--leaf-weight", type=real_number(0, 1000), default=8.0)
    group.add_argument("--train-seed", type=int, default=1)
    group.add_argument("--max-games", type=whole_number(1), default=None)


def blends(text: str) -> tuple[float, ...]:
    try:
        return parse_blends(text)
    except LoopError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_gate_arguments(group: Any) -> None:
    group.add_argument("--gate-games", type=whole_number(2, 100_000), default=400)
    group.add_argument("--gate-seed", type=int, default=1, help="the gate's first deal")
    group.add_argument("--sprt", type=parse_sprt, default=(0.0, 50.0))
    group.add_argument(
        "--gate-options",
        default="",
        help="search options of both gate bots (default none: equal iterations)",
    )
    group.add_argument("--book", default=None, help="the gate's deal book")


def settings_from(args: argparse.Namespace) -> LoopSettings:
    return LoopSettings(
        game=args.game,
        folder=args.folder,
        generations=args.generations,
        parent=args.parent,
        window=args.window,
        patience=args.patience,
        log=LogSettings(
            games=args.games,
            first_seed=args.first_seed,
            bot=args.bot,
            deep_bot=args.deep_bot,
            deep_share=args.deep_share,
            explore=args.explore,
            leaves=args.leaves,
        ),
        train=TrainSettings(
            hidden=args.hidden,
            epochs=args.epochs,
            rate=args.rate,
            blends=args.blend,
            leaf_weight=args.leaf_weight,
            seed=args.train_seed,
            max_games=args.max_games,
        ),
        gate=GateSettings(
            games=args.gate_games,
            first_deal=args.gate_seed,
            sprt=args.sprt,
            options=args.gate_options,
            book=args.book,
        ),
        cluster=args.cluster,
        processes=args.processes,
    )


def run(args: argparse.Namespace) -> int:
    run_loop(settings_from(args))
    return 0
