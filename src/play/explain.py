"""Why the search suggests what it does: the top moves tried in worlds drawn
from the asking seat's information, and where the opponent's hidden cards
probably are (`xenophon analyse` and `suggest`; docs/analysis.md).

Every world comes from a *world draw* (`xenophon.search.belief.WorldDraw`):
`draw(state, seat, rng)` returns a full state consistent with everything
`seat` has seen and the weight of that world. The default draws uniformly
(`State.resample`); a belief-weighted draw takes its place without changing
anything here. Nothing here reads the hidden cards of the state it is given:
it only ever looks at drawn worlds.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xenophon.kernel.game import Move, State
from xenophon.kernel.naming import MoveNames
from xenophon.search.belief import WorldDraw, card_probabilities, draw_uniform_world, hidden_places
from xenophon.search.bots import CheatingUCTBot

DEFAULT_WORLDS = 24  # worlds each top move is searched in
MAX_WORLDS = 10_000
EXPLAINED_MOVES = 5  # the top moves searched in each world (at most)
DEFAULT_CARD_WORLDS = 400  # worlds drawn for the card probabilities (no search)
MIN_WORLD_ITERATIONS = 50
HURT_SHOWN = 2  # hidden cards named per move
MIN_HURT = 0.05  # a smaller change in win probability is not named
MIN_SUPPORT = 2  # worlds a card must be in to be named


@dataclass
class Hurt:
    """A hidden card whose presence lowers a move's win probability."""

    place: str
    card: str
    change: float  # the move's win probability with it, less its mean
    worlds: int  # the worlds that had it

    def text(self) -> str:
        where = "the opponent's hand holds" if self.place == "hand" else f"{self.place} holds"
        return f"loses {-self.change * 100:.0f}% if {where} {self.card}"


@dataclass
class MoveReason:
    move: str
    best_share: float  # the weighted share of worlds where it was the best
    win: float | None  # its mean win probability over the worlds it was tried in
    hurts: list[Hurt] = field(default_factory=list)


@dataclass
class Explanation:
    seat: int
    worlds: int
    iterations_per_world: int
    moves: list[MoveReason]
    #: place -> card -> the probability that the card is there ('hand', 'slot 2')
    hidden_cards: dict[str, dict[str, float]]
    card_worlds: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "worlds": self.worlds,
            "iterations_per_world": self.iterations_per_world,
            "moves": [
                {
                    "move": m.move,
                    "best_share": round(m.best_share, 4),
                    "win_probability": None if m.win is None else round(m.win, 4),
                    "hurts": [
                        {
                            "place": h.place,
                            "card": h.card,
                            "change": round(h.change, 4),
                            "worlds": h.worlds,
                        }
                        for h in m.hurts
                    ],
                }
                for m in self.moves
            ],
            "hidden_cards": {
                place: {card: round(p, 4) for card, p in cards.items()}
                for place, cards in self.hidden_cards.items()
            },
            "card_worlds": self.card_worlds,
        }


def explain(
    state: State,
    seat: int,
    moves: list[Move],
    searcher: Callable[[int], Any],
    draw_world: WorldDraw = draw_uniform_world,
    worlds: int = DEFAULT_WORLDS,
    iterations_per_world: int = 200,
    seed: int = 0,
    card_worlds: int = DEFAULT_CARD_WORLDS,
    stopped: Callable[[], bool] = lambda: False,
) -> Explanation:
    """Each of `moves` (the top moves of a search of `state`, `seat` to move)
    searched in `worlds` worlds from `draw_world`, each with its cards in the
    open: how often each move is the world's best, and the hidden cards that
    hurt it most. `searcher(iterations)` makes the perfect-information search
    run in each world. When `stopped()` turns true, the worlds searched so
    far make the explanation."""
    rng = random.Random(seed)
    codes = {move.code: move.text for move in moves}
    wins: dict[int, list[tuple[float, float, set]]] = defaultdict(list)
    best: dict[int, float] = defaultdict(float)
    total = 0.0
    bot = searcher(iterations_per_world)
    searched = 0
    for _ in range(worlds):
        if stopped():
            break
        searched += 1
        world, weight = draw_world(state, seat, rng)
        places = hidden_places(world, seat)
        result = bot.analyse(world)
        total += weight
        ranked = [stat for stat in result.moves if stat.visits]
        if ranked and ranked[0].move.code in codes:
            # the search's own choice among all the world's moves, not only
            # the ones explained: its moves are ranked best first (by visits,
            # or by the rounds survived with root_policy=halving), so a move's
            # share is the same however many moves are shown (suggest, analyse)
            best[ranked[0].move.code] += weight
        for stat in ranked:
            if stat.move.code not in codes:
                continue
            wins[stat.move.code].append((stat.win_probability, weight, places))
    reasons = [
        MoveReason(
            text, best[code] / total if total else 0.0, _mean(wins[code]), _hurts(wins[code])
        )
        for code, text in codes.items()
    ]
    return Explanation(
        seat,
        searched,
        iterations_per_world,
        reasons,
        card_probabilities(state, seat, draw_world, rng, card_worlds),
        card_worlds,
    )


def _mean(samples: list[tuple[float, float, set]]) -> float | None:
    weight = sum(w for _, w, _ in samples)
    return sum(v * w for v, w, _ in samples) / weight if weight else None


def _hurts(samples: list[tuple[float, float, set]]) -> list[Hurt]:
    """The hidden cards whose worlds gave the move its lowest win probability
    (cards in every world, or in fewer than MIN_SUPPORT, say nothing)."""
    mean = _mean(samples)
    if mean is None:
        return []
    every = set.intersection(*(places for _, _, places in samples))
    found = []
    for place in set.union(*(places for _, _, places in samples)) - every:
        having = [sample for sample in samples if place in sample[2]]
        having_mean = _mean(having)
        assert having_mean is not None  # `place` is in at least one sample
        change = having_mean - mean
        if len(having) >= MIN_SUPPORT and change <= -MIN_HURT:
            found.append(Hurt(place[0], place[1], change, len(having)))
    found.sort(key=lambda hurt: (hurt.change, hurt.place, hurt.card))
    return found[:HURT_SHOWN]


def explain_search(
    state: State,
    seat: int,
    result: Any,
    worlds: int,
    seed: int = 0,
    top: int = EXPLAINED_MOVES,
    draw_world: WorldDraw = draw_uniform_world,
    stopped: Callable[[], bool] = lambda: False,
) -> Explanation | None:
    """The explanation of a search `result` of `state` (`seat` to move): its
    top moves (at most EXPLAINED_MOVES) searched again in `worlds` worlds,
    each given the search's iterations shared out (at least
    MIN_WORLD_ITERATIONS). None when no worlds are asked for or there was no
    choice (the search ran no iterations)."""
    if not worlds or not result.iterations:
        return None
    per_world = max(MIN_WORLD_ITERATIONS, result.iterations // worlds)
    moves = [stat.move for stat in result.moves[: max(top, 1)][:EXPLAINED_MOVES]]
    # a perfect-information search of each sampled world: it sees that world's
    # cards, which were drawn from the seat's information, never the true ones
    return explain(
        state,
        seat,
        moves,
        lambda iterations: CheatingUCTBot(iterations=iterations, seed=seed),
        draw_world,
        worlds=worlds,
        iterations_per_world=per_world,
        seed=seed,
        stopped=stopped,
    )


def named_result(data: dict[str, Any], state: State, names: MoveNames, seat: int) -> dict[str, Any]:
    """A search's answer as JSON data (`result_dict`, and its `explanation`
    if any) with its moves and lines in the game's names: each line followed
    on a world of the seat's information (`MoveNames.line`)."""
    for entry in data["moves"]:
        entry["principal_variation"] = names.line(state, entry["principal_variation"], seat)
        entry["move"] = names.said(state, entry["move"])
    for reason in data.get("explanation", {}).get("moves", []):
        reason["move"] = names.said(state, reason["move"])
    return data
