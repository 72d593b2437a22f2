"""Self-play: bots against each other, each game kept as a full record (with
the seed of its chance) in the notation's names (docs/records.md, "Pieces by
name"), one job of `xenophon.lab.jobs` a game.

>>> from xenophon.kernel.registry import GAMES
>>> [game] = selfplay_job(GAMES[-1], {}, ["random", "random"], seed=3)
>>> game["seed"], game["record"][0]["game"] == GAMES[-1]
(3, True)
"""

from __future__ import annotations

from typing import Any

from xenophon.kernel.game import CHANCE, Game
from xenophon.kernel.registry import game_from_texts
from xenophon.lab.jobs import Job
from xenophon.play.external import Forfeit, finish_players, forfeit_returns, play_step
from xenophon.play.players import make_bot
from xenophon.play.records import Record, named, new_record


def selfplay_game(game: Game, specs: list[str], seed: int) -> Record:
    """One game between the bots of `specs` (seat 0, seat 1), chance from the game's seed."""
    return played_game(game, specs, seed)[0]


def played_game(game: Game, specs: list[str], seed: int) -> tuple[Record, Forfeit | None]:
    """`selfplay_game`, and the forfeit that ended it early if a player
    forfeited (its record then ends there, without a result)."""
    bots = [make_bot(spec, seed * 2 + seat) for seat, spec in enumerate(specs)]
    record = new_record(game, specs)
    state = game.new_initial_state()
    forfeit: Forfeit | None = None
    try:
        while not state.is_terminal():
            player = state.current_player
            move = state.sample_chance(game.rng) if player == CHANCE else bots[player].choose(state)
            play_step(state, move.code, bots)  # an external player follows it
            record.add(player, move.text)
        record.result = state.returns()
    except Forfeit as lost:
        forfeit = lost
    finally:
        finish_players(bots, state, forfeit)
    return record, forfeit


def selfplay_job(
    game: str, options: dict[str, str], bots: list[str], seed: int
) -> list[dict[str, Any]]:
    """The job of one self-play game (`xenophon.lab.jobs`): its seed, returns and
    record (the rows of its record file; `xenophon.play.records.rows_text`),
    and its `forfeit` if a player forfeited."""
    played = game_from_texts(game, options, seed=seed)
    record, forfeit = played_game(played, bots, seed)
    record = named(record, played)  # a file's moves name pieces as the notation does
    if forfeit is None:
        return [{"seed": seed, "returns": record.result, "record": record.rows()}]
    returns = forfeit_returns(forfeit.seat)
    return [
        {"seed": seed, "returns": returns, "record": record.rows(), "forfeit": forfeit.record()}
    ]


def selfplay_jobs(
    game: str, options: dict[str, str], bots: list[str], seeds: list[int]
) -> list[Job]:
    """Self-play as jobs, one game each, keyed by its seed."""
    return [
        Job(str(seed), "selfplay", {"game": game, "options": options, "bots": bots, "seed": seed})
        for seed in seeds
    ]
