"""Search budgets cut for fuzzing: whatever a query, a page or a saved game
asks for, a fuzz target's searches run a few iterations with one worker and
a small tree, so that no input can keep a target busy for long."""

from __future__ import annotations

from typing import Any

from xenophon.play import levels
from xenophon.search.bots import ISMCTSBot

MAX_ITERATIONS = 8
MAX_SECONDS = 0.02
MEMORY_MB = 4


class TinyBot(ISMCTSBot):
    """The search with its budget cut to a few iterations, one worker and a
    small tree, whatever it is asked for."""

    def __init__(
        self,
        iterations: int | None = None,
        time_limit: float | None = None,
        workers: int = 1,
        **options: Any,
    ):
        options.pop("memory_mb", None)
        super().__init__(
            iterations=min(iterations or MAX_ITERATIONS, MAX_ITERATIONS),
            time_limit=min(time_limit, MAX_SECONDS) if time_limit else None,
            workers=1,
            memory_mb=MEMORY_MB,
            **options,
        )


def tiny_bot_for_level(level: str, seed: int, workers: int = 1) -> TinyBot:
    """A level's bot as `levels.bot_for_level` checks it (an unknown level is
    its LevelError), but searching as a TinyBot."""
    levels.bot_for_level(level, seed, workers)
    return TinyBot(seed=seed)
