"""A position's recent past, read from its own history: the undo record of
every action and chance outcome applied to it, which a game played move by
move keeps (a position read from bytes or a dict has none). Each step is
taken back and played again, so the position is left as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: a cap on the steps taken back (a long run of one player's decisions
#: cannot make a look back unbounded)
MAX_STEPS_BACK = 200


def step_code(backend: Any, after: bytes) -> int:
    """The code that leads from the backend's state to the state `after` (the
    lowest such: two codes with the same result are the same step)."""
    for code in backend.legal_actions():
        trial = backend.clone()
        trial.apply(code)
        if trial.to_bytes() == after:
            return code
    raise AssertionError("the undo history does not replay")  # the core's undo is exact


def own_run_dicts(
    state: Any, keep: Callable[[dict[str, Any]], bool] = lambda before: True
) -> list[dict[str, Any]]:
    """The state dicts before each decision of the player to move's current
    run: the decisions it made one after the other in this turn, with no
    chance outcome and no other player's decision between them, most recent
    first, going back no further than the first one `keep` refuses (empty
    without a history or when the last step was not its own)."""
    backend = state.backend
    if not hasattr(backend, "history_size") or state.is_chance() or state.is_terminal():
        return []
    player, turn = state.current_player, backend.turn()
    taken: list[int] = []
    earlier: list[dict[str, Any]] = []
    try:
        while backend.history_size() > 0 and len(taken) < MAX_STEPS_BACK:
            after = backend.to_bytes()
            backend.undo()
            code = step_code(backend, after)
            taken.append(code)
            if backend.current_player() != player or backend.turn() != turn:
                break
            before = backend.to_dict()
            if not keep(before):
                break
            earlier.append(before)
    finally:
        for code in reversed(taken):
            backend.apply(code)
    return earlier
