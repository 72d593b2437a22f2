"""External players (`cmd:PROGRAM ARGS`, `python:MODULE:CLASS`; docs/players.md):
the examples play whole matches against `random` in both games; a player
that crashes, hangs, answers an illegal move or garbage loses that game with
the reason recorded, and the match goes on; no child process outlives its
game; the view a seat is sent is the same in every world it cannot tell
apart; a bad spec is one clear line."""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from test_cli import xenophon
from xenophon.kernel.naming import MoveNames, has_names
from xenophon.kernel.registry import GAMES, SpecError, game_from_spec
from xenophon.lab.selfplay import selfplay_job
from xenophon.lab.tournament import play_match, play_one
from xenophon.play.external import (
    ExternalPlayer,
    Forfeit,
    decision_message,
    forfeit_returns,
    parse_external,
    play_step,
)
from xenophon.play.players import make_bot
from xenophon.play.records import load_record
from xenophon.play.session import DEFAULT_LEVEL, resumed_game

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PY_CMD = f"cmd:{sys.executable} {EXAMPLES / 'random_player.py'}"
PY_CLASS = f"python:{EXAMPLES / 'random_player.py'}:RandomPlayer"
SH_CMD = f"cmd:{EXAMPLES / 'random_player.sh'}"
#: a per-move limit a test's misbehaving players run into; the good ones answer in milliseconds
SHORT = "time=1,startup=30"

#: a player that plays randomly for `GOOD` decisions, then misbehaves as its
#: first argument says; it writes its pid (and that of a child it starts) to
#: the file of its second argument
BAD_PLAYER = textwrap.dedent(
    """
    import json, os, random, subprocess, sys, time
    mode, pids = sys.argv[1], sys.argv[2]
    GOOD = 3
    with open(pids, "a") as out:
        out.write(f"{os.getpid()}\\n")
    decisions = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            reply = {"type": "ready", "protocol": 1}
        elif message["type"] == "move":
            decisions += 1
            reply = {"move": random.choice(message["legal_moves"])}
            if decisions > GOOD:
                if mode == "crash":
                    print("Traceback: something went wrong", file=sys.stderr)
                    sys.exit(3)
                if mode == "timeout":
                    child = subprocess.Popen(["sleep", "600"])
                    with open(pids, "a") as out:
                        out.write(f"{child.pid}\\n")
                    time.sleep(600)
                if mode == "illegal":
                    reply = {"move": "castle queenside"}
                if mode == "garbage":
                    print("I think I will play the best move", flush=True)
                    continue
        else:
            break
        print(json.dumps(reply), flush=True)
    """
)


def run(*args):
    """The command in a child process: (exit code, stdout, stderr)."""
    done = xenophon(*args)
    return done.returncode, done.stdout, done.stderr


def running(pid: int) -> bool:
    """Whether a process runs (a zombie left to an init that does not reap is not running)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def pids_in(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.fixture
def bad_player(tmp_path):
    script = tmp_path / "bad_player.py"
    script.write_text(BAD_PLAYER)
    pids = tmp_path / "pids"

    def spec(mode: str) -> str:
        return f"cmd[{SHORT}]:{sys.executable} {script} {mode} {pids}"

    spec.pids = pids  # type: ignore[attr-defined]
    return spec


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("player", [PY_CMD, PY_CLASS, SH_CMD], ids=["py-cmd", "py-class", "sh"])
def test_an_example_plays_a_match_against_random(game, player):
    if player == SH_CMD and shutil.which("awk") is None:
        pytest.skip("no awk")
    report = play_match(game, player, "random", games=4, processes=1, progress=False)
    summary = report.summary()
    assert report.games == 4 and summary["forfeits"] == {"a": {}, "b": {}}
    assert all(record.forfeit is None for record in report.records)
    assert summary["deal_fit"]["elo"] is not None  # the Elo within a deal, like any bot's
    assert "Elo within a deal" in report.text()


def test_the_examples_play_as_seeded():
    """Same seed, same game: the start message gives each player its seed."""
    game = GAMES[0]
    for player in (PY_CMD, PY_CLASS, SH_CMD):
        first, second = (play_one(game, [player, "random"], 5, 0) for _ in range(2))
        assert first == second


@pytest.mark.parametrize("mode", ["crash", "timeout", "illegal", "garbage"])
def test_a_misbehaving_player_loses_that_game_and_the_match_goes_on(bad_player, mode):
    reasons = {"crash": "crash", "timeout": "timeout", "illegal": "illegal", "garbage": "malformed"}
    report = play_match(GAMES[-1], bad_player(mode), "random", games=2, processes=1, progress=False)
    assert report.games == 2 and report.losses == 2  # both games lost, neither stopped the match
    for record in report.records:
        seat_of_bad = record.first_seat_of_a
        assert record.forfeit["seat"] == seat_of_bad
        assert record.forfeit["reason"] == reasons[mode]
        assert record.returns == forfeit_returns(seat_of_bad)
    assert report.forfeits() == {"a": {reasons[mode]: 2}, "b": {}}
    assert f"forfeits: A 2 ({reasons[mode]} 2), B 0" in report.text()
    message = report.records[0].forfeit["message"]
    expected = {
        "crash": "status 3; its last error line: Traceback: something went wrong",
        "timeout": "no answer within 1 s",
        "illegal": "castle queenside",
        "garbage": "not a JSON object: I think I will play",
    }
    assert expected[mode] in message
    pids = pids_in(bad_player.pids)
    assert len(pids) >= 2 and not any(running(pid) for pid in pids)  # no child left, grandchild too


def test_a_forfeit_is_kept_in_the_results_file_and_the_json_report(bad_player, tmp_path):
    results, report = tmp_path / "results.jsonl", tmp_path / "report.json"
    code, out, err = run(
        "match", bad_player("illegal"), "random", "--game", GAMES[0], "--games", "2",
        "--processes", "1", "--results", results, "--json", report,
    )  # fmt: skip
    assert code == 0, err
    assert "forfeits: A 2 (illegal 2), B 0" in out
    lines = [json.loads(line) for line in results.read_text().splitlines()[1:]]
    assert [line["forfeit"]["reason"] for line in lines] == ["illegal", "illegal"]
    written = json.loads(report.read_text())
    assert written["summary"]["forfeits"] == {"a": {"illegal": 2}, "b": {}}
    assert all(game["forfeit"]["seat"] == game["first_seat_of_a"] for game in written["games"])


def test_a_game_played_out_keeps_its_results_line(tmp_path):
    """No `forfeit` field where no one forfeited: results files read as before."""
    results = tmp_path / "results.jsonl"
    play_match(
        GAMES[0], "random", "random", games=2, processes=1, progress=False, results=str(results)
    )
    lines = [json.loads(line) for line in results.read_text().splitlines()[1:]]
    assert all("forfeit" not in line for line in lines)


def test_a_python_class_that_raises_loses_with_its_error(tmp_path, monkeypatch):
    module = tmp_path / "raising_player.py"
    module.write_text(
        "class Player:\n"
        "    def choose(self, view, legal_moves):\n"
        "        print('thinking')  # what a class prints is no answer\n"
        "        raise ZeroDivisionError('no idea what to play')\n"
    )
    monkeypatch.chdir(tmp_path)
    record = play_one(GAMES[0], ["python:raising_player:Player", "random"], 1, 1)
    assert record.forfeit["seat"] == 1 and record.forfeit["reason"] == "crash"
    assert "ZeroDivisionError: no idea what to play" in record.forfeit["message"]


def test_selfplay_keeps_a_forfeit_and_a_record_without_a_result(bad_player):
    [game] = selfplay_job(GAMES[0], {}, ["random", bad_player("garbage")], seed=2)
    assert game["forfeit"]["seat"] == 1 and game["forfeit"]["reason"] == "malformed"
    assert game["returns"] == [1.0, -1.0]
    assert not any("result" in row for row in game["record"])


def test_balance_and_selfplay_take_an_external_player(tmp_path):
    code, out, err = run(
        "selfplay", GAMES[0], "--bots", f"{PY_CLASS};random", "--games", "1",
        "--seed", "3", "--out", tmp_path / "records", "--processes", "1",
    )  # fmt: skip
    assert code == 0, err
    assert "returns" in out and "forfeits" not in out
    code, out, err = run(
        "balance", GAMES[0], "--bot", PY_CMD, "--deals", "1", "--out", tmp_path / "b",
        "--processes", "1",
    )  # fmt: skip
    assert code == 0, err
    assert f"{PY_CMD} for both sides" in out


class Recorder:
    """What a player was sent, kept by a Python class the test writes."""

    SOURCE = textwrap.dedent(
        """
        import json, os, random

        class Recorder:
            def __init__(self):
                self.out = open(os.environ["RECORDED_VIEWS"], "a")

            def new_game(self, game, seat, options, seed):
                self.seat = seat

            def choose(self, view, legal_moves):
                self.out.write(json.dumps({"seat": self.seat, "view": view}) + "\\n")
                self.out.flush()
                return random.choice(legal_moves)
        """
    )


@pytest.mark.parametrize("game", GAMES)
def test_the_view_sent_is_the_seats_and_hides_the_opponents_cards(game, tmp_path, monkeypatch):
    (tmp_path / "recorder.py").write_text(Recorder.SOURCE)
    monkeypatch.setenv("RECORDED_VIEWS", str(tmp_path / "views.jsonl"))
    monkeypatch.chdir(tmp_path)
    record = play_one(game, ["python:recorder:Recorder", "random"], 4, 1)
    assert record.forfeit is None
    sent = [json.loads(line) for line in (tmp_path / "views.jsonl").read_text().splitlines()]
    assert sent and all(line["seat"] == 1 for line in sent)
    for line in sent:
        opponent = line["view"]["players"][0]
        assert opponent["hand"] is None and opponent["deck"] is None


@pytest.mark.parametrize("game", GAMES)
def test_a_decision_message_is_equal_in_worlds_the_seat_cannot_tell_apart(game):
    """Every decision of random games: the message sent (view and legal
    moves, in protocol 2 with the pieces' names each seat followed from its
    own views) is the same in worlds resampled for the seat, while the
    worlds themselves differ in what the seat cannot see; both seats follow
    the same names."""
    rng = random.Random(7)
    differing = 0
    for seed in range(2):
        state = game_from_spec(game, seed=seed).new_initial_state()
        players = [ExternalPlayer(parse_external(PY_CLASS), seat) for seat in (0, 1)]
        while not state.is_terminal():
            if state.is_chance():
                play_step(state, state.sample_chance(rng).code, players)
                continue
            seat = state.current_player
            names = players[seat].names
            if has_names(game):  # followed from the start, alike from either seat's views
                assert names is not None and names.names == players[1 - seat].names.names
            else:  # nothing to follow: the engine's notation either way
                assert names is None
                names = MoveNames(game, seat)
            for named in (None, names):  # protocol 1, protocol 2
                message = decision_message(state, seat, "information_state", named)
                assert list(message)[-1] == "legal_moves"
                codes = [
                    state.move(named.read(state, t) if named else t).code
                    for t in message["legal_moves"]
                ]
                assert message["legal_codes"] == codes
                for _ in range(2):
                    world = state.resample(seat, rng)
                    assert decision_message(world, seat, "information_state", named) == message
                    differing += world.to_dict() != state.to_dict()
            play_step(state, rng.choice(state.legal_actions()), players)
    assert differing > 10


class LetterRecorder:
    """A player that keeps what it was sent and plays a move naming a unit
    (attack, move, guard) when it has one; its protocol is the environment's."""

    SOURCE = textwrap.dedent(
        """
        import json, os, random

        class LetterRecorder:
            protocol = json.loads(os.environ["ASKED_PROTOCOL"])

            def __init__(self):
                self.out = open(os.environ["RECORDED_VIEWS"], "a")
                self.rng = random.Random(5)

            def choose(self, view, legal_moves):
                naming = [m for m in legal_moves if m.split()[0] in ("attack", "move", "guard")]
                move = self.rng.choice(naming or legal_moves)
                sent = {"view": view, "legal_moves": legal_moves, "move": move}
                self.out.write(json.dumps(sent) + "\\n")
                self.out.flush()
                return move
        """
    )


#: a unit named by its slot, and a unit named by its letter, in a Hero move
SLOT = re.compile(r"\b(op\.)?[FB][1-5]\b")
LETTER = re.compile(r"(?<!\S)(?:op\.)?[a-z](?!\S)")


def recorded_hero_game(tmp_path, monkeypatch, protocol):
    """What a LetterRecorder answering `protocol` was sent in a Hero game
    against random (seat 0), and the game's record."""
    (tmp_path / "letter_recorder.py").write_text(LetterRecorder.SOURCE)
    monkeypatch.setenv("RECORDED_VIEWS", str(tmp_path / "sent.jsonl"))
    monkeypatch.setenv("ASKED_PROTOCOL", json.dumps(protocol))
    monkeypatch.chdir(tmp_path)
    record = play_one("hero", ["python:letter_recorder:LetterRecorder", "random"], 3, 0)
    sent = tmp_path / "sent.jsonl"
    lines = sent.read_text().splitlines() if sent.exists() else []
    return [json.loads(line) for line in lines], record


def units_by_name(view):
    """{name: (owner, row, index, card)} of the units a protocol-2 view shows."""
    return {
        unit["name"]: (owner, row, index, unit["card"])
        for owner, player in enumerate(view["players"])
        for row in ("front", "back")
        for index, unit in enumerate(player[row])
    }


def test_in_protocol_2_a_hero_unit_keeps_its_letter_while_others_die_or_move(tmp_path, monkeypatch):
    sent, record = recorded_hero_game(tmp_path, monkeypatch, protocol=2)
    assert record.forfeit is None  # its answers, in letters, were read
    moves = [move for line in sent for move in line["legal_moves"]]
    assert not any(SLOT.search(move) for move in moves)
    assert sum(bool(LETTER.search(move)) for move in moves) > 20
    shifted = 0  # units whose place changed between two decisions, their letters kept
    for earlier, later in zip(sent, sent[1:]):
        before, after = units_by_name(earlier["view"]), units_by_name(later["view"])
        for name in before.keys() & after.keys():
            assert before[name][0] == after[name][0] and before[name][3] == after[name][3]
            shifted += before[name][1:3] != after[name][1:3]
        for move in later["legal_moves"]:  # a move names units the view shows
            assert all(name in after for name in LETTER.findall(move)), (move, after)
    assert shifted > 3


def test_a_protocol_1_player_still_plays_in_slots(tmp_path, monkeypatch):
    sent, record = recorded_hero_game(tmp_path, monkeypatch, protocol=1)
    assert record.forfeit is None
    moves = [move for line in sent for move in line["legal_moves"]]
    assert any(SLOT.search(move) for move in moves)
    assert not any(LETTER.search(move) for move in moves)
    units = [
        unit
        for line in sent
        for player in line["view"]["players"]
        for unit in player["front"] + player["back"]
    ]
    assert units and not any("name" in unit for unit in units)


def test_in_play_a_hero_program_is_told_the_letters_the_terminal_shows(tmp_path, monkeypatch):
    """`xenophon play --opponent` in Hero: the program's moves, in its
    letters, are the AI's moves the terminal shows in the human's (its own
    units there with op.)."""
    (tmp_path / "letter_recorder.py").write_text(LetterRecorder.SOURCE)
    monkeypatch.setenv("RECORDED_VIEWS", str(tmp_path / "sent.jsonl"))
    monkeypatch.setenv("ASKED_PROTOCOL", "2")
    opponent = f"python:{tmp_path / 'letter_recorder.py'}:LetterRecorder"
    passive = ("end\n" * 3 + "pass\n" * 3) * 30 + "quit\n"
    done = play_against(tmp_path, opponent, passive, game="hero")
    assert done.returncode == 0, done.stderr
    assert "forfeits" not in done.stdout
    shown = re.findall(r"^AI: (.*)$", done.stdout, re.MULTILINE)
    answered = [json.loads(line)["move"] for line in (tmp_path / "sent.jsonl").open()]

    def as_the_human_reads(move):  # the other side's letters: op. added or taken off
        return LETTER.sub(lambda m: m[0][3:] if m[0].startswith("op.") else "op." + m[0], move)

    naming = [move for move in answered if LETTER.search(move)]
    assert len(naming) > 3
    assert [as_the_human_reads(move) for move in answered[: len(shown)]] == shown


class Follower:
    """Follows a game's names from one seat's views, as a runner shows the steps."""

    def __init__(self, names):
        self.names = names

    def follow(self, seat, before, after, code):
        text = before.format_code(code) if before.observed_by(code, seat) else None
        self.names.step(before, after, before.current_player, text)


def test_an_external_opponent_of_the_gymnasium_env_follows_the_letters():
    """XenophonEnv shows an external opponent (seat 1) every step, so that
    its Hero letters are the game's: after a whole episode they are those
    followed, from the same start, through the agent's views."""
    from xenophon.rl.single import XenophonEnv

    env = XenophonEnv("hero", opponent=PY_CLASS, seat=0)
    _, info = env.reset(seed=3)
    agent = env._players[0] = Follower(env.opponent.names.copy())
    agent.names.seat = 0
    over = False
    while not over:
        code = int(info["action_mask"].nonzero()[0][-1])  # deploys and attacks come last
        _, _, over, _, info = env.step(code)
    assert any(agent.names.names.rows[seat] != ((), ()) for seat in (0, 1))
    assert env.opponent.names.names == agent.names.names


@pytest.mark.parametrize("version", [3, "2", True, None])
def test_a_ready_answer_of_another_protocol_is_malformed(version, tmp_path, monkeypatch):
    sent, record = recorded_hero_game(tmp_path, monkeypatch, protocol=version)
    assert not sent and record.forfeit["reason"] == "malformed"
    assert "the handshake's 'protocol' must be 1 or 2" in record.forfeit["message"]
    assert "\n" not in record.forfeit["message"]


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("cmd:no-such-program-anywhere --fast", "no such program 'no-such-program-anywhere'"),
        ("cmd:", "write it cmd:PROGRAM ARGS"),
        ("cmd:'unclosed", "cannot read the command line"),
        ("cmd[time=0]:sh", "'time' must be seconds from 0.01 to 3600"),
        ("cmd[speed=2]:sh", "cmd has no option 'speed'"),
        ("cmd[time=2:sh", "options go in brackets"),
        ("python:no_such_module_here:Player", "no module named 'no_such_module_here'"),
        (f"python:{EXAMPLES / 'random_player.py'}:NoSuchClass", "has no class 'NoSuchClass'"),
        (f"python:{EXAMPLES / 'random_player.py'}:serve", "has no class 'serve'"),
        ("python:json:JSONDecoder", "has no method choose"),
        ("python:json", "write it python:MODULE:CLASS"),
    ],
)
def test_a_bad_external_spec_is_one_line(spec, words):
    with pytest.raises(SpecError, match=None) as caught:
        make_bot(spec, 0)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_a_bad_external_spec_stops_the_command_before_any_game(tmp_path):
    code, out, err = run("match", "cmd:no-such-program-anywhere", "random", "--games", "2")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "xenophon: bot 'cmd:no-such-program-anywhere': no such program 'no-such-program-anywhere'"
    ]


def test_a_forfeit_names_seat_and_reason():
    lost = Forfeit(1, "timeout", "no answer within 2 s")
    assert lost.record() == {"seat": 1, "reason": "timeout", "message": "no answer within 2 s"}
    assert forfeit_returns(1) == [1.0, -1.0] and forfeit_returns(0) == [-1.0, 1.0]


def test_a_program_that_never_reads_cannot_hang_the_engine(tmp_path):
    """A program that neither reads nor answers: the handshake times out."""
    script = tmp_path / "deaf.sh"
    script.write_text(f"#!/bin/sh\necho $$ > {tmp_path / 'pid'}\nexec sleep 600\n")
    script.chmod(0o755)
    record = play_one(GAMES[0], [f"cmd[startup=0.5]:{script}", "random"], 1, 0)
    assert record.forfeit == {"seat": 0, "reason": "timeout", "message": "no answer within 0.5 s"}
    assert not running(pids_in(tmp_path / "pid")[0])


# -- as `xenophon play`'s opponent --------------------------------------------------------------
#: a passive human in Anabasis: each decision is a phase's 'end' or a window's 'pass' (the
#: other one of the two is refused with a line); three of them end seat 0's first turn
HUMAN_TURN = "end\nend\nend\n"
PASSIVE = "pass\nend\n" * 6


def play_against(tmp_path, opponent, script, *more, game="anabasis"):
    """`xenophon play GAME --seed 3 --seat 0 --opponent OPPONENT` fed `script`."""
    return xenophon_at_home(
        tmp_path, "play", game, "--seed", "3", "--seat", "0", "--opponent", opponent,
        *more, input_text=script,
    )  # fmt: skip


def xenophon_at_home(tmp_path, *args, input_text=""):
    """The command with its saved games under `tmp_path` (XDG_DATA_HOME)."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", *map(str, args)],
        input=input_text, capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip


def saved_path(out: str) -> Path:
    return Path(re.search(r"[Gg]ame saved to (\S+)", out).group(1))


@pytest.mark.parametrize("player", [PY_CLASS, SH_CMD], ids=["py-class", "sh"])
def test_an_external_player_is_the_opponent_in_play_and_again_when_named_on_resume(
    player, tmp_path, monkeypatch
):
    if player == SH_CMD and shutil.which("awk") is None:
        pytest.skip("no awk")
    done = play_against(tmp_path, player, HUMAN_TURN + "quit\n")
    assert done.returncode == 0, done.stderr
    assert f"your opponent is {player}" in " ".join(done.stdout.split())
    assert "AI: " in done.stdout and "forfeits" not in done.stdout
    saved = saved_path(done.stdout)
    assert load_record(saved).seats == ["human", player]
    resumed = xenophon_at_home(
        tmp_path, "play", "--resume", saved, "--opponent", player, input_text=PASSIVE + "quit\n"
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"your opponent is {player}" in " ".join(resumed.stdout.split())
    assert resumed.stdout.count("AI: ") >= 1
    # resumed where no program is run (the web board): the AI takes the seat
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))  # the seal key the game was saved with
    start = resumed_game(str(saved), None)
    assert start.level == DEFAULT_LEVEL and start.record.seats[1] == f"ismcts:{DEFAULT_LEVEL}"
    assert f"played against {player}" in start.note
    # resumed without --opponent: the record starts no program, the AI takes the seat
    alone = xenophon_at_home(tmp_path, "play", "--resume", saved, input_text="quit\n")
    assert alone.returncode == 0 and "The AI now plays at level" in alone.stdout
    # --level takes the game back from the program
    level = xenophon_at_home(
        tmp_path, "play", "--resume", saved, "--level", "beginner", input_text="quit\n"
    )
    assert level.returncode == 0 and "the AI plays at level beginner" in level.stdout


@pytest.mark.parametrize("mode", ["crash", "timeout", "illegal", "garbage"])
def test_a_forfeit_in_play_ends_the_game_with_one_line_and_saves_it(mode, tmp_path):
    script = tmp_path / "bad_player.py"
    script.write_text(BAD_PLAYER.replace("GOOD = 3", "GOOD = 0"))  # misbehaves at once
    pids = tmp_path / "pids"
    opponent = f"cmd[{SHORT}]:{sys.executable} {script} {mode} {pids}"
    done = play_against(tmp_path, opponent, HUMAN_TURN + "end\n" * 20)
    assert done.returncode == 0, done.stderr
    reason = "malformed" if mode == "garbage" else mode
    # long lines are folded at 79 columns, a long path inside the spec too:
    # the text is compared without its whitespace
    flat = "".join(done.stdout.split())
    assert flat.count("forfeitsthegame") == 1
    said = flat.split("".join(f"Your opponent {opponent} forfeits the game ({reason}):".split()))[1]
    assert said.split("Gamesaved")[0].endswith("Youwin.")
    saved = saved_path(done.stdout)
    assert saved.exists() and "yourmove>" not in flat.split("forfeitsthegame")[1]
    assert load_record(saved).seats == ["human", opponent]
    assert not any(running(pid) for pid in pids_in(pids))  # killed, its child too


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--opponent", "cmd:no-such-program-anywhere"], "no such program"),
        (["--opponent", "random"], "--opponent takes cmd:PROGRAM ARGS or python:MODULE:CLASS"),
        (["--opponent", PY_CLASS, "--level", "easy"], "give --level (or --elo) or --opponent"),
    ],
)
def test_a_bad_opponent_is_one_line_before_the_game(args, words, tmp_path):
    done = xenophon_at_home(tmp_path, "play", "anabasis", *args)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert words in line


# -- the calibrated levels as bots: an external player's Elo within a deal ------------------------
def test_a_level_is_a_bot_so_a_player_is_rated_against_it():
    report = play_match(GAMES[0], PY_CLASS, "level:beginner", games=2, processes=1, progress=False)
    assert report.games == 2 and "Elo within a deal" in report.text()
    assert repr(make_bot("level:beginner", 0)) == "level:beginner"
    with pytest.raises(SpecError, match="no level 'grandmaster'"):
        make_bot("level:grandmaster", 0)


# -- a player that asks for the tensor ------------------------------------------------------------
TENSOR_PLAYER = textwrap.dedent(
    """
    import json, os, random

    class TensorPlayer:
        tensor = os.environ.get("ASKED_TENSOR", "observation")

        def choose(self, view, legal_moves, tensor, legal_codes):
            with open(os.environ["RECORDED_VIEWS"], "a") as out:
                out.write(json.dumps([len(tensor), legal_codes, legal_moves]) + "\\n")
            return random.choice(legal_moves)
    """
)


@pytest.mark.parametrize("kind", ["information_state", "observation"])
def test_a_player_that_asks_for_a_tensor_gets_it_with_the_action_codes(kind, tmp_path, monkeypatch):
    (tmp_path / "tensor_player.py").write_text(TENSOR_PLAYER)
    monkeypatch.setenv("RECORDED_VIEWS", str(tmp_path / "sent.jsonl"))
    monkeypatch.setenv("ASKED_TENSOR", kind)
    monkeypatch.chdir(tmp_path)
    game = GAMES[-1]
    record = play_one(game, ["python:tensor_player:TensorPlayer", "random"], 2, 0)
    assert record.forfeit is None
    size = game_from_spec(game).tables.tensor_size(kind)
    sent = [json.loads(line) for line in (tmp_path / "sent.jsonl").read_text().splitlines()]
    assert sent and all(length == size for length, _, _ in sent)
    assert all(len(codes) == len(set(codes)) == len(texts) for _, codes, texts in sent)


def test_asking_for_an_unknown_tensor_is_malformed(tmp_path, monkeypatch):
    (tmp_path / "tensor_player.py").write_text(TENSOR_PLAYER)
    monkeypatch.setenv("RECORDED_VIEWS", str(tmp_path / "sent.jsonl"))
    monkeypatch.setenv("ASKED_TENSOR", "pixels")
    monkeypatch.chdir(tmp_path)
    record = play_one(GAMES[0], ["python:tensor_player:TensorPlayer", "random"], 2, 0)
    assert record.forfeit["reason"] == "malformed" and "'tensor'" in record.forfeit["message"]
