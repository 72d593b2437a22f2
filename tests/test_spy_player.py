"""Fair play against player programs (docs/players.md, "Trust model"): a spy
that replays chance from the seed it is given predicts the opponent's hidden
cards no better than a guess, in `match`, `selfplay`, `play --opponent` and
the Gymnasium environment, from both seats. (The PettingZoo environment
gives its agents no seed: its `reset(seed)` is the caller's.)

SPY_GAMES=N plays N games a seat, game and referee (default 3); the figure of
the issue, 200 games, is `SPY_GAMES=25 pytest tests/test_spy_player.py`
(25 x 2 seats x 2 games x 2 referees = 200 spied games, plus `play`'s)."""

from __future__ import annotations

import functools
import json
import math
import os
import random
import sys
from pathlib import Path

import pytest

from spy_player import hidden_setup
from test_cli import xenophon
from xenophon.kernel.registry import GAMES, game_options_as_text
from xenophon.lab.selfplay import selfplay_job
from xenophon.lab.tournament import play_one
from xenophon.play import external

SPY = f"cmd:{sys.executable} {Path(__file__).resolve().parent / 'spy_player.py'}"
GAMES_A_SEAT = int(os.environ.get("SPY_GAMES", "3"))
#: deal pairs sampled for the chance that a guess from another deal is right
BASELINE_PAIRS = 400


def spied(tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    out = tmp_path / f"spy-{mode}.jsonl"
    monkeypatch.setenv("SPY_MODE", mode)
    monkeypatch.setenv("SPY_OUT", str(out))
    return out


def guesses(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


def options_of(name: str) -> dict[str, str]:
    from xenophon.kernel.registry import game_from_spec

    return game_options_as_text(game_from_spec(name))


def match_games(name: str, out: Path, first_deal: int, games: int) -> list[tuple[int, int]]:
    """Games of `match` (its job, `play_one`): the spy as bot A, seats
    alternating; the (deal, spy seat) of each."""
    played = []
    for number in range(games):
        deal, seat = first_deal + number // 2, number % 2
        play_one(name, [SPY, "random"], deal, seat)
        played.append((deal, seat))
    return played


def selfplay_games(name: str, out: Path, first_deal: int, games: int) -> list[tuple[int, int]]:
    played = []
    for number in range(games):
        deal, seat = first_deal + number, number % 2
        bots = [SPY, "random"] if seat == 0 else ["random", SPY]
        selfplay_job(name, {}, bots, deal)
        played.append((deal, seat))
    return played


def gym_games(name: str, out: Path, first_deal: int, games: int) -> list[tuple[int, int]]:
    pytest.importorskip("gymnasium")
    from gymnasium.utils.seeding import np_random

    from xenophon.rl.single import XenophonEnv

    played = []
    for number in range(games):
        agent_seat = number % 2
        env = XenophonEnv(name, opponent=SPY, seat=agent_seat)
        with pytest.raises(external.Forfeit):  # the spy leaves at its first decision
            _, info = env.reset(seed=first_deal + number)
            while True:  # the agent moves until the spy's first decision
                info = env.step(int(info["action_mask"].nonzero()[0][0]))[4]
        deal = int(np_random(first_deal + number)[0].integers(2**62))  # the env's game seed
        played.append((deal, 1 - agent_seat))
        env.close()
    return played


REFEREES = {"match": match_games, "selfplay": selfplay_games, "gym": gym_games}


def hits(name: str, out: Path, played: list[tuple[int, int]]) -> int:
    """Guesses equal to the hidden part of the setup, in the order played."""
    said = guesses(out)
    assert len(said) == len(played), "the spy was started once a game"
    options = options_of(name)
    right = 0
    for (deal, seat), guess in zip(played, said):
        assert guess["seat"] == seat
        right += guess["guess"] == hidden_setup(name, options, deal, seat)
    return right


@functools.cache
def chance_of_a_lucky_guess(name: str) -> float:
    """How often the hidden part of one deal's setup equals another deal's
    (a guess from a deal drawn at random), from either seat: an upper 95%
    bound from BASELINE_PAIRS pairs."""
    rng = random.Random(20261207)
    options = options_of(name)
    equal = 0
    for index in range(BASELINE_PAIRS):
        seat = index % 2
        one, other = rng.randrange(2**62), rng.randrange(2**62)
        equal += hidden_setup(name, options, one, seat) == hidden_setup(name, options, other, seat)
    return min(1.0, (equal + 3) / BASELINE_PAIRS)  # rule of three above the count


def most_hits_by_luck(trials: int, chance: float) -> int:
    """The largest count a guesser right with probability `chance` reaches
    with probability at least 2.5% (the top of its two-sided 95% interval)."""
    above = 1.0
    for count in range(trials + 1):
        exactly = math.comb(trials, count) * chance**count * (1 - chance) ** (trials - count)
        above -= exactly
        if above < 0.025:
            return count
    return trials


@pytest.mark.parametrize("referee", sorted(REFEREES))
@pytest.mark.parametrize("name", GAMES)
def test_the_spy_guesses_the_hidden_setup_no_better_than_luck(name, referee, tmp_path, monkeypatch):
    out = spied(tmp_path, referee, monkeypatch)
    played = REFEREES[referee](name, out, 7_000, 2 * GAMES_A_SEAT)
    right = hits(name, out, played)
    assert right <= most_hits_by_luck(len(played), chance_of_a_lucky_guess(name)), (
        f"the spy was right in {right} of {len(played)} games"
    )


@pytest.mark.parametrize("name", GAMES)
def test_the_spy_knows_the_deal_from_a_seed_that_is_the_deals(name, tmp_path, monkeypatch):
    """The control: given the seeds players used to be given, the spy is
    right every time (so the test above would catch the leak)."""
    monkeypatch.setattr(external, "player_seed", lambda seed: seed)
    out = spied(tmp_path, "match", monkeypatch)
    played = match_games(name, out, 7_000, 2)
    assert hits(name, out, played) == 2


def test_in_play_the_seed_is_the_referees_secret(tmp_path, monkeypatch):
    """`play --opponent --seed 11`: the program's seed is no function of the
    chosen seed (another process, another seed) unless the referee fixes its
    key (XENOPHON_REFEREE_KEY, which the program never sees)."""
    out = spied(tmp_path, "play", monkeypatch)

    def seed_given() -> dict:
        done = xenophon(
            "play", GAMES[0], "--seed", "11", "--seat", "1", "--opponent", SPY,
            input_text="quit\n", env_home=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return guesses(out)[-1]

    assert seed_given()["seed"] != seed_given()["seed"]
    monkeypatch.setenv("XENOPHON_REFEREE_KEY", "ab" * 32)
    fixed = [seed_given() for _ in range(2)]
    assert fixed[0]["seed"] == fixed[1]["seed"] and not fixed[0]["key_in_sight"]


def test_a_deal_seed_a_player_could_guess_is_not_given_by_match(tmp_path, monkeypatch):
    """A match against a player program without --seed draws its deals from
    the operating system, says the first, and its --resume goes on with it."""
    results = tmp_path / "spy.jsonl"
    spied(tmp_path, "match", monkeypatch)
    first = xenophon(
        "match", SPY, "random", "--games", "2", "--processes", "1", "--results", results,
        env_home=tmp_path,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    seed = int(first.stdout.split("--seed ")[1].split()[0])
    assert seed > 2**31
    header = json.loads(results.read_text().splitlines()[0])
    assert header["config"]["seed"] == seed
    again = xenophon(
        "match", SPY, "random", "--games", "2", "--processes", "1", "--results", results,
        "--resume", env_home=tmp_path,
    )  # fmt: skip
    # the same match goes on (a new secret would be another match: refused)
    assert again.returncode == 0, again.stderr
    assert f"--seed {seed} plays them again" in again.stdout
