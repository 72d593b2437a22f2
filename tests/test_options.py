"""Every option, bot spec and game spec is checked before any work: a bad value
(a wrong type, out of range, zero, negative, NaN, an unknown key) gets one
line naming the option and exit 2, never a traceback; output files are
checked before the work and written atomically."""

import json
import math
import os
import time

import pytest

from conftest import run_cli
from test_cli import assert_clean_error
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.files import FileError
from xenophon.kernel.registry import SpecError, game_from_spec, game_with_options, make_game
from xenophon.lab.tournament import GameRecord, MatchReport, make_bot, play_match
from xenophon.play.levels import bot_for_level
from xenophon.search import bots
from xenophon.search.bots import (
    MAX_ITERATIONS,
    MAX_SECONDS,
    MAX_WORKERS,
    GreedyBot,
    ISMCTSBot,
    PIMCBot,
    RandomBot,
    SettingError,
)


def cli_lines(*argv):
    """The command run in this process: (exit code, stderr lines)."""
    result = run_cli(*argv)
    return result.returncode, [line for line in result.stderr.splitlines() if line.strip()]


def assert_one_line(fragment, *argv):
    code, err = cli_lines(*argv)
    assert code == 2, (code, err)
    assert len(err) == 1, err
    assert fragment in err[0], err[0]


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    """A short finished Anabasis record (random against random)."""
    folder = tmp_path_factory.mktemp("record")
    result = run_cli(
        "selfplay",
        "anabasis",
        "--bots",
        "random;random",
        "--games",
        "1",
        "--seed",
        "3",
        "--out",
        folder,
    )
    assert result.returncode == 0, result.stderr
    return next(folder.glob("*.jsonl"))


# -- bot specs --------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("ismcts:iterations=-5", "'iterations'"),
        ("ismcts:iterations=0", "'iterations'"),
        ("ismcts:iterations=abc", "'iterations'"),
        ("ismcts:iterations=2.5", "'iterations'"),
        (f"ismcts:iterations={MAX_ITERATIONS + 1}", "'iterations'"),
        ("pimc:worlds=0", "'worlds'"),
        ("pimc:worlds=-3", "'worlds'"),
        ("ismcts:workers=0", "'workers'"),
        (f"ismcts:workers={MAX_WORKERS + 1}", "'workers'"),
        ("ismcts:c_uct=-0.5", "'c_uct'"),
        ("ismcts:c_uct=nan", "'c_uct'"),
        ("ismcts:time=0", "'time'"),
        ("ismcts:time=-1", "'time'"),
        ("ismcts:time=nan", "'time'"),
        ("ismcts:time=inf", "'time'"),
        (f"ismcts:time={MAX_SECONDS * 2}", "'time'"),
        ("ismcts:temperature=-1", "'temperature'"),
        ("ismcts:memory_mb=0", "'memory_mb'"),
        ("ismcts:memory_mb=1e9", "'memory_mb'"),
        ("ismcts:memory_mb=0.01,workers=8", "'memory_mb'"),
        ("ismcts:cutoff_turns=-2", "'cutoff_turns'"),
        ("ismcts:max_playout_actions=0", "'max_playout_actions'"),
        ("ismcts:priors=value", "'priors' must be one of playout, net"),
        ("ismcts:priors=net,prior_weight=1", "'priors' net (the network's policy head) goes with"),
        ("ismcts:priors=net,eval=net", "'priors' net needs a 'prior_weight' above 0"),
        ("pimc:priors=net", "no option 'priors'"),
        ("ismcts:uniform_playouts=maybe", "'uniform_playouts'"),
        ("ismcts:uniform_playouts=2", "'uniform_playouts'"),
        ("ismcts:iterations=10,iterations=20", "given twice"),
        ("ismcts:bogus=1", "no option 'bogus'"),
        ("ismcts:time_limit=1", "no option 'time_limit'"),
        ("ismcts:seed=4", "no option 'seed'"),
        ("greedy:samples=0", "'samples'"),
        ("greedy:iterations=5", "no option 'iterations'"),
        ("random:x=1", "no option 'x'"),
        ("ismcts:iterations", "key=value"),
        ("chess", "unknown bot 'chess'"),
    ],
)
def test_bad_bot_spec_is_refused_naming_the_option(spec, fragment):
    with pytest.raises(XenophonError) as caught:
        make_bot(spec, 1)
    message = str(caught.value)
    assert fragment in message and spec in message and "\n" not in message


def test_bad_bot_spec_on_the_command_line_is_one_line():
    assert_one_line("'iterations'", "match", "ismcts:iterations=-5", "greedy")
    assert_one_line("'worlds'", "match", "greedy", "pimc:worlds=0")


def test_good_specs_make_the_bots_they_name():
    bot = make_bot("ismcts:iterations=300,workers=2,c_uct=0.7,uniform_playouts=true", 4)
    assert (bot.iterations, bot.workers, bot.c_uct, bot.uniform_playouts) == (300, 2, 0.7, True)
    assert make_bot("pimc:worlds=4,iterations=40,cutoff_turns=-1", 1).worlds == 4
    assert isinstance(make_bot("greedy:samples=3", 1), GreedyBot)


def test_a_spec_with_a_time_alone_searches_for_that_time_only():
    """'ismcts:time=S' used to keep the default 2,000 iterations as well, so an
    equal-time match stopped at 2,000 iterations however long the time was."""
    bot = make_bot("ismcts:time=0.2", 1)
    assert bot.time_limit == 0.2 and bot.iterations == 0
    both = make_bot("ismcts:time=0.2,iterations=500", 1)
    assert both.time_limit == 0.2 and both.iterations == 500


@pytest.mark.parametrize(
    "make",
    [
        lambda: ISMCTSBot(iterations=-5),
        lambda: ISMCTSBot(iterations=0),
        lambda: ISMCTSBot(iterations="abc"),
        lambda: ISMCTSBot(iterations=True),
        lambda: ISMCTSBot(iterations=None, time_limit=None),
        lambda: ISMCTSBot(time_limit=math.nan),
        lambda: ISMCTSBot(workers=0),
        lambda: ISMCTSBot(workers=MAX_WORKERS + 1),
        lambda: ISMCTSBot(c_uct=-1),
        lambda: ISMCTSBot(temperature=-0.1),
        lambda: ISMCTSBot(memory_mb=0),
        lambda: ISMCTSBot(uniform_playouts="yes"),
        lambda: ISMCTSBot(preset="v0"),
        lambda: ISMCTSBot(value_scaling=True),
        lambda: ISMCTSBot(transpositions="yes"),
        lambda: ISMCTSBot(prior_weight=-0.5),
        lambda: ISMCTSBot(root_policy="ucb"),
        lambda: ISMCTSBot(opponent_nodes="mine"),
        lambda: PIMCBot(worlds=0),
        lambda: PIMCBot(worlds=1024, memory_mb=1),
        lambda: GreedyBot(max_branches=0),
        lambda: RandomBot(seed="x"),
    ],
)
def test_bot_constructors_check_their_settings(make):
    with pytest.raises(SettingError):
        make()


def test_a_tiny_temperature_does_not_overflow():
    state = make_game("anabasis", seed=2).new_initial_state()
    state.resolve_chance(make_game("anabasis", seed=2).rng)
    bot = ISMCTSBot(iterations=200, temperature=0.001, seed=1)
    assert bot.choose(state) in state.legal_moves()


# -- game specs ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec",
    [
        "hero:decks=wild_grove+crimson_conqueror",
        "hero:decks=wild_grove,crimson_conqueror",
        "hero:decks=wild_grove, crimson_conqueror,cards=",
    ],
)
def test_both_hero_decks_in_a_game_spec(spec):
    game = game_from_spec(spec)
    assert game.deck_specs == ["wild_grove", "crimson_conqueror"]


def test_match_takes_both_hero_decks():
    code, err = cli_lines(
        "match",
        "greedy",
        "random",
        "--game",
        "hero:decks=wild_grove+crimson_conqueror",
        "--games",
        "1",
        "--processes",
        "1",
    )
    assert code == 0, err


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("anabasis:bogus=1", "no option 'bogus'"),
        ("anabasis:decks=a+b", "no option 'decks'"),
        ("anabasis:seed=3", "no option 'seed'"),
        ("anabasis:mode=pro", "mode"),
        ("hero:mode=expert", "no option 'mode'"),
        ("hero:decks=wild_grove", "two decks"),
        ("hero:decks=wild_grove+crimson_conqueror+wild_grove", "two decks"),
        ("hero:decks=wild_grove,crimson_conqueror,wild_grove", "two decks"),
        ("hero:cards=,wild_grove", "joined by '+' or ','"),
        ("hero:wild_grove,decks=wild_grove+crimson_conqueror", "joined by '+' or ','"),
        ("hero:decks=wild_grove+nonsense", "nonsense"),
        ("hero:cards=/dev/zero", "not a regular file"),
        ("hero:decks=/dev/zero+wild_grove", "not a regular file"),
        ("chess", "unknown game"),
    ],
)
def test_bad_game_spec_is_refused_naming_the_option(spec, fragment):
    with pytest.raises(XenophonError) as caught:
        game_from_spec(spec)
    assert fragment in str(caught.value)


def test_game_options_from_data_are_checked():
    for options in (
        {"mode": 5},
        {"cards": 3},
        {"decks": "wild_grove"},
        {"decks": ["wild_grove", 7]},
        {"decks": ["wild_grove", "a\0b.toml"]},
    ):
        name = "hero" if "decks" in options else "anabasis"
        with pytest.raises(SpecError):
            make_game(name, **options)
    for options in ({"seed": 3}, {"engine": "oracle"}):  # arguments, not options
        with pytest.raises(SpecError, match="no option"):
            game_with_options("anabasis", options)
    with pytest.raises(SpecError, match="seed"):
        make_game("anabasis", seed="x")


# -- command-line options --------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, fragment",
    [
        (("analyse", "{record}", "--as", "1", "--iterations", "0"), "--iterations"),
        (("analyse", "{record}", "--as", "1", "--iterations", "-3"), "--iterations"),
        (
            ("analyse", "{record}", "--as", "1", "--iterations", str(MAX_ITERATIONS + 1)),
            "--iterations",
        ),
        (("analyse", "{record}", "--as", "1", "--top", "0"), "--top"),
        (("analyse", "{record}", "--as", "1", "--time", "0"), "--time"),
        (("analyse", "{record}", "--as", "1", "--time", "-1"), "--time"),
        (("analyse", "{record}", "--as", "1", "--time", "nan"), "--time"),
        (("analyse", "{record}", "--as", "1", "--time", "inf"), "--time"),
        (("suggest", "{record}", "--as", "1", "--workers", "0"), "--workers"),
        (("suggest", "{record}", "--as", "1", "--workers", "100000"), "--workers"),
        (("analyse", "{record}", "--as", "1", "--turn", "-1"), "--turn"),
        (("review", "{record}", "--as", "0", "--threshold", "-1"), "--threshold"),
        (("review", "{record}", "--as", "0", "--threshold", "1.5"), "--threshold"),
        (("review", "{record}", "--as", "0", "--threshold", "nan"), "--threshold"),
        (("match", "greedy", "random", "--games", "0"), "--games"),
        (("match", "greedy", "random", "--games", "-1"), "--games"),
        (("match", "greedy", "random", "--processes", "0"), "--processes"),
        (("match", "greedy", "random", "--sprt", "5,0"), "--sprt"),
        (("match", "greedy", "random", "--sprt", "0,0"), "--sprt"),
        (("match", "greedy", "random", "--sprt", "a,b"), "--sprt"),
        (("match", "greedy", "random", "--sprt", "0,nan"), "--sprt"),
        (("match", "greedy", "random", "--sprt", "0,1e9"), "--sprt"),
        (("bench", "--games", "1"), "--games"),
        (("bench", "--iterations", "0"), "--iterations"),
        (("bench", "--match-iterations", "-1"), "--match-iterations"),
        (("bench", "--move-time", "0"), "--move-time"),
        (("bench", "--move-time", "nan"), "--move-time"),
        (("bench", "--processes", "0"), "--processes"),
        (("bench", "--sprt", "20,10"), "--sprt"),
    ],
)
def test_bad_option_is_one_line_naming_it(record, argv, fragment):
    assert_one_line(fragment, *(a.format(record=record) for a in argv))


def test_play_refuses_a_huge_level_at_once(tmp_path):
    start = time.monotonic()
    result = run_cli(
        "play",
        "anabasis",
        "--level",
        "99999999999",
        "--seed",
        "1",
        input_text="",
        home=tmp_path,
        timeout=30,
    )
    assert time.monotonic() - start < 30
    assert_clean_error(result, "level '99999999999'")


@pytest.mark.parametrize(
    "level",
    ["0", "-5", "0s", "-1s", "nans", "infs", f"{MAX_SECONDS * 2}s", str(MAX_ITERATIONS + 1)],
)
def test_levels_have_the_engine_caps(level):
    with pytest.raises(XenophonError, match="level"):
        bot_for_level(level, 1)


def test_level_workers_are_capped():
    for workers in (0, MAX_WORKERS + 1):
        with pytest.raises(XenophonError, match="--workers"):
            bot_for_level("easy", 1, workers)
    assert bot_for_level("max", 1).workers <= MAX_WORKERS


def test_one_owner_of_the_caps():
    from xenophon.protocol import engine

    assert not hasattr(engine, "MAX_ITERATIONS")
    assert bots.SETTINGS["iterations"].most == MAX_ITERATIONS
    assert bots.SETTINGS["time_limit"].most == MAX_SECONDS
    assert bots.SETTINGS["workers"].most == MAX_WORKERS


# -- output files ---------------------------------------------------------------------------
def output_cases(tmp_path, record):
    """(path, extra options, what the line says) for each output that must be refused."""
    existing = tmp_path / "exists.out"
    existing.write_text("keep me")
    cases = [
        (tmp_path, [], "is a folder"),
        (tmp_path / "missing" / "x.out", [], "does not exist"),
        (existing, [], "exists already"),
        ("/dev/null", ["--force"], "not a regular file"),
        (record, ["--force"], "input"),
    ]
    if os.geteuid() != 0:  # root may write anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((locked / "x.out", [], "not writable"))
    return cases


SLOW = {  # a command whose work would take minutes, then writing to the path
    "review": lambda record: ["review", record, "--as", "0", "--iterations", "2000000", "--svg"],
    "match": lambda record: [
        "match",
        "ismcts:iterations=2000000",
        "greedy",
        "--games",
        "2",
        "--processes",
        "1",
        "--json",
    ],
}


@pytest.mark.parametrize("command", sorted(SLOW))
def test_output_file_is_checked_before_the_work(tmp_path, record, command):
    before = record.read_bytes()
    for path, extra, fragment in output_cases(tmp_path, record):
        if command == "match" and fragment == "input":
            continue  # a match reads no file
        start = time.monotonic()
        result = run_cli(*SLOW[command](record), path, *extra, timeout=60)
        assert time.monotonic() - start < 30, "the work ran before the check"
        assert_clean_error(result, fragment)
    assert (tmp_path / "exists.out").read_text() == "keep me"
    assert record.read_bytes() == before
    assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))


def test_match_json_never_replaces_a_deck_file_it_reads(tmp_path):
    from xenophon.hero.cards import default_deck_dir

    deck = tmp_path / "my_deck.toml"
    deck.write_bytes((default_deck_dir() / "wild_grove.toml").read_bytes())
    before = deck.read_bytes()
    assert_one_line(
        "input",
        "match",
        "greedy",
        "random",
        "--games",
        "1",
        "--game",
        f"hero:decks={deck}+crimson_conqueror",
        "--json",
        deck,
        "--force",
    )
    assert deck.read_bytes() == before


def test_bench_json_is_checked_before_the_run(tmp_path):
    result = run_cli("bench", "--quick", "--only", "core", "--game", "hero", "--json", tmp_path)
    assert_clean_error(result, "is a folder")
    existing = tmp_path / "results.json"
    existing.write_text("keep me")
    assert_clean_error(
        run_cli("bench", "--quick", "--only", "core", "--game", "hero", "--json", existing),
        "exists already",
    )
    assert existing.read_text() == "keep me"
    result = run_cli(
        "bench",
        "--quick",
        "--only",
        "core",
        "--game",
        "hero",
        "--json",
        existing,
        "--force",
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(existing.read_text())["tables"]["hero"]
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]
    positions = tmp_path / "positions.json"
    positions.write_text("[]")
    assert_clean_error(
        run_cli("bench", "--quick", "--positions", positions, "--json", positions, "--force"),
        "input",
    )
    assert positions.read_text() == "[]"


def test_outputs_are_replaced_with_force(tmp_path, record):
    svg, report = tmp_path / "curve.svg", tmp_path / "match.json"
    svg.write_text("old")
    report.write_text("old")
    assert (
        cli_lines("review", record, "--as", "0", "--iterations", "5", "--svg", svg, "--force")[0]
        == 0
    )
    assert svg.read_text().startswith("<?xml") and "<svg" in svg.read_text()
    assert (
        cli_lines(
            "match",
            "greedy",
            "random",
            "--games",
            "1",
            "--processes",
            "1",
            "--json",
            report,
            "--force",
        )[0]
        == 0
    )
    assert json.loads(report.read_text())["summary"]["games"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.svg", "match.json"]


def test_match_report_is_written_atomically(tmp_path):
    report = MatchReport("anabasis", "greedy", "random")
    report.add(GameRecord(1, 0, [1.0, -1.0], 3, 40))
    folder = tmp_path / "a folder"
    (folder / "inside").mkdir(parents=True)
    with pytest.raises(FileError):
        report.write_json(str(folder))  # cannot replace a folder: nothing left behind
    assert [p.name for p in tmp_path.iterdir()] == ["a folder"]
    assert [p.name for p in folder.iterdir()] == ["inside"]
    report.write_json(str(tmp_path / "report.json"))
    assert json.loads((tmp_path / "report.json").read_text())["summary"]["games"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a folder", "report.json"]


def test_play_match_checks_its_arguments():
    for games, processes in ((0, 1), (-1, 1), (2, 0), (2, 10**6)):
        with pytest.raises(XenophonError):
            play_match(
                "anabasis", "greedy", "random", games=games, processes=processes, progress=False
            )
    for sprt in ((5, 0, 0.05, 0.05), (0, 10, 0, 0.05), (0, math.nan, 0.05, 0.05)):
        with pytest.raises(XenophonError, match="SPRT"):
            play_match(
                "anabasis", "greedy", "random", games=2, processes=1, progress=False, sprt=sprt
            )


@pytest.mark.parametrize(
    "name, texts",
    [
        ("anabasis", {"mode": "expert"}),
        ("hero", {"decks": "wild_grove+crimson_conqueror"}),
        ("hero", {"decks": "wild_grove,crimson_conqueror"}),
    ],
)
def test_game_options_go_to_text_and_back(name, texts):
    """One registry of game options serves specs, flags, OpenSpiel and records."""
    from xenophon.kernel.registry import GAME_OPTIONS, game_from_texts, game_options_as_text

    game = game_from_texts(name, texts)
    again = game_from_texts(name, game_options_as_text(game))
    assert again.options() == game.options() and again.card_digest() == game.card_digest()
    assert set(game.options()) <= set(GAME_OPTIONS[name])
    assert (
        game_from_spec(
            f"{name}:" + ",".join(f"{k}={v}" for k, v in game_options_as_text(game).items())
        ).options()
        == game.options()
    )
