"""`xenophon selfplay`, `replay` and `export`: writing, reading and redacting records."""
from __future__ import annotations

import argparse
import random
import sys
from typing import Any

from xenophon.cli.common import UsageError, add_game_arguments, game_from_arguments
from xenophon.game import CHANCE
from xenophon.records import load_record, make_game_for, new_record, redact, replay
from xenophon.search.tournament import make_bot


def add_parsers(commands: Any) -> None:
    parser = commands.add_parser("selfplay", help="AI against AI, writing game records",
                                 description="Play bots against each other and write records.")
    add_game_arguments(parser)
    parser.add_argument("--bots", default="ismcts:iterations=1000,ismcts:iterations=1000",
                        metavar="BOT0;BOT1",
                        help="the two bots, separated by ';' (e.g. 'ismcts:time=1;greedy')")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--out", default=".", metavar="DIR", help="folder for the records")
    parser.set_defaults(run=run_selfplay)

    parser = commands.add_parser("replay", help="step through a recorded game",
                                 description="Print a recorded game move by move.")
    parser.add_argument("record")
    parser.add_argument("--as", dest="seat", type=int, choices=(0, 1), default=None,
                        help="show the boards as this seat sees them (default: seat 0, or the "
                             "seat a redacted record is for)")
    parser.add_argument("--boards", action="store_true", help="print the board after every move")
    parser.add_argument("--step", action="store_true", help="wait for Enter after every move")
    parser.set_defaults(run=run_replay)

    parser = commands.add_parser("export", help="write a record redacted for one seat",
                                 description="Write the record as one seat saw it: everything "
                                             "that seat could not see is removed.")
    parser.add_argument("record")
    parser.add_argument("--as", dest="seat", type=int, choices=(0, 1), required=True)
    parser.add_argument("--out", required=True, metavar="FILE")
    parser.set_defaults(run=run_export)


def run_selfplay(args: argparse.Namespace) -> int:
    specs = args.bots.split(";")
    if len(specs) != 2:
        raise UsageError("--bots takes two bots separated by ';'")
    base_seed = args.seed if args.seed is not None else random.randrange(2**31)
    for number in range(args.games):
        seed = base_seed + number
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
        path = record.save(f"{args.out}/{game.name}-selfplay-{seed}.jsonl")
        print(f"{path}: {len(record.lines)} lines, returns {record.result}")
    return 0


def run_replay(args: argparse.Namespace) -> int:
    record = load_record(args.record)
    game = make_game_for(record)
    seat = args.seat if args.seat is not None else (record.view or 0)
    final, before = replay(record, game)
    for index, line in enumerate(record.lines):
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
    record = load_record(args.record)
    if record.view is not None:
        raise UsageError(f"{args.record} is already redacted for seat {record.view}")
    game = make_game_for(record)
    path = redact(record, game, args.seat).save(args.out)
    print(f"{path}: the game as seat {args.seat} saw it")
    return 0
