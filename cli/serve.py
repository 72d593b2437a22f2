"""`xenophon serve`: play and review both games in a browser (docs/web.md)."""

from __future__ import annotations

import argparse
import errno
import sys
from typing import Any

from xenophon.cli.common import UsageError, whole_number


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "serve",
        help="play and review games in a browser",
        description="Serve the browser front end on this machine: "
        "play both games against the AI, ask for hints, "
        "review records.",
    )
    parser.add_argument(
        "--port",
        type=whole_number(0, 65535),
        default=8765,
        help="the port (default 8765; 0 picks a free one)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1, this machine only)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        from xenophon.web import server
    except ImportError as error:
        raise UsageError(
            f"the web front end needs aiohttp ({error.name} is missing): pip install 'aiohttp>=3.9'"
        ) from None

    def announce(address: str) -> None:
        print(f"xenophon: serving on {address} (Ctrl-C stops)", flush=True)

    try:
        server.run(args.host, args.port, announce)
    except OSError as error:
        reason = (
            "the port is in use"
            if error.errno == errno.EADDRINUSE
            else (error.strerror or str(error))
        )
        raise UsageError(f"cannot serve on {args.host}:{args.port}: {reason}") from None
    except KeyboardInterrupt:
        print("xenophon: stopped", file=sys.stderr)
    return 0
