"""What both oracles share, written once over the backend protocol."""
from __future__ import annotations

from typing import Any


def perft(state: Any, depth: int) -> int:
    """Leaves of the game tree `depth` plies deep, every chance outcome a branch.

    A line on which the game ends before `depth` counts no leaf (the chess
    convention; docs/anabasis-engine.md, docs/hero-engine.md E-35), as in the
    C cores.
    """
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    total = 0
    for code in state.legal_actions():
        state.apply(code)
        total += perft(state, depth - 1)
        state.undo()
    return total
