"""`xenophon selfplay`, `replay` and `export`: writing, reading and redacting records."""
from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from xenophon.cli.common import (UsageError, add_force_argument, add_game_arguments,
                                 game_from_arguments, whole_number)
from xenophon.files import check_output, check_output_folder
from xenophon.game import CHANCE
from xenophon.records import (Record, load_record, make_game_for, new_record, open_sealed,
                              redact, replay)
from xenophon.players import make_bot


def add_parsers(commands: Any) -> None:
    parser = commands.add_parser("selfplay", help="AI against AI, writing game records",
                                 description="Play bots against each other and write records "
                                             "(full records, with the seed of their chance).")
    add_game_arguments(parser)
    parser.add_argument("--bots", default="ismcts:iterations=1000;ismcts:iterations=1000",
                        metavar="BOT0;BOT1",
                        help="the two bots, separated by ';' (e.g. 'ismcts:time=1;greedy')")
    parser.add_argument("--games", type=whole_number(1, 1_000_000), default=1)
    parser.add_argument("--out", default=".", metavar="DIR", help="folder for the records")
    add_force_argument(parser)
    parser.set_defaults(run=run_selfplay)

    parser = commands.add_parser("replay", help="step through a recorded game",
                                 description="Print a recorded game move by move.")
    parser.add_argument("record")
    parser.add_argument("--as", dest="seat", type=int, choices=(0, 1), default=None,
                        help="the game as this seat saw it: what it did not see is printed "
                             "as hidden (default: everything in the record; the boards as "
                             "seat 0 sees them, or the seat a redacted record is for)")
    parser.add_argument("--boards", action="store_true", help="print the board after every move")
    parser.add_argument("--step", action="store_true", help="wait for Enter after every move")
    parser.set_defaults(run=run_replay)

    parser = commands.add_parser("export", help="write a record redacted for one seat",
                                 description="Write the record as one seat saw it: everything "
                                             "that seat could not see is removed, and so is "
                                             "the seed. With --full, a saved game in progress "
                                             "is written whole, hidden cards included.")
    parser.add_argument("record")
    form = parser.add_mutually_exclusive_group(required=True)
    form.add_argument("--as", dest="seat", type=int, choices=(0, 1))
    form.add_argument("--full", action="store_true",
                      help="unseal a saved game in progress: the whole record, everything "
                           "hidden in plain text (spoils the game for its player)")
    parser.add_argument("--out", required=True, metavar="FILE")
    add_force_argument(parser)
    parser.set_defaults(run=run_export)


def run_selfplay(args: argparse.Namespace) -> int:
    specs = args.bots.split(";")
    if len(specs) != 2:
        raise UsageError("--bots takes two bots separated by ';'")
    for spec in specs:
        make_bot(spec, 0)                      # a bad bot fails before any game
    base_seed = args.seed if args.seed is not None else random.randrange(2**31)
    game = game_from_arguments(args, base_seed)
    seeds = [base_seed + number for number in range(args.games)]
    paths = check_output_folder(args.out, [f"{game.name}-selfplay-{seed}.jsonl" for seed in seeds],
                                force=args.force, what="records")
    for seed, path in zip(seeds, paths):
        record = selfplay_game(args, specs, seed)
        record.save(path)
        print(f"{path}: {len(record.lines)} lines, returns {record.result}")
    return 0


def selfplay_game(args: argparse.Namespace, specs: list[str], seed: int) -> Record:
    game = game_from_arguments(args, seed)
    bots = [make_bot(spec, seed * 2 + seat) for seat, spec in enumerate(specs)]
    record = new_record(game, specs)
    state = game.new_initial_state()
    while not state.is_terminal():
        player = state.current_player
        move = state.sample_chance(game.rng) if player == CHANCE else bots[player].choose(state)
        state.apply_code(move.code)
        record.add(player, move.text)
    record.result = state.returns()
    return record


def run_replay(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    game = make_game_for(record)
    if args.seat is not None and record.view not in (None, args.seat):
        raise UsageError(f"{args.record} was redacted for seat {record.view}; it shows only "
                         "what that seat saw")
    seat = args.seat if args.seat is not None else (record.view or 0)
    final, before = replay(record, game)
    # a full record shown as one seat saw it: its hidden lines are hidden here too
    shown = redact(record, game, seat) if args.seat is not None and record.view is None \
        else record
    for index, line in enumerate(shown.lines):
        who = "chance" if line["seat"] == "chance" else f"seat {line['seat']}"
        text = line.get("move", "(hidden)")
        print(f"{index + 1:>4}  {who:<7} {text}")
        if args.boards:
            after = before[index + 1] if index + 1 < len(before) else final
            print(after.render(seat))
        if args.step and sys.stdin.isatty():
            input()
    if final.is_terminal():
        returns = final.returns()
        print("result: " + ("draw" if returns[0] == 0 else f"seat {0 if returns[0] > 0 else 1} wins"))
    return 0


def run_export(args: argparse.Namespace) -> int:
    out = check_output(args.out, force=args.force, inputs=[args.record], what="record")
    record = load_record(args.record)
    if record.sealed is not None:
        record, _ = open_sealed(record)
    elif record.view is not None:
        raise UsageError(f"{args.record} is already redacted for seat {record.view}")
    elif args.full:
        raise UsageError(f"{args.record} is a full record already")
    if args.full:
        path = record.save(out)
        print(f"{path}: the whole game, everything hidden in plain text")
        return 0
    game = make_game_for(record)
    path = redact(record, game, args.seat).save(out)
    print(f"{path}: the game as seat {args.seat} saw it")
    return 0
