"""`xenophon analyse`, `suggest` and `review`: the AI's view of a recorded game,
always from one seat's information only."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from xenophon.cli.common import (
    UsageError,
    add_force_argument,
    add_workers_argument,
    percent,
    real_number,
    whole_number,
)
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.files import check_output, write_atomic
from xenophon.kernel.game import State, plural
from xenophon.kernel.naming import MoveNames
from xenophon.play.explain import (
    DEFAULT_WORLDS,
    MAX_WORLDS,
    MIN_HURT,
    Explanation,
    explain_search,
    named_result,
)
from xenophon.play.records import Record, load_record, make_game_for, names_before, replay
from xenophon.play.review import (
    MISTAKE_THRESHOLD,
    PLOT_FORMATS,
    REVIEW_ITERATIONS,
    ReviewPoint,
    decisions_of,
    review_picture,
    review_points,
    review_seat,
)
from xenophon.search.belief import world_draw
from xenophon.search.bots import (
    MAX_ITERATIONS,
    MAX_SECONDS,
    MAX_TOP,
    ISMCTSBot,
    SearchResult,
    result_dict,
)
from xenophon.search.world_sampling import SAMPLERS

SPARK = "▁▂▃▄▅▆▇█"
COLUMNS = (
    "visits: the search's iterations through the move; win: its win probability "
    "for the seat; low: the 95% lower bound of win (Wilson, from the visits: few "
    "visits, a low bound); then: the line the search expects"
)


def add_budget_arguments(parser: argparse.ArgumentParser, iterations: int) -> None:
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--time",
        type=real_number(0, MAX_SECONDS, above=True),
        metavar="S",
        help=f"seconds of search per position (above 0, at most {MAX_SECONDS:g})",
    )
    budget.add_argument(
        "--iterations",
        type=whole_number(1, MAX_ITERATIONS),
        metavar="N",
        help=f"search iterations per position (1 to {MAX_ITERATIONS:,}; default {iterations:,})",
    )
    add_workers_argument(parser)
    parser.add_argument("--seed", type=int, default=0, help="search seed (default 0)")


def add_position_arguments(parser: Any) -> None:
    """The record and the position in it, as choose_position reads them
    (analyse, suggest and solve)."""
    parser.add_argument("record", help="a game record (.jsonl)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--turn", type=whole_number(1), metavar="N", help="the seat's first decision in turn N"
    )
    where.add_argument(
        "--step",
        type=whole_number(1),
        metavar="N",
        help="the seat's Nth decision with a choice, any in a turn (as `review` numbers them)",
    )
    where.add_argument(
        "--last",
        action="store_true",
        help="the end of the record: its last position when the seat is to move there, "
        "else the seat's last decision (the default)",
    )
    parser.add_argument(
        "--as",
        dest="seat",
        type=int,
        choices=(0, 1),
        help="the seat whose information is used (default: the record's seat when it is "
        "redacted, a saved game's human, else the player to move at its end)",
    )


def add_parsers(commands: Any) -> None:
    for name, helptext in (
        ("analyse", "ranked moves for one position of a record"),
        ("suggest", "the best move for one position of a record"),
    ):
        parser = commands.add_parser(
            name,
            help=helptext,
            description=helptext.capitalize() + ", from one seat's information only.",
        )
        add_position_arguments(parser)
        parser.add_argument(
            "--top",
            type=whole_number(1, MAX_TOP),
            default=5 if name == "analyse" else 1,
            metavar="K",
            help=f"how many moves to show (1 to {MAX_TOP})",
        )
        parser.add_argument("--json", action="store_true", help="JSON output")
        parser.add_argument(
            "--worlds",
            type=whole_number(0, MAX_WORLDS),
            default=DEFAULT_WORLDS,
            metavar="W",
            help="worlds drawn from the seat's information in which the top "
            f"moves are searched again, to say why (0 to {MAX_WORLDS:,}; "
            f"0: no explanation; default {DEFAULT_WORLDS})",
        )
        parser.add_argument(
            "--sampler",
            choices=SAMPLERS,
            default="uniform",
            help="how the search and the explanation draw worlds from the "
            "seat's information: uniform (the default) or policy (weighted "
            "by what the opponent's recent decisions reveal; "
            "docs/search.md)",
        )
        add_budget_arguments(parser, 5000)
        parser.set_defaults(run=run_analyse, short=name == "suggest")
    parser = commands.add_parser(
        "review",
        help="evaluate every decision of one seat",
        description="Evaluate every decision of one seat in a record, "
        "mark mistakes and draw the win-probability curve.",
    )
    parser.add_argument("record", help="a game record (.jsonl)")
    parser.add_argument(
        "--as",
        dest="seat",
        type=int,
        choices=(0, 1),
        help="the seat to review (default: as for `suggest`, the record's seat when it is "
        "redacted, a saved game's human, else the player to move at its end)",
    )
    parser.add_argument(
        "--threshold",
        type=real_number(0, 1),
        default=MISTAKE_THRESHOLD,
        help="a drop in win probability above this is a mistake "
        f"(0 to 1; default {MISTAKE_THRESHOLD:.2f})",
    )
    for image_format in PLOT_FORMATS:
        parser.add_argument(
            f"--{image_format}",
            metavar="FILE",
            help=f"also write the review as a {image_format.upper()} picture: "
            "the win-probability curve by turn with the mistakes marked, "
            "and the table of mistakes (checked before the review starts)",
        )
    add_force_argument(parser)
    parser.add_argument("--json", action="store_true", help="JSON output")
    add_budget_arguments(parser, REVIEW_ITERATIONS)
    parser.set_defaults(run=run_review)


def searcher(args: argparse.Namespace, default_iterations: int) -> ISMCTSBot:
    """The search of --time or --iterations (their ranges checked by the parser)."""
    iterations = None if args.time is not None else (args.iterations or default_iterations)
    return ISMCTSBot(
        iterations=iterations,
        time_limit=args.time,
        workers=args.workers,
        seed=args.seed,
        sampler=getattr(args, "sampler", "uniform"),
    )


def choose_position(record: Record, args: argparse.Namespace) -> tuple[State, int, str, MoveNames]:
    """The position to analyse, the seat, a description of where it is, and
    the names of the pieces there (the notation's: xenophon.kernel.naming)."""
    game = make_game_for(record)
    final, before = replay(record, game)
    index, seat, where = _position(record, args, final, before)
    states = before + [final]
    return states[index], seat, where, names_before(record, game.name, states[: index + 1])[-1]


def _position(
    record: Record, args: argparse.Namespace, final: State, before: list[State]
) -> tuple[int, int, str]:
    """The index of the position (in `before`, then the final state), the
    seat and where it is."""
    seat = record_seat(record, final, args.seat, "analysed")
    if args.turn is None and args.step is None and not final.is_terminal():
        if final.current_player == seat:
            return len(before), seat, "the current position"
    indexes = decisions_of(record, before, seat)
    if args.step is not None:
        if args.step > len(indexes):
            raise UsageError(
                f"seat {seat} has {plural(len(indexes), 'decision')} with a choice in this "
                f"record; --step is 1 to {len(indexes)}"
            )
        index = indexes[args.step - 1]
        turn = before[index].to_dict()["turn"]
        return index, seat, f"step {args.step} (turn {turn}, before line {index + 2})"
    if args.turn is not None:
        indexes = [i for i in indexes if before[i].to_dict()["turn"] == args.turn]
        if not indexes:
            raise UsageError(f"seat {seat} has no decision in turn {args.turn} of this record")
        return indexes[0], seat, f"turn {args.turn}, before line {indexes[0] + 2}"
    if not indexes:
        raise UsageError(f"seat {seat} has no decision in this record")
    return indexes[-1], seat, f"seat {seat}'s last decision (line {indexes[-1] + 2})"


def record_seat(record: Record, final: State, seat: int | None, verb: str) -> int:
    """The seat `analyse`, `suggest` and `review` take (review_seat: the one
    given, the record's when it is redacted, a saved game's human, else the
    player to move at its end), or one line saying what to give."""
    try:
        return review_seat(record, final, seat, verb)
    except XenophonError as error:
        raise UsageError(str(error)) from None


def result_table(result: SearchResult, top: int, state: State, names: MoveNames) -> str:
    shown = result.moves[:top]
    said = [names.said(state, stat.move.text) for stat in shown]
    width = max([len("move")] + [len(text) for text in said]) + 1
    lines = [f"{'move':<{width}} {'visits':>7} {'win':>5} {'low':>5}  then"]
    for stat, text in zip(shown, said):
        line = ", ".join(names.line(state, stat.principal_variation, result.player)[1:5])
        lines.append(
            f"{text:<{width}} {stat.visits:>7} "
            f"{percent(stat.win_probability):>5} {percent(stat.lower_bound):>5}  {line}"
        )
    lines.append(
        f"{result.iterations} iterations, {result.worlds} worlds sampled, "
        f"{result.nodes} nodes, {result.seconds:.2f} s"
    )
    return "\n".join(lines + result.notes)


def explanation_lines(explanation: Explanation, state: State, names: MoveNames) -> list[str]:
    lines = textwrap.wrap(
        f"why: each move searched again in {explanation.worlds} worlds drawn "
        f"from seat {explanation.seat}'s information "
        f"({explanation.iterations_per_world} iterations each, every card in "
        "the open)",
        width=80,
    )
    said = {reason.move: names.said(state, reason.move) for reason in explanation.moves}
    width = max(len(text) for text in said.values()) + 1
    for reason in explanation.moves:
        parts = [f"best in {percent(reason.best_share)} of worlds"]
        parts += [hurt.text() for hurt in reason.hurts] or [
            f"no hidden card moves it by {percent(MIN_HURT)} or more"
        ]
        lines.append(f"  {said[reason.move]:<{width}} " + "; ".join(parts))
    if explanation.hidden_cards:
        lines.append(
            f"opponent's hidden cards ({explanation.card_worlds} worlds drawn from "
            f"seat {explanation.seat}'s information):"
        )
        for place, cards in explanation.hidden_cards.items():
            shown = ", ".join(f"{card} {percent(p)}" for card, p in cards.items())
            lines.append(f"  {place}: {shown}")
    return lines


def run_analyse(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    state, seat, where, names = choose_position(record, args)
    result = searcher(args, 5000).analyse(state)
    explanation = explain_search(
        state,
        seat,
        result,
        args.worlds,
        args.seed,
        args.top,
        draw_world=world_draw(args.sampler, args.seed),
    )
    if args.json:
        extra = {"explanation": explanation.as_dict()} if explanation else {}
        found = named_result({**result_dict(result, args.top), **extra}, state, names, seat)
        print(json.dumps({"position": where, "seat": seat, **found}))
        return 0
    if args.short:
        best = result.best
        print(
            f"{names.said(state, best.move.text)}   (win {percent(best.win_probability)}, "
            f"{result.iterations} iterations)"
        )
        if explanation:
            reason = explanation.moves[0]
            print(
                "  "
                + "; ".join(
                    [
                        f"best in {percent(reason.best_share)} of "
                        f"{explanation.worlds} worlds drawn from seat {seat}'s "
                        "information"
                    ]
                    + [hurt.text() for hurt in reason.hurts]
                )
            )
        return 0
    print(f"{Path(args.record).name}: {where}, seat {seat} to move")
    print(names.board(state, seat))
    print(result_table(result, args.top, state, names))
    print(textwrap.fill(COLUMNS, width=80))
    if explanation:
        print("\n".join(explanation_lines(explanation, state, names)))
    return 0


def sparkline(values: list[float], width: int = 60) -> str:
    """The values as block characters, averaged into at most `width` columns."""
    return "".join(SPARK[min(len(SPARK) - 1, int(v * len(SPARK)))] for v in columns(values, width))


def columns(values: list[Any], width: int) -> list[Any]:
    """At most `width` columns of `values`: each the mean of its share
    (numbers), or its first value (anything else)."""
    if len(values) <= width:
        return values
    buckets = [
        values[i * len(values) // width : (i + 1) * len(values) // width] for i in range(width)
    ]
    if all(isinstance(v, float) for v in values):
        return [sum(b) / len(b) for b in buckets]
    return [b[0] for b in buckets]


def curve_lines(points: list[ReviewPoint], width: int = 60) -> list[str]:
    """The terminal's curve with its axes: the scale of the blocks, the curve,
    and below it the turns (each labelled where it begins, when it fits)."""
    turns = columns([point.turn for point in points], width)
    axis = ""
    for column, turn in enumerate(turns):
        starts = column == 0 or turns[column - 1] != turn
        if starts and len(axis) <= column and (not axis or column > len(axis)):
            axis += " " * (column - len(axis)) + str(turn)
    return [
        f"win probability before each decision ({SPARK[0]} 0% to {SPARK[-1]} 100%, "
        f"{SPARK[3]}{SPARK[4]} around 50%), by turn:",
        "  " + sparkline([point.win for point in points], width),
        "  " + axis,
    ]


def run_review(args: argparse.Namespace) -> int:
    pictures = {fmt: getattr(args, fmt) for fmt in PLOT_FORMATS if getattr(args, fmt)}
    if len(set(pictures.values())) < len(pictures):
        raise UsageError("--svg and --png name the same file")
    for path in pictures.values():
        check_output(path, force=args.force, inputs=[args.record], what="picture")
    record = load_record(args.record)
    game = make_game_for(record)
    final, before = replay(record, game)
    args.seat = record_seat(record, final, args.seat, "reviewed")
    bot = searcher(args, REVIEW_ITERATIONS)
    indexes = decisions_of(record, before, args.seat)
    progress = None
    if sys.stderr.isatty() and not args.json:
        from tqdm import tqdm

        progress = tqdm(total=len(indexes), desc="review", unit="move")
    curve: list[float] = []
    mistakes: list[dict[str, Any]] = []
    points: list[ReviewPoint] = []
    for step, point in enumerate(review_points(record, before, args.seat, bot, args.threshold)):
        points.append(point)
        curve.append(point.win)
        if point.mistake:
            mistakes.append(
                {
                    "step": step + 1,
                    "line": point.index + 2,
                    "turn": point.turn,
                    "played": point.played,
                    "played_win": round(point.played_win, 3),
                    "better": point.better,
                    "better_win": round(point.win, 3),
                    "margin": round(point.margin, 3),
                    "visits": min(point.played_visits, point.better_visits),
                }
            )
        if progress:
            progress.update(1)
    if progress:
        progress.close()
    title = (
        f"{game.name}: seat {args.seat}'s decisions in {Path(args.record).name} "
        f"({plural(len(indexes), 'decision')}, {plural(len(mistakes), 'mistake')})"
    )
    for image_format, path in pictures.items():
        write_atomic(path, review_picture(points, title, image_format))
    budget = f"{args.time:g} s" if args.time else plural(bot.iterations, "iteration")
    if args.json:
        print(
            json.dumps(
                {
                    "seat": args.seat,
                    "decisions": len(indexes),
                    "mistakes": mistakes,
                    "curve": [round(v, 3) for v in curve],
                }
            )
        )
        return 0
    print(
        f"seat {args.seat}: {plural(len(indexes), 'decision')} with a choice, "
        f"{plural(len(mistakes), 'mistake')} (win probability drop above "
        f"{percent(args.threshold)} plus its 95% interval; the move played and the "
        f"better one each searched with {budget})"
    )
    for m in mistakes:
        print(
            f"  step {m['step']}, line {m['line']} (turn {m['turn']}): played {m['played']} "
            f"({percent(m['played_win'])}), better: {m['better']} ({percent(m['better_win'])}), "
            f"drop {percent(m['better_win'] - m['played_win'])} ± {percent(m['margin'])}"
        )
    print("\n".join(curve_lines(points)))
    for path in pictures.values():
        print(f"review picture written to {path}")
    return 0
