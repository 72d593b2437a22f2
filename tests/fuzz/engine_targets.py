"""`engine_query`: any bytes as query lines for the engine's serve loop.

Every answer line must be valid UTF-8 JSON, an object with an `id`, and no
answer may report an internal error. Searches are cut to a few iterations
(whatever the query asks) so that a fuzzed query cannot search for long.
"""
from __future__ import annotations

import contextlib
import io
import json
from typing import Any, Iterator

from xenophon.cli import engine
from xenophon.search.bots import ISMCTSBot

from . import record_targets, sample

MAX_ITERATIONS = 8
MAX_SECONDS = 0.02
MEMORY_MB = 4


class EngineFinding(AssertionError):
    """An answer line that breaks the protocol (the message quotes it)."""


class TinyBot(ISMCTSBot):
    """The engine's search with its budget cut to a few iterations, one worker
    and a small tree, whatever the query asks."""

    def __init__(self, iterations: int | None = None, time_limit: float | None = None,
                 workers: int = 1, **options: Any):
        options.pop("memory_mb", None)
        super().__init__(iterations=min(iterations or MAX_ITERATIONS, MAX_ITERATIONS),
                         time_limit=min(time_limit, MAX_SECONDS) if time_limit else None,
                         workers=1, memory_mb=MEMORY_MB, **options)


@contextlib.contextmanager
def tiny_searches() -> Iterator[None]:
    saved = engine.ISMCTSBot
    engine.ISMCTSBot = TinyBot
    try:
        yield
    finally:
        engine.ISMCTSBot = saved


def answers(data: bytes) -> bytes:
    """What the serve loop writes for `data` given as its standard input."""
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    with tiny_searches():
        engine.serve(stdin, stdout)
    return stdout.buffer.getvalue()


def check_answer(line: bytes) -> None:
    try:
        answer = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise EngineFinding(f"answer {line[:300]!r} is not UTF-8 JSON ({error})") from None
    if not isinstance(answer, dict) or "id" not in answer:
        raise EngineFinding(f"answer {line[:300]!r} is not an object with an id")
    if "internal error" in str(answer.get("error", "")):
        raise EngineFinding(f"internal error: {line[:1000]!r}")


def engine_target(data: bytes) -> None:
    for line in answers(data).splitlines():
        check_answer(line)


def decision_prefixes(name: str) -> list[list[str]]:
    """The moves up to the first decision of the seeded game, and up to one a
    third of the way in."""
    lines = sample.game_lines(name)
    decisions = [i for i, (player, _) in enumerate(lines) if player >= 0]
    return [[move for _, move in lines[:i]] for i in (decisions[0], decisions[len(decisions) // 3])]


def query(**fields: Any) -> bytes:
    return json.dumps(fields).encode() + b"\n"


def engine_seeds() -> list[bytes]:
    seeds = []
    for name in sample.GAMES:
        options = {"decks": ["crimson_conqueror", "wild_grove"]} if name == "hero" else {}
        for number, moves in enumerate(decision_prefixes(name)):
            base = {"id": f"{name}-{number}", "game": name, "options": options, "moves": moves}
            seeds.append(query(**base, iterations=MAX_ITERATIONS, top=3))
            seeds.append(query(**base, time=MAX_SECONDS, stream=0.01, search_seed=5))
            seeds.append(query(**base, iterations=4, restrict=["end"], seat=0))
        seeds.append(query(id=name, record=str(record_targets.stable_record_file(name)),
                           iterations=4))
    seeds += [query(id=None, game="chess"), b'{"id": 1, "command": "quit"}\n', b"not json\n"]
    return seeds


TARGETS = {"engine_query": engine_target}
SEEDS = {"engine_query": engine_seeds}
