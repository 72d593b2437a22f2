"""`xenophon engine`: the JSON analysis protocol (xenophon.protocol.engine)
on stdin and stdout."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from xenophon.kernel.files import MAX_JSON_DEPTH
from xenophon.protocol.engine import MAX_LINE_BYTES, serve


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "engine",
        help="JSON analysis protocol on stdin/stdout",
        description="Answer analysis queries, one JSON object per line "
        f"(docs/engine-protocol.md). A line holds at most "
        f"{MAX_LINE_BYTES // (1024 * 1024)} MiB of UTF-8 JSON nested at most "
        f"{MAX_JSON_DEPTH} levels deep; any line that cannot be answered gets an "
        "error answer and the engine goes on. Answers come in the order of the "
        "queries; a cancel stops the analyses before it at once. End a file of "
        'queries with {"command": "quit"}: at the end of the input without it, '
        "the analyses not yet answered are cancelled.",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    serve(sys.stdin.buffer, sys.stdout.buffer)
    return 0
