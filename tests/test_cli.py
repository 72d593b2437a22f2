"""The `xenophon` command driven as a user would: subprocesses with scripted
input, for both games, including every error path."""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GAME_NAMES, run_cli

GAMES = GAME_NAMES


def xenophon(*args, input_text=None, env_home=None, timeout=600):
    """`xenophon ARGS` in a process of its own (run_cli runs it in this one)."""
    env = dict(os.environ)
    if env_home is not None:
        env["XDG_DATA_HOME"] = str(env_home)
    env.pop("NO_COLOR", None)
    return subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", *map(str, args)],
        input=input_text,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def ctrl_c_as_on_a_terminal() -> None:
    """Popen's preexec_fn for a child the test will send Ctrl-C (SIGINT): its
    default disposition, as a command typed at a terminal has it. A test run
    started in the background of a non-interactive shell has SIGINT ignored,
    and children inherit that; Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def saved_records(home):
    return sorted((Path(home) / "xenophon" / "games").glob("*.jsonl"))


def assert_clean_error(result, fragment):
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert fragment in lines[0], lines[0]


# A human who only ever ends phases and passes: enough to finish a game.
PASSIVE = "end\npass\n" * 3000


@pytest.fixture(scope="module")
def finished_games(tmp_path_factory):
    """One whole game of each game played through `play` against level easy."""
    records = {}
    for game in GAMES:
        home = tmp_path_factory.mktemp(game)
        result = run_cli(
            "play",
            game,
            "--level",
            "easy",
            "--seed",
            "3",
            "--seat",
            "1",
            input_text=PASSIVE,
            home=home,
        )
        assert result.returncode == 0, result.stderr
        assert (
            "The AI wins." in result.stdout
            or "You win." in result.stdout
            or "Draw." in result.stdout
        )
        records[game] = saved_records(home)[-1]
    return records


@pytest.mark.parametrize("game", GAME_NAMES)
def test_rules_teach_how_to_win_a_turn_and_every_card(game):
    """Issue 49, item 16: `xenophon rules GAME`, from the game's plugin."""
    from xenophon.kernel.registry import make_game

    result = run_cli("rules", game)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith("How to win: ") and "A turn, step by step:" in text
    assert all(len(line) <= 79 for line in text.splitlines())
    made = make_game(game)
    names = [card.name for card in made.cards.cards]
    names += [avatar.name for avatar in getattr(made.cards, "avatars", ())]
    missing = [name for name in names if f"\n{name} (" not in text]
    assert not missing, missing
    # every move the turn shows is written as the notation parses it
    state = made.new_initial_state()
    examples = [
        found.group(1)
        for found in map(re.compile(r"^   (\S.*?)\s{2,}\S").match, text.splitlines())
        if found
    ]
    assert len(examples) >= 7, examples
    fill = {"CARD": names[-1], "[on UNIT]": "", "[...]": "", "SQUARE": "b2", " N": " 1"}
    read = str  # as the terminal reads it: Hero units by their letters (xenophon.hero.names)
    if game == "hero":
        from xenophon.hero.names import UnitNames

        units = UnitNames(((("a",), ("b", "c")), (("a",), ("b",))), (3, 2))
        read = lambda text: units.notation(text, 0)  # noqa: E731
    for example in examples:
        if example.startswith(("buy", "place", "set", "deploy", "play", "retainer")):
            continue  # a card name of the right kind is the notation's business
        for placeholder, value in fill.items():
            example = example.replace(placeholder, value)
        state.parse_code(read(example.replace("[", "").replace("]", "").strip()))
    assert_clean_error(run_cli("rules", "chess"), "invalid choice")


def test_help_and_version():
    result = run_cli("--help")
    assert result.returncode == 0
    for command in (
        "play",
        "analyse",
        "suggest",
        "review",
        "selfplay",
        "replay",
        "export",
        "match",
        "engine",
    ):
        assert command in result.stdout
    assert run_cli("--version").stdout.startswith("xenophon ")


@pytest.mark.parametrize("game", GAMES)
def test_whole_game_through_play(finished_games, game):
    lines = finished_games[game].read_text().splitlines()
    header = json.loads(lines[0])
    assert header["game"] == game and header["seats"][1] == "human"
    assert json.loads(lines[-1])["result"] in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    replay = run_cli("replay", finished_games[game])
    assert replay.returncode == 0 and "result:" in replay.stdout


@pytest.mark.parametrize("game", GAMES)
def test_hint_undo_save_and_resume(tmp_path, game):
    script = "moves\nhint\nhelp\nnot-a-move\nend\nundo\nsave {}\nquit\n".format(
        tmp_path / "mine.jsonl"
    )
    result = run_cli(
        "play",
        game,
        "--seat",
        "0",
        "--seed",
        "5",
        "--level",
        "easy",
        input_text=script,
        home=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "AI's view for you" in out and "win" in out
    assert "Back to your previous decision." in out
    assert "unknown move" in out or "not legal" in out
    assert (tmp_path / "mine.jsonl").exists()
    saved = [p for p in saved_records(tmp_path)]
    assert saved and "Resume it with" in out
    resumed = run_cli("play", "--resume", saved[-1], input_text="quit\n", home=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "you are seat 0" in resumed.stdout


def test_play_saves_on_end_of_input(tmp_path):
    result = run_cli(
        "play",
        "anabasis",
        "--seat",
        "0",
        "--seed",
        "1",
        "--level",
        "easy",
        input_text="end\n",  # a game left before the first move leaves no file
        home=tmp_path,
    )
    assert result.returncode == 0
    assert saved_records(tmp_path)


def test_ai_hidden_moves_are_not_shown(finished_games):
    """The AI's draws and deals never reach the human's screen or board."""
    result = run_cli(
        "play", "anabasis", "--level", "easy", "--seed", "3", "--seat", "1", input_text="quit\n"
    )
    assert "(hidden from you)" in result.stdout
    assert "your event slots are" in result.stdout  # the human's own deals are shown


@pytest.mark.parametrize("game", GAMES)
def test_analyse_suggest_review(finished_games, tmp_path, game):
    record = finished_games[game]
    analysed = run_cli("analyse", record, "--as", "1", "--iterations", "300", "--json")
    assert analysed.returncode == 0, analysed.stderr
    data = json.loads(analysed.stdout)
    assert data["seat"] == 1 and data["moves"] and data["iterations"] > 0
    for move in data["moves"]:
        assert 0 <= move["lower_bound"] <= move["win_probability"] <= 1
    table = run_cli("analyse", record, "--as", "1", "--turn", "4", "--iterations", "200")
    assert table.returncode == 0 and "visits" in table.stdout
    suggested = run_cli("suggest", record, "--as", "0", "--iterations", "200")
    assert suggested.returncode == 0 and "win" in suggested.stdout
    svg = tmp_path / "curve.svg"
    review = run_cli("review", record, "--as", "1", "--iterations", "60", "--svg", svg)
    assert review.returncode == 0, review.stderr
    assert (
        "win probability before each decision" in review.stdout and "<svg" in svg.read_text()[:500]
    )


@pytest.mark.parametrize("game", GAMES)
def test_redacted_record_hides_and_still_analyses(finished_games, tmp_path, game):
    redacted = tmp_path / "seat1.jsonl"
    result = run_cli("export", finished_games[game], "--as", "1", "--out", redacted)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in redacted.read_text().splitlines()]
    assert lines[0]["view"] == 1
    hidden = [line for line in lines[1:] if line.get("hidden")]
    assert hidden and all("move" not in line for line in hidden)
    assert all(line.get("seat") != 1 for line in hidden)  # a seat sees its own moves
    analysed = run_cli("analyse", redacted, "--iterations", "200", "--json")
    assert analysed.returncode == 0, analysed.stderr
    assert json.loads(analysed.stdout)["seat"] == 1
    other_seat = run_cli("analyse", redacted, "--as", "0", "--iterations", "50")
    assert_clean_error(other_seat, "redacted for seat 1")


def test_selfplay_and_match(tmp_path):
    result = run_cli(
        "selfplay",
        "hero",
        "--bots",
        "random;greedy",
        "--games",
        "2",
        "--seed",
        "4",
        "--out",
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert len(list(tmp_path.glob("hero-selfplay-*.jsonl"))) == 2
    report = tmp_path / "match.json"
    match = run_cli(
        "match",
        "greedy",
        "random",
        "--game",
        "anabasis",
        "--games",
        "4",
        "--processes",
        "2",
        "--json",
        report,
    )
    assert match.returncode == 0, match.stderr
    assert "score" in match.stdout and json.loads(report.read_text())["summary"]["games"] == 4


def test_engine_protocol(finished_games):
    queries = [
        {"id": 1, "game": "anabasis", "moves": [], "iterations": 10},
        {"id": 2, "record": str(finished_games["anabasis"]), "iterations": 10},
        "this is not json",
        {"id": 4, "game": "chess", "moves": []},
        {"id": 5, "game": "hero", "moves": ["draw Fireball", "jump"]},
        {
            "id": 6,
            "game": "hero",
            "options": {"decks": ["wild_grove", "crimson_conqueror"]},
            "moves": [],
            "iterations": 0,
        },
    ]
    # a position of each game where a player decides: replay a short prefix
    record_lines = [
        json.loads(line) for line in finished_games["hero"].read_text().splitlines()[1:40]
    ]
    hero_moves = [line["move"] for line in record_lines if "move" in line]
    queries.append(
        {"id": 7, "game": "hero", "moves": hero_moves, "iterations": 300, "stream": 0.01, "top": 3}
    )
    # a file of queries ends with quit: at the end of the input without one,
    # the analyses not yet answered are cancelled
    queries.append({"command": "quit"})
    text = "\n".join(q if isinstance(q, str) else json.dumps(q) for q in queries) + "\n"
    result = run_cli("engine", input_text=text)
    assert result.returncode == 0, result.stderr
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    by_id = {}
    for answer in answers:
        by_id.setdefault(answer["id"], []).append(answer)
    assert "chance node" in by_id[1][0]["error"]
    assert "error" in by_id[2][0] or by_id[2][0]["final"]
    assert "not valid JSON" in by_id[None][0]["error"]
    assert "unknown game" in by_id[4][0]["error"]
    assert "move 2" in by_id[5][0]["error"]
    assert "iterations" in by_id[6][0]["error"]
    final = by_id[7][-1]
    assert final["final"] and len(final["moves"]) <= 3 and final["iterations"] == 300


def test_error_paths(tmp_path):
    assert_clean_error(run_cli("play", "chess"), "invalid choice")
    assert_clean_error(run_cli("play", "anabasis", "--level", "genius"), "unknown level")
    assert_clean_error(run_cli("frobnicate"), "invalid choice")
    assert_clean_error(run_cli(), "name a command")
    assert_clean_error(run_cli("analyse", "--bogus-option", "x"), "unrecognized arguments")
    # no abbreviations: `--game` is not read as selfplay's `--games`, and the
    # line names the command whose help to read
    result = run_cli("selfplay", "--game", "anabasis", "--out", str(tmp_path / "games"))
    assert_clean_error(result, "xenophon selfplay: error: unrecognized arguments: --game")
    assert "selfplay --help" in result.stderr
    assert not (tmp_path / "games").exists()
    missing = run_cli("replay", tmp_path / "nope.jsonl")
    assert_clean_error(missing, "cannot read record")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"format": "xenophon-record", "game": "anabasis"')
    assert_clean_error(run_cli("replay", broken), "not valid JSON")
    cards = tmp_path / "cards.toml"
    cards.write_text('[[character]]\nname = "Blob"\n')
    assert_clean_error(run_cli("play", "anabasis", "--cards", cards), "Blob")
    bad_deck = run_cli("play", "hero", "--decks", "wild_grove,nonsense")
    assert_clean_error(bad_deck, "nonsense")


def test_illegal_move_in_a_record_and_truncated_record(finished_games, tmp_path):
    lines = finished_games["anabasis"].read_text().splitlines()
    tampered = tmp_path / "tampered.jsonl"
    moved = [json.loads(line) for line in lines]
    for line in moved[1:]:
        if line.get("seat") == 1 and line.get("move", "").startswith("end"):
            line["move"] = "attack a1xa6"
            break
    tampered.write_text("\n".join(json.dumps(line) for line in moved) + "\n")
    before = tampered.read_text()
    assert_clean_error(run_cli("analyse", tampered, "--iterations", "10"), "line")
    assert tampered.read_text() == before  # nothing the user saved is touched
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_text("\n".join(lines[:30]) + "\n" + lines[30][:10])
    assert_clean_error(run_cli("replay", truncated), "truncated")
