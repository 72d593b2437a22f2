"""The learned evaluation: C features against the Python reference, weights
files (round trip, broken and mismatched ones refused in one line), the
evaluation's value, the search with it (hidden cards never read), and
`xenophon tune` end to end at a tiny budget."""

import json
import math
import random

import numpy as np
import pytest

from conftest import GAME_NAMES
from harness import decision_positions
from test_search import GAMES, random_positions, twin_positions, visits
from xenophon.anabasis import Game as AnabasisGame
from xenophon.cli.main import main
from xenophon.hero import Game as HeroGame
from xenophon.kernel.evaluation import (
    Weights,
    WeightsError,
    read_weights,
    shipped_weights_file,
    tables_for,
    write_weights,
)
from xenophon.kernel.files import FileError
from xenophon.kernel.oracle import reference_features
from xenophon.lab import tune
from xenophon.search.bots import ISMCTSBot

MAKERS = {"anabasis": AnabasisGame, "hero": HeroGame}


def resting_positions(name, count, seed):
    """Random positions the oracle can be built at (resting decisions)."""
    found = []
    for state in random_positions(GAMES[name], count * 3, seed=seed, min_actions=10):
        try:
            reference_features(state, 0)
        except ValueError:
            continue
        found.append(state)
    return found[:count]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_c_features_agree_with_the_reference(name):
    positions = resting_positions(name, 25, seed=3)
    assert len(positions) >= 15
    nonzero = set()
    for state in positions:
        names = state.game.tables.feature_names
        for player in (0, 1):
            c = dict(zip(names, state.backend.features(player)))
            reference = reference_features(state, player)
            assert sorted(reference) == sorted(names)
            for feature in names:
                assert c[feature] == pytest.approx(reference[feature], abs=1e-12), feature
                if c[feature]:
                    nonzero.add(feature)
    assert len(nonzero) >= len(names) // 3, "the positions should exercise the features"


# The option and threat features (issue 47): held events, castable cards,
# exposed units, next turn's damage. Random play rarely reaches positions
# where they are not 0, so they are checked on a cheap bot's games.
PLAYED_FEATURES = {
    "anabasis": ("held_events", "flood_targets", "rally_targets", "nullify_cover", "castle_reach"),
    "hero": ("castable", "exposed", "unguarded_attack", "unguarded_lethal"),
}


def played_positions(name, games, every=3):
    """Every `every`-th decision of `games` self-play games of a cheap bot."""
    for seed in range(games):
        state = MAKERS[name](seed=seed).new_initial_state()
        bot = ISMCTSBot(iterations=100, seed=seed)
        yield from decision_positions(
            state, random.Random(seed), lambda s: bot.choose(s).code, every
        )


@pytest.mark.parametrize("name", sorted(PLAYED_FEATURES))
def test_option_and_threat_features_agree_on_played_positions(name):
    seen = dict.fromkeys(PLAYED_FEATURES[name], 0)
    for state in played_positions(name, 3):
        try:
            reference = reference_features(state, state.current_player)
        except ValueError:
            continue
        names = state.game.tables.feature_names
        c = dict(zip(names, state.backend.features(state.current_player)))
        for feature in names:
            assert c[feature] == pytest.approx(reference[feature], abs=1e-12), feature
        for feature in seen:
            seen[feature] += c[feature] != 0
    assert all(seen.values()), f"features never exercised: {seen}"


def random_weights(game, seed, scale=0.3):
    rng = random.Random(seed)
    names = tuple(game.tables.feature_names)
    return Weights(
        game.name,
        names,
        tuple(rng.uniform(-scale, scale) for _ in names),
        tuple(rng.uniform(-scale, scale) for _ in names),
        20,
        {"note": "test"},
    )


@pytest.mark.parametrize("name", GAME_NAMES)
def test_weights_file_round_trip(name, tmp_path):
    game = MAKERS[name](seed=1)
    weights = random_weights(game, 1)
    path = write_weights(tmp_path / "w.json", weights)
    again = read_weights(path, name)
    assert again == weights and again.made == {"note": "test"}
    tables = tables_for(game, "learned", str(path))
    assert tables.weights == (list(weights.opening), list(weights.ending), 20)
    with pytest.raises(FileError, match="exists already"):
        write_weights(path, weights)


def test_learned_value_is_the_tapered_logistic_of_the_features(tmp_path):
    for name, maker in MAKERS.items():
        game = maker(seed=2)
        weights = random_weights(game, 2)
        path = write_weights(tmp_path / f"{name}.json", weights)
        tables = tables_for(game, "learned", str(path))
        for state in random_positions(GAMES[name], 5, seed=4):
            backend = game.state_from_bytes(state.to_bytes()).backend
            twin = type(backend).from_bytes(tables, backend.to_bytes())
            x = twin.features(0)
            ph = min(state.to_dict()["turn"], 20) / 20
            z = sum(
                ((1 - ph) * a + ph * b) * v for a, b, v in zip(weights.opening, weights.ending, x)
            )
            assert twin.evaluate_learned(0) == pytest.approx(math.tanh(z / 2), abs=1e-9)
            assert twin.evaluate_learned(1) == pytest.approx(-twin.evaluate_learned(0), abs=1e-9)
        assert tables_for(game, "hand") is game.tables


def one_line(error):
    text = str(error.value)
    assert "\n" not in text and len(text) < 300
    return text


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: "not json{", "not a weights file"),
        (lambda d: {**d, "format": "other"}, "not a weights file"),
        (lambda d: {**d, "version": 99}, "version 99"),
        (lambda d: {**d, "game": "hero"}, "weights for 'hero'"),
        (lambda d: {**d, "opening": d["opening"][:-1]}, "one per feature"),
        (lambda d: {**d, "ending": d["ending"][:-1] + ["x"]}, "not a finite number"),
        (lambda d: {**d, "taper_turns": 0}, "taper_turns"),
        (lambda d: {**d, "features": d["features"][:2] * 2}, "distinct"),
    ],
)
def test_broken_weights_files_are_refused_in_one_line(tmp_path, change, message):
    game = AnabasisGame(seed=1)
    data = change(random_weights(game, 3).to_json())
    path = tmp_path / "broken.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    with pytest.raises(WeightsError) as error:
        read_weights(path, "anabasis")
    assert message in one_line(error) and str(path) in str(error.value)


def test_weights_for_other_features_are_refused_in_one_line(tmp_path):
    game = HeroGame(seed=1)
    weights = random_weights(game, 4)
    renamed = Weights(
        "hero", ("hp_new",) + weights.features[1:], weights.opening, weights.ending, 20
    )
    path = write_weights(tmp_path / "other.json", renamed)
    with pytest.raises(WeightsError) as error:
        tables_for(game, "learned", str(path))
    assert "feature 0: 'hp_new' in the file, 'to_move' in the game" in one_line(error)


def test_weights_of_an_earlier_feature_set_evaluate_as_fitted(tmp_path):
    """A file fitted before features were added (each of its features is one
    of the game's) loads with the features it lacks weighing 0, so it scores
    every position as it did: the previous weights stay reachable by file."""
    game = HeroGame(seed=1)
    names = game.tables.feature_names
    full = random_weights(game, 5)
    kept = [i for i, name in enumerate(names) if ":" not in name]  # the scalars alone
    earlier = Weights(
        "hero",
        tuple(names[i] for i in kept),
        tuple(full.opening[i] for i in kept),
        tuple(full.ending[i] for i in kept),
        20,
    )
    tables = tables_for(game, "learned", str(write_weights(tmp_path / "earlier.json", earlier)))
    assert len(kept) < len(names)
    for state in random_positions(GAMES["hero"], 5, seed=6):
        twin = type(state.backend).from_bytes(tables, state.backend.to_bytes())
        x = twin.features(0)
        ph = min(state.to_dict()["turn"], 20) / 20
        z = sum(
            ((1 - ph) * earlier.opening[k] + ph * earlier.ending[k]) * x[i]
            for k, i in enumerate(kept)
        )
        assert twin.evaluate_learned(0) == pytest.approx(math.tanh(z / 2), abs=1e-9)


def test_a_bot_with_a_broken_weights_file_is_one_line_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "xenophon-weights"}')
    code = main(
        [
            "match",
            f"ismcts:iterations=20,eval=learned,weights={path}",
            "random",
            "--game",
            "hero",
            "--games",
            "2",
            "--processes",
            "1",
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1 and "bad.json" in err


@pytest.mark.parametrize("name", GAME_NAMES)
def test_hidden_cards_are_never_read_by_the_learned_evaluation(name, tmp_path):
    """The features read the sampled world only: two states the searcher
    cannot tell apart give the same search with the learned evaluation too."""
    path = str(write_weights(tmp_path / "w.json", random_weights(MAKERS[name](seed=1), 5)))
    pairs = twin_positions(GAMES[name], 20, seed=1)
    for state, twin in pairs:
        bots = [
            ISMCTSBot(iterations=200, seed=5, evaluation="learned", weights=path) for _ in range(2)
        ]
        assert visits(bots[0].analyse(state)) == visits(bots[1].analyse(twin))
    assert len(pairs) >= 5


def test_learned_and_hand_searches_differ(tmp_path):
    game = HeroGame(seed=1)
    path = str(write_weights(tmp_path / "w.json", random_weights(game, 6, scale=2.0)))
    [state] = random_positions(GAMES["hero"], 1, seed=9)
    hand = ISMCTSBot(iterations=300, seed=5, evaluation="hand").analyse(state)
    learned = ISMCTSBot(iterations=300, seed=5, evaluation="learned", weights=path).analyse(state)
    assert visits(hand) != visits(learned)


def test_tune_end_to_end_at_a_tiny_budget(tmp_path, capsys):
    out, report = tmp_path / "w.json", tmp_path / "r.json"
    args = [
        "tune",
        "hero",
        "--games",
        "6",
        "--bot",
        "ismcts:iterations=8",
        "--positions",
        "4",
        "--processes",
        "1",
        "--out",
        str(out),
        "--report",
        str(report),
    ]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "learned evaluation" in printed and "hand-set, best scale" in printed
    weights = read_weights(out, "hero")
    assert weights.made["games"] == 6 and weights.made["command"].startswith("xenophon tune hero")
    summary = json.loads(report.read_text())
    assert set(summary["held_out"]) == {"learned", "hand", "constant"}
    assert summary["positions"]["train"] + summary["positions"]["held_out"] <= 24
    first = out.read_bytes()
    assert main(args) == 2  # the file exists: no --force
    assert "exists already" in capsys.readouterr().err
    assert main(args + ["--force"]) == 0  # same command and seed, same file
    assert out.read_bytes() == first


def test_shipped_weights_fit_the_reference_games():
    for name, maker in MAKERS.items():
        path = shipped_weights_file(name)
        if not path.exists():
            pytest.skip(f"no shipped weights for {name}")
        game = maker(seed=1)
        assert game.tables.weights is not None, game.learned_problem
        assert read_weights(path, name).made.get("command", "").startswith("xenophon tune")


def test_tune_fits_on_an_earlier_generations_games_too(tmp_path, capsys):
    first, second = tmp_path / "gen0.jsonl", tmp_path / "gen1.jsonl"
    tiny = ["--bot", "ismcts:iterations=8", "--positions", "4", "--processes", "1"]
    assert (
        main(
            [
                "tune",
                "hero",
                "--games",
                "4",
                *tiny,
                "--results",
                str(first),
                "--out",
                str(tmp_path / "w0.json"),
            ]
        )
        == 0
    )
    out = tmp_path / "w1.json"
    assert (
        main(
            [
                "tune",
                "hero",
                "--games",
                "4",
                "--seed",
                "101",
                *tiny,
                "--results",
                str(second),
                "--add-games",
                str(first),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "8 games (4 played now" in capsys.readouterr().out
    made = read_weights(out, "hero").made
    assert made["added_games"] == {str(first): 4} and "--add-games" in made["command"]
    positions = made["report"]["positions"]
    assert positions["train"] + positions["held_out"] > 16  # more than 4 games' worth


def test_tune_refuses_another_games_file_with_one_line(tmp_path, capsys):
    ana = tmp_path / "ana.jsonl"
    tiny = ["--bot", "ismcts:iterations=8", "--positions", "2", "--processes", "1"]
    assert (
        main(
            [
                "tune",
                "anabasis",
                "--games",
                "5",
                *tiny,
                "--results",
                str(ana),
                "--out",
                str(tmp_path / "a.json"),
            ]
        )
        == 0
    )
    capsys.readouterr()
    for added in (ana, tmp_path / "missing.jsonl", tmp_path / "a.json"):
        assert (
            main(
                [
                    "tune",
                    "hero",
                    "--games",
                    "2",
                    *tiny,
                    "--add-games",
                    str(added),
                    "--out",
                    str(tmp_path / "h.json"),
                ]
            )
            == 2
        )
        error = capsys.readouterr().err.strip()
        assert error.count("\n") == 0 and str(added) in error, error
    assert not (tmp_path / "h.json").exists()
    assert (
        main(
            [
                "tune",
                "anabasis",
                "--games",
                "5",
                *tiny,
                "--results",
                str(ana),
                "--add-games",
                str(ana),
                "--resume",
                "--out",
                str(tmp_path / "a2.json"),
            ]
        )
        == 2
    )
    assert "earlier runs" in capsys.readouterr().err


def test_feature_scaling_keeps_a_phase_rare_feature_from_a_large_weight():
    rng = np.random.default_rng(3)
    n = 4000
    turn = rng.integers(0, 40, n).astype(float)
    common = rng.normal(size=n)
    late = np.where(turn > 30, rng.normal(size=n), 0.0)
    late[turn < 4] = rng.normal(scale=0.02, size=(turn < 4).sum())  # barely varies early
    x = np.column_stack([common, late])
    y = (rng.random(n) < tune.sigmoid(common - late)).astype(float)
    a = tune.tapered(x, turn, 40)
    scales = tune.column_scales(a, "feature")
    assert scales[1] == scales[3] and scales[0] == scales[2]
    by_feature = tune._scaled_fit(a, y, 0.05, "feature")
    by_column = tune._scaled_fit(a, y, 0.05, "column")
    assert abs(by_feature[1]) < abs(by_column[1])  # the rare opening weight is held down
    assert by_feature[3] < 0 and by_feature[0] > 0  # the signs the data have


def test_the_cutoff_follows_the_game_and_its_evaluation_unless_given():
    hero, anabasis = HeroGame(seed=1), AnabasisGame(seed=1)
    assert ISMCTSBot(evaluation="learned").cutoff_for(hero) == 0
    assert ISMCTSBot(evaluation="hand").cutoff_for(hero) == 4
    assert ISMCTSBot().cutoff_for(anabasis) == 4
    assert ISMCTSBot(evaluation="learned", cutoff_turns=2).cutoff_for(hero) == 2
