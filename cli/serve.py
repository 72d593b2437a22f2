"""`xenophon serve`: play and review both games in a browser (docs/web.md)."""

from __future__ import annotations

import argparse
import errno
import sys
from typing import Any

from xenophon.cli.common import UsageError, whole_number
from xenophon.web.hosts import ANY_ADDRESSES, HostError, allowed_name


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
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        type=host_name,
        help="a name (or address) of this machine other pages may use to reach the server, "
        "besides localhost and the --host address; repeatable. Needed with --host 0.0.0.0 "
        "for other machines (docs/web.md)",
    )
    parser.set_defaults(run=run)


def host_name(text: str) -> str:
    """An argparse type: a name --allow-host can allow (one clear line otherwise)."""
    try:
        return allowed_name(text)
    except HostError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run(args: argparse.Namespace) -> int:
    try:
        from xenophon.web import server
    except ImportError as error:
        raise UsageError(
            f"the web front end needs aiohttp ({error.name} is missing): pip install 'aiohttp>=3.9'"
        ) from None

    def announce(address: str) -> None:
        print(f"xenophon: serving on {address} (Ctrl-C stops)", flush=True)
        if args.host in ANY_ADDRESSES and not args.allow_host:
            print(
                "xenophon: other machines reach it only by names given with --allow-host NAME",
                file=sys.stderr,
                flush=True,
            )

    try:
        server.run(args.host, args.port, announce, tuple(args.allow_host))
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
