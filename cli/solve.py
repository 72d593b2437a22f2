"""`xenophon solve`: each legal move's exact win probability over the rest
of the turn (or through the opponent's reply), from one seat's information."""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xenophon.cli.analyse import add_position_arguments, choose_position
from xenophon.cli.common import percent, real_number, whole_number
from xenophon.play.records import load_record
from xenophon.search.solver import (
    DEFAULT_SECONDS,
    DEFAULT_WORLDS,
    MAX_WORLDS,
    Budget,
    MoveValue,
    SolveResult,
    solve,
)

#: the longest a solve may be given
MAX_SOLVE_SECONDS = 3600.0
#: positions a solve may visit: none but the time bound, unless --positions says
UNBOUNDED_POSITIONS = 10**15
NOT_SOLVED = "not reached"
COLUMNS = (
    "win: the seat's win probability within the horizon, its best play against "
    "the opponent's best, every chance outcome counted with its probability; "
    "exact: the end of the game decides it within the horizon; estimated: some "
    "positions at the horizon were scored by the evaluation; estimated at depth N: "
    "the budget ran out before the horizon, and the positions N plies ahead were "
    "scored by the evaluation"
)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "solve",
        help="exact win probabilities of the moves over the rest of the turn",
        description="Each legal move's win probability over the rest of the "
        "current turn (expectimax: the seat's best, every chance outcome with "
        "its probability), from one seat's information only.",
    )
    add_position_arguments(parser)
    parser.add_argument(
        "--through-reply",
        action="store_true",
        help="solve through the opponent's next turn too (the opponent minimising)",
    )
    parser.add_argument(
        "--worlds",
        type=whole_number(1, MAX_WORLDS),
        default=DEFAULT_WORLDS,
        metavar="N",
        help="worlds drawn from the seat's information to average over when "
        f"hidden cards reach the horizon (1 to {MAX_WORLDS}; default {DEFAULT_WORLDS})",
    )
    parser.add_argument(
        "--seconds",
        type=real_number(0, MAX_SOLVE_SECONDS, above=True),
        default=DEFAULT_SECONDS,
        metavar="S",
        help=f"time budget (above 0, at most {MAX_SOLVE_SECONDS:g}; default {DEFAULT_SECONDS:g})",
    )
    parser.add_argument(
        "--positions",
        type=whole_number(1, UNBOUNDED_POSITIONS),
        default=UNBOUNDED_POSITIONS,
        metavar="N",
        help="stop after visiting N positions too (default: only the time bound)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the worlds drawn (default 0)")
    parser.add_argument("--json", action="store_true", help="JSON output")
    parser.set_defaults(run=run_solve)


def value_text(value: MoveValue) -> str:
    if value.win is None:
        return NOT_SOLVED
    if value.depth is not None:
        return f"{percent(value.win):>6}  estimated at depth {value.depth}"
    return f"{percent(value.win):>6}  {'exact' if value.exact else 'estimated'}"


def summary_line(result: SolveResult) -> str:
    """What the solve spent and, if it stopped early, which bound stopped it
    and how far the moves got."""
    spent = f"{result.nodes:,} positions, {result.table_entries:,} stored, {result.seconds:.2f} s"
    if result.stopped_by is None:
        return spent + "; every move solved to the horizon"
    bound = "time bound (--seconds)" if result.stopped_by == "time" else "--positions bound"
    estimated = [value.depth for value in result.moves if value.depth is not None]
    unreached = sum(value.win is None for value in result.moves)
    parts = [f"stopped by the {bound}"]
    if estimated:
        low, high = min(estimated), max(estimated)
        plies = f"{low}" if low == high else f"{low}-{high}"
        parts.append(f"{len(estimated)} of {len(result.moves)} moves estimated {plies} plies ahead")
    if unreached:
        parts.append(f"{unreached} not reached")
    return f"{spent}; " + ", ".join(parts)


def worlds_text(result: SolveResult) -> str:
    if not result.hidden_matters:
        return "one world: no hidden card reaches the horizon of the moves solved"
    return (
        f"average over {result.worlds} worlds drawn from seat {result.seat}'s "
        "information (hidden cards reach the horizon)"
    )


def result_lines(result: SolveResult, said: Callable[[str], str]) -> list[str]:
    """The solved moves (each `said` in the game's names) and their values."""
    horizon = "through the opponent's reply" if result.through_reply else "the rest of the turn"
    texts = [said(value.move.text) for value in result.moves]
    width = max([len("move")] + [len(text) for text in texts]) + 1
    lines = [f"{'move':<{width}} {'win':>6}  over {horizon}"]
    lines += [f"{text:<{width}} {value_text(value)}" for text, value in zip(texts, result.moves)]
    lines.append(worlds_text(result))
    lines.append(summary_line(result))
    return lines


def result_dict(result: SolveResult, said: Callable[[str], str]) -> dict[str, Any]:
    return {
        "seat": result.seat,
        "through_reply": result.through_reply,
        "worlds": result.worlds,
        "hidden_matters": result.hidden_matters,
        "exhausted": result.exhausted,
        "stopped_by": result.stopped_by,
        "nodes": result.nodes,
        "seconds": round(result.seconds, 3),
        "moves": [
            {
                "move": said(value.move.text),
                "win": None if value.win is None else round(value.win, 6),
                "exact": value.exact,
                "depth": value.depth,
            }
            for value in result.moves
        ],
    }


def run_solve(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    state, seat, where, names = choose_position(record, args)
    result = solve(
        state,
        seat,
        through_reply=args.through_reply,
        worlds=args.worlds,
        budget=Budget(seconds=args.seconds, nodes=args.positions),
        seed=args.seed,
        estimate=True,
    )

    def said(text: str) -> str:
        return names.said(state, text)

    if args.json:
        print(json.dumps({"position": where, **result_dict(result, said)}))
        return 0
    print(f"{Path(args.record).name}: {where}, seat {seat} to move")
    print("\n".join(result_lines(result, said)))
    print(textwrap.fill(COLUMNS, width=80))
    return 0
