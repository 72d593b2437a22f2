"""The worlds a search samples for the searcher: uniformly among the states
it cannot tell from the true one (the game's `resample`), or weighted by
opponent-move inference over its recent observations (`inference.pyx`).

The searcher's observations are read from the position's own history (the
undo record of every action and chance outcome applied to it, which a game
played move by move keeps): the window of its last `WINDOW_TURNS` turns is
taken back one step at a time and played again, leaving the position as it
was. Of each step the sampler keeps only what the searcher saw: the code when
the rules show it to the searcher (`State.observed_by`), and the searcher's
information-set key after it. A position without a history (one read from
bytes or a dict) has an empty window, and its policy worlds are uniform ones.

Inference assumes the worlds at the window's start are uniform among those the
searcher could not tell apart there (what happened before the window is not
weighed), and gives chance shown to the searcher no weight (its probability
does not depend on what the searcher cannot see in either game).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xenophon.kernel.game import State
from xenophon.kernel.history import step_code
from xenophon.search.inference import MODELS, infer_worlds

SAMPLERS = ("uniform", "policy")
LIKELIHOODS = tuple(MODELS)
DEFAULT_SAMPLER = "uniform"
DEFAULT_LIKELIHOOD = "greedy"
#: the greedy likelihood's softmax temperature (evaluations are in [-1, 1])
DEFAULT_TEMPERATURE = 0.2
DEFAULT_PARTICLES = 64
MAX_PARTICLES = 65_536
#: the turns the observation window covers: the current one and the one before
WINDOW_TURNS = 2
#: a cap on the window's steps (a long turn of forced chance cannot make it unbounded)
MAX_WINDOW_STEPS = 2000


@dataclass
class Window:
    """What the searcher saw over its last turns: the state at the window's
    start (only ever resampled from the searcher's view) and each step's
    code (None when hidden from the searcher) with its key after the step."""

    start: bytes
    steps: list[tuple[int | None, int]] = field(default_factory=list)


@dataclass
class Worlds:
    """Full states for the search to sample, with their probabilities."""

    states: list[bytes]
    weights: list[float]
    window_steps: int = 0


def observation_window(state: State, searcher: int, turns: int = WINDOW_TURNS) -> Window:
    """The searcher's observations over the position's last `turns` turns
    (the position is left as it was)."""
    backend = state.backend
    if not hasattr(backend, "history_size"):
        return Window(state.to_bytes())
    first_turn = backend.turn() - turns + 1
    taken: list[int] = []
    steps: list[tuple[int | None, int]] = []
    try:
        while backend.history_size() > 0 and len(steps) < MAX_WINDOW_STEPS:
            after = backend.to_bytes()
            key_after = backend.information_set_key(searcher)
            backend.undo()
            code = step_code(backend, after)
            if backend.turn() < first_turn:
                backend.apply(code)
                break
            taken.append(code)
            steps.append((code if backend.observed_by(code, searcher) else None, key_after))
        start = backend.to_bytes()
    finally:
        for code in reversed(taken):
            backend.apply(code)
    steps.reverse()
    return Window(start, steps)


def policy_worlds(
    state: State,
    searcher: int,
    particles: int,
    seed: int,
    likelihood: str = DEFAULT_LIKELIHOOD,
    temperature: float = DEFAULT_TEMPERATURE,
    evaluation: str = "default",
    weights: str | None = None,
) -> Worlds:
    """Up to `particles` states the searcher cannot tell from this one, each
    weighted by the likelihood of the opponent's decisions of the observation
    window in it (the greedy model scores with `evaluation`, and `weights` for
    a learned one); no states when none fits the window."""
    window = observation_window(state, searcher)
    api, tables = state.game.search_interface(evaluation, weights)
    states, probabilities = infer_worlds(
        api,
        tables,
        window.start,
        window.steps,
        searcher,
        particles,
        likelihood,
        temperature,
        seed & (2**64 - 1),
    )
    return Worlds(states, probabilities, len(window.steps))
