"""`xenophon selfplay`, `replay` and `export`: writing, reading and redacting records."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from xenophon.cli.common import (
    UsageError,
    add_cluster_arguments,
    add_force_argument,
    add_game_arguments,
    add_results_arguments,
    backend_from,
    check_resume,
    game_from_arguments,
    whole_number,
)
from xenophon.kernel.files import check_output, check_output_folder, write_atomic
from xenophon.kernel.game import CHANCE
from xenophon.kernel.narration import narrator_for
from xenophon.kernel.registry import game_options_as_text
from xenophon.lab.jobs import Job, finished_jobs, run_jobs
from xenophon.lab.selfplay import selfplay_jobs
from xenophon.play.players import make_bot
from xenophon.play.records import (
    load_record,
    make_game_for,
    named,
    names_before,
    open_sealed,
    replay,
    rows_text,
    seat_view,
)
from xenophon.play.referee import secret_deal_seed


def add_parsers(commands: Any) -> None:
    parser = commands.add_parser(
        "selfplay",
        help="AI against AI, writing game records",
        description="Play bots against each other and write records "
        "(full records, with the seed of their chance).",
    )
    add_game_arguments(parser)
    parser.add_argument(
        "--bots",
        default="ismcts:iterations=1000;ismcts:iterations=1000",
        metavar="BOT0;BOT1",
        help="the two bots, separated by ';' (e.g. 'ismcts:time=1;greedy')",
    )
    parser.add_argument("--games", type=whole_number(1, 1_000_000), default=1)
    parser.add_argument("--out", default=".", metavar="DIR", help="folder for the records")
    add_cluster_arguments(parser)
    add_results_arguments(parser)
    add_force_argument(parser)
    parser.set_defaults(run=run_selfplay)

    parser = commands.add_parser(
        "replay",
        help="step through a recorded game",
        description="Print a recorded game move by move.",
    )
    parser.add_argument("record")
    parser.add_argument(
        "--as",
        dest="seat",
        type=int,
        choices=(0, 1),
        default=None,
        help="the game as this seat saw it: what it did not see is printed "
        "as hidden (default: everything in the record; the boards as "
        "seat 0 sees them, or the seat a redacted record is for)",
    )
    parser.add_argument("--boards", action="store_true", help="print the board after every move")
    parser.add_argument("--step", action="store_true", help="wait for Enter after every move")
    parser.set_defaults(run=run_replay)

    parser = commands.add_parser(
        "export",
        help="write a record as one seat saw it",
        description="Write the record as one seat saw it, in the "
        "seat-view notation (docs/records.md): what that "
        "seat could not see is written as what it saw of "
        "it ('opponent draws a card'), and the seed is "
        "removed. With --full, a saved game in progress "
        "is written whole, hidden cards included.",
    )
    parser.add_argument("record")
    form = parser.add_mutually_exclusive_group(required=True)
    form.add_argument("--as", dest="seat", type=int, choices=(0, 1))
    form.add_argument(
        "--full",
        action="store_true",
        help="unseal a saved game in progress: the whole record, everything "
        "hidden in plain text (spoils the game for its player)",
    )
    parser.add_argument("--out", required=True, metavar="FILE")
    add_force_argument(parser)
    parser.set_defaults(run=run_export)


def run_selfplay(args: argparse.Namespace) -> int:
    specs = args.bots.split(";")
    if len(specs) != 2:
        raise UsageError("--bots takes two bots separated by ';'")
    for spec in specs:
        make_bot(spec, 0)  # a bad bot fails before any game
    check_resume(args)
    if args.seed is None and args.resume:
        raise UsageError("--resume needs the --seed of the run it continues")
    base_seed = args.seed if args.seed is not None else secret_deal_seed()
    game = game_from_arguments(args, base_seed)
    options = {key: text for key, text in game_options_as_text(game).items()}
    jobs = selfplay_jobs(
        game.name, options, specs, [base_seed + number for number in range(args.games)]
    )
    config = {
        "game": game.name,
        "options": options,
        "bots": specs,
        "games": args.games,
        "seed": base_seed,
    }
    inputs = [
        path
        for path in (args.cards, *re.split(r"[+,]", args.decks or ""))
        if path and os.path.isfile(path)
    ]
    done = finished_jobs(args.results, "selfplay", config, jobs) if args.resume else {}
    names = {job.key: f"{game.name}-selfplay-{job.key}.jsonl" for job in jobs}
    paths = dict(
        zip(
            [k for k in names if k not in done],
            check_output_folder(
                args.out,
                [n for k, n in names.items() if k not in done],
                force=args.force,
                what="records",
            ),
        )
    )

    def save(job: Job, games: list[dict[str, Any]]) -> None:
        path = write_atomic(paths[job.key], rows_text(games[0]["record"]))
        forfeit = games[0].get("forfeit")
        lost = f" (seat {forfeit['seat']} forfeits: {forfeit['message']})" if forfeit else ""
        print(
            f"{path}: {len(games[0]['record'])} lines, returns {games[0]['returns']}{lost}",
            flush=True,
        )

    run_jobs(
        jobs,
        args.results,
        command="selfplay",
        config=config,
        backend=backend_from(args),
        resume=args.resume,
        force=args.force,
        inputs=inputs,
        unit="game",
        on_job=save,
    )
    return 0


def run_replay(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    game = make_game_for(record)
    if args.seat is not None and record.view not in (None, args.seat):
        raise UsageError(
            f"{args.record} was redacted for seat {record.view}; it shows only what that seat saw"
        )
    seat = args.seat if args.seat is not None else (record.view or 0)
    final, before = replay(record, game)
    # a full record shown as one seat saw it: its hidden lines are hidden here too
    shown = (
        seat_view(record, game, seat) if args.seat is not None and record.view is None else record
    )
    names = names_before(record, game.name, before + [final], seat)  # for the boards
    told = story(shown, before + [final], seat)  # what each line did, in the seat's words
    shown = named(shown, game)  # as a player writes the moves (pieces by the notation's names)
    for index, line in enumerate(shown.lines):
        who = "chance" if line["seat"] == "chance" else f"seat {line['seat']}"
        text = seen_text(line)
        print(f"{index + 1:>4}  {who:<7} {text}")
        for said in told[index]:
            print(f"{'':>14}{said}")
        if args.boards:
            after = before[index + 1] if index + 1 < len(before) else final
            print(names[index + 1].board(after, seat))
        if args.step and sys.stdin.isatty():
            input()
    if final.is_terminal():
        returns = final.returns()
        winner = 0 if returns[0] > 0 else 1
        print("result: " + ("draw" if returns[0] == 0 else f"seat {winner} wins"))
    return 0


def story(record: Any, states: list[Any], seat: int) -> list[list[str]]:
    """Each line's narration as `seat` saw it (xenophon.kernel.narration, the
    words of the terminal and the web): `states` are the states before each
    line and the last after it; the record is in the engine's notation."""
    narrator = narrator_for(states[0], seat)
    told = []
    for line, state, after in zip(record.lines, states, states[1:]):
        actor = CHANCE if line["seat"] == "chance" else line["seat"]
        text = line.get("move")
        told.append(narrator.events(state.view(seat), after.view(seat), actor, text))
    return told


def seen_text(line: dict[str, Any]) -> str:
    """A record line as its seat saw it: the move and the cards it revealed,
    or what was seen of a hidden action ("(hidden)" in a keyed record)."""
    if "move" in line:
        reveals = line.get("reveals")
        return line["move"] + (f"  (reveals {', '.join(reveals)})" if reveals else "")
    return line["hidden"] if isinstance(line["hidden"], str) else "(hidden)"


def run_export(args: argparse.Namespace) -> int:
    out = check_output(args.out, force=args.force, inputs=[args.record], what="record")
    record = load_record(args.record)
    if record.sealed is not None and not args.full and args.seat != record.view:
        raise UsageError(
            f"{args.record} is a game in progress saved for seat {record.view}: "
            f"as seat {args.seat} it would show what seat {record.view} has not "
            "seen (--full unseals it on purpose)"
        )
    if record.sealed is not None:
        record, _ = open_sealed(record)
    elif record.view is not None:
        raise UsageError(f"{args.record} is already redacted for seat {record.view}")
    elif args.full:
        raise UsageError(f"{args.record} is a full record already")
    game = make_game_for(record)
    # what replay refuses (a result the game contradicts or does not reach, a
    # line in the wrong seat's name) is refused here too, and nothing written
    if args.full:
        path = named(record, game).save(out)  # replay's checks first
        print(f"{path}: the whole game, everything hidden in plain text")
        return 0
    path = named(seat_view(record, game, args.seat), game).save(out)
    print(f"{path}: the game as seat {args.seat} saw it (seat-view notation)")
    return 0
