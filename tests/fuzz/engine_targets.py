"""`engine_query`: any bytes as query lines for the engine's serve loop.

Every answer line must be valid UTF-8 JSON, an object with an `id`, and no
answer may report an internal error. Searches are cut to a few iterations
(whatever the query asks) so that a fuzzed query cannot search for long.
"""

from __future__ import annotations

import io
import json
from typing import Any

from xenophon.protocol import engine

from . import record_targets, sample
from .budgets import MAX_ITERATIONS, MAX_SECONDS, TinyBot


class EngineFinding(AssertionError):
    """An answer line that breaks the protocol (the message quotes it)."""


def answers(data: bytes) -> bytes:
    """What the serve loop writes for `data` given as its standard input."""
    out = io.BytesIO()
    with sample.patched(engine, "ISMCTSBot", TinyBot):
        engine.serve(io.BytesIO(data), out)
    return out.getvalue()


def not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def check_answer(line: bytes) -> None:
    try:
        answer = json.loads(line.decode("utf-8"), parse_constant=not_json)
    except (UnicodeDecodeError, ValueError) as error:
        raise EngineFinding(f"answer {line[:300]!r} is not UTF-8 JSON ({error})") from None
    if not isinstance(answer, dict) or "id" not in answer:
        raise EngineFinding(f"answer {line[:300]!r} is not an object with an id")
    if "internal error" in str(answer.get("error", "")):
        raise EngineFinding(f"internal error: {line[:1000]!r}")


def engine_target(data: bytes) -> None:
    for line in answers(data).splitlines():
        check_answer(line)


def decision_prefixes(name: str) -> list[tuple[list[str], int]]:
    """(moves, the player then to move) up to the first real choice of the
    seeded game (more than one legal move), and up to one a third of the way in."""
    game = sample.games(name)[0]
    states = [state for state, _ in sample.walk(game, game.seed)]
    lines = sample.game_lines(name)
    choices = [
        i
        for i, state in enumerate(states)
        if state.current_player >= 0 and len(state.legal_actions()) > 1
    ]
    return [
        ([move for _, move in lines[:i]], states[i].current_player)
        for i in (choices[0], choices[len(choices) // 3])
    ]


def query(**fields: Any) -> bytes:
    return json.dumps(fields).encode() + b"\n"


def engine_seeds() -> list[bytes]:
    seeds = []
    for name in sample.GAMES:
        options = {"decks": ["crimson_conqueror", "wild_grove"]} if name == "hero" else {}
        for number, (moves, seat) in enumerate(decision_prefixes(name)):
            base = {"id": f"{name}-{number}", "game": name, "options": options, "moves": moves}
            seeds.append(query(**base, iterations=MAX_ITERATIONS, top=3))
            seeds.append(query(**base, time=MAX_SECONDS, stream=0.01, search_seed=5))
            seeds.append(query(**base, iterations=4, restrict=["end"], seat=seat))
        seeds.append(
            query(id=name, record=str(record_targets.stable_record_file(name)), iterations=4)
        )
    seeds += [query(id=None, game="chess"), b'{"id": 1, "command": "quit"}\n', b"not json\n"]
    return seeds


TARGETS = {"engine_query": engine_target}
SEEDS = {"engine_query": engine_seeds}
