"""`xenophon play` as a person at the terminal uses it: a game told move by
move, cards on demand, reasons for illegal moves, the AI's live line, line
editing, hints, undo past a resume, and the levels. Driven through the
command line (a pseudo-terminal where the behaviour needs one)."""

import os
import pty
import random
import re
import select
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import GAME_NAMES, run_cli
from xenophon.cli.lineedit import clean
from xenophon.hero.cards import load_card_set, prebuilt_decks
from xenophon.kernel.registry import game_from_spec, make_game
from xenophon.play.levels import LEVELS, LevelBot, bot_for_level, ladder_elos, softmax_choice
from xenophon.play.session import new_game, play_through
from xenophon.search.bots import MoveStat, SearchResult

GAMES = GAME_NAMES
LEVEL = "easy"


def play(game, script, home, seed=3, seat=0):
    """`xenophon play GAME --seed SEED --seat SEAT --level easy` fed `script`."""
    return run_cli(
        "play",
        game,
        "--seed",
        seed,
        "--seat",
        seat,
        "--level",
        LEVEL,
        input_text=script,
        home=home,
    )


def flat(text):
    """Output with every run of spaces and line breaks as one space (long
    lines are folded at 79 columns)."""
    return " ".join(text.split())


def moves_until(game_name, seed, seat, stop, choose=lambda moves: moves[0]):
    """The human's moves from the start of a game (as `play --seed SEED
    --seat SEAT --level easy` plays it) until `stop(state)` holds at one of
    the human's decisions: chance and the AI's choices are fixed by the seed
    and the position, so the command line meets the same positions."""
    session = new_game(game_from_spec(game_name, seed=seed), seat, LEVEL, seed).session(None)
    typed = play_through(
        session, bot_for_level(LEVEL, 0), lambda s: choose(s.state.legal_moves()), stop
    )
    assert session.to_move() != "over", "the game ended before the position was reached"
    return typed, session


class Terminal:
    """`xenophon play` on a pseudo-terminal: what it printed, and keys to send."""

    def __init__(self, *args, home):
        self.master, slave = pty.openpty()
        env = {
            **os.environ,
            "XDG_DATA_HOME": str(home),
            "NO_COLOR": "1",
            "TERM": "xterm",
            "COLUMNS": "100",
            "LINES": "40",
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "xenophon.cli.main", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.output = b""

    def read_until(self, text: str, timeout: float = 120, count: int = 1) -> str:
        """The output so far, once `text` has come `count` times in all."""
        deadline = time.monotonic() + timeout
        while self.output.count(text.encode()) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never came; got {self.output[-2000:]!r}")
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:
                    break
        return self.output.decode(errors="replace")

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        os.close(self.master)


@pytest.fixture
def terminal(tmp_path):
    opened = []

    def start(*args):
        opened.append(Terminal(*args, home=tmp_path))
        return opened[-1]

    yield start
    for term in opened:
        term.close()


# -- a game you can follow ------------------------------------------------------------------
PASSIVE = "end\npass\n" * 3000


@pytest.fixture(scope="module")
def passive_games(tmp_path_factory):
    """The output of a whole game of each game, the human ending and passing."""
    out = {}
    for game in GAMES:
        home = tmp_path_factory.mktemp(game)
        result = run_cli(
            "play",
            game,
            "--level",
            LEVEL,
            "--seed",
            "4",
            "--seat",
            "0",
            input_text=PASSIVE,
            home=home,
        )
        assert result.returncode == 0, result.stderr
        out[game] = result.stdout
    return out


@pytest.mark.parametrize("game", GAMES)
def test_the_game_is_told_move_by_move(passive_games, game):
    out = passive_games[game]
    lines = out.splitlines()
    assert sum(line.startswith("  setup: ") for line in lines) == 1  # one folded line
    setup_at = next(i for i, line in enumerate(lines) if line.startswith("  setup: "))
    assert not any(line.startswith("  chance: ") for line in lines[:setup_at])
    # one board a turn (the last one drawn again at the end), the steps as lines
    boards = boards_by_turn(out)
    assert max(boards.values()) == 1
    assert "game over" in [line for line in lines if line.startswith("Turn ")][-1]
    ai_moves = sum(line.startswith("AI: ") for line in lines)
    assert ai_moves > 2 * sum(boards.values())  # the AI's steps are told, not drawn
    assert re.search(r"-- turn 2, the opponent's ", out)  # phase changes
    assert "Game over, seat" in out and ": " in out.split("Game over, seat")[1].splitlines()[0]
    assert "castle -" not in out and "HP -" not in out
    if game == "anabasis":  # a character's cell: HP left / ATK
        assert re.search(r"[+-]Mil\d/1[rmx]", out)


ENGINE_PHASES = "chance|nullify|response|evade|window|defend|draw|setup|standby1|standby2"


@pytest.mark.parametrize("game", GAMES)
def test_no_phase_is_named_by_its_engine_word(passive_games, game):
    out = passive_games[game]
    engine_words = ENGINE_PHASES
    assert not re.search(rf"\bphase:? ({engine_words})\b", out, re.IGNORECASE)
    assert not re.search(rf"^({engine_words})\. Legal", out, re.IGNORECASE | re.MULTILINE)
    headers = {line.partition(": ")[2] for line in out.splitlines() if line.startswith("Turn ")}
    assert headers and not headers & set(engine_words.split("|"))


def boards_by_turn(out):
    """How many boards each turn drew (the last, at the game's end, left out)."""
    headers = [line.split(",")[0] for line in out.splitlines() if line.startswith("Turn ")]
    return Counter(headers[:-1])


@pytest.mark.parametrize("game", GAMES)
def test_the_transcripts_in_the_docs_show_one_board_a_turn_in_players_words(game):
    """docs/transcripts/GAME.txt (docs/transcripts/make.py writes them)."""
    out = (Path(__file__).parents[1] / "docs" / "transcripts" / f"{game}.txt").read_text()
    assert max(boards_by_turn(out).values()) == 1
    assert "game over" in [line for line in out.splitlines() if line.startswith("Turn ")][-1]
    assert not re.search(rf"\bphase:? ({ENGINE_PHASES})\b", out, re.IGNORECASE)


def test_the_game_ends_with_its_reason(passive_games):
    ending = [line for line in passive_games["anabasis"].splitlines() if "Game over," in line]
    assert ending and re.search(r"castle was taken|cemetery holds|turn limit", ending[0])
    ending = [line for line in passive_games["hero"].splitlines() if "Game over," in line]
    assert ending and re.search(r"HP fell to 0|deck ran out|special victory", ending[0])


def test_each_prompt_says_what_it_asks(passive_games):
    out = passive_games["anabasis"]
    assert re.search(r"Standby 1 \(\d+ AP and \d+ funds left\): buy, place or set cards", out)
    assert re.search(r"Field \(\d+ AP and \d+ funds left\): move, attack, ready or use", out)
    hero = passive_games["hero"]
    assert "Action: deploy units" in hero and "Battle: attack with a standby unit" in hero


def test_attacks_show_the_strike_and_the_damage(passive_games):
    out = passive_games["anabasis"]
    assert re.search(r"on [a-g][1-6] attacks ", out)
    assert re.search(r"strike: (hit|miss|crit)", out)
    assert re.search(r"takes \d+ damage|is destroyed|castle takes \d+ damage", out)


def test_nothing_hidden_reaches_the_screen(passive_games):
    """Fair play: a card of the AI's deck (wild_grove, which shares no card
    with crimson_conqueror) is named only once the AI has shown it."""
    cards = load_card_set()
    decks = prebuilt_decks(cards)
    mine = set(decks["crimson_conqueror"].cards(cards))
    theirs = set(decks["wild_grove"].cards(cards)) - mine
    assert theirs
    shown: set[str] = set()
    for line in passive_games["hero"].splitlines():
        named = {name for name in theirs if name in line}
        if line.startswith("AI: "):
            shown |= named  # the AI deploys, plays or discards it: public
            continue
        assert named <= shown, line
    assert (
        "the opponent draws" in passive_games["hero"]
        and "(hidden from you)" in passive_games["hero"]
    )


def test_the_opponents_moves_name_slots_as_on_your_board():
    typed, session = moves_until("hero", 4, 0, lambda s: s.view(0)["phase"] == "defend")
    narrator = session.narrator
    narrator.lettered = False  # units named by slots (the letters: tests/test_unit_names.py)
    assert narrator.as_seen("attack F1 > op.B2", 1) == "attack op.F1 > B2"
    assert narrator.as_seen("attack F1 > op.B2", 0) == "attack F1 > op.B2"


# -- cards on demand and illegal moves ------------------------------------------------------
def test_cards_on_demand_anabasis(tmp_path):
    script = "card Spearman\ncard g1\ncard a3\ncard Nullify\ncard Nonsense\nquit\n"
    out = run_cli(
        "play",
        "anabasis",
        "--seed",
        "3",
        "--seat",
        "0",
        "--level",
        LEVEL,
        input_text=script,
        home=tmp_path,
    ).stdout
    assert "Spearman (character, pile A, cost 2)" in out and "HP 4  ATK 2" in out
    diagram = out.split("forward up; * both:")[1].splitlines()[1:6]
    assert [row.split() for row in diagram] == [
        [".", ".", "a", ".", "."],
        [".", ".", "*", ".", "."],
        [".", "m", "C", "m", "."],
        [".", ".", "m", ".", "."],
        [".", ".", ".", ".", "."],
    ]
    assert "on g1: yours, 3 of 3 HP left" in out and "Village (territory" in out
    assert "no card stands on a3" in out
    assert "when the opponent activates an event: that event's effect is cancelled" in flat(out)
    assert "no card or square 'Nonsense'" in out


def test_a_castle_square_says_whose_castle_and_its_hp():
    """'card d1' on a castle said 'no card stands on d1': the board draws a
    castle there, so the square says whose it is and its HP."""
    from xenophon.kernel.narration import narrator_for

    state = game_from_spec("anabasis", seed=3).new_initial_state()
    while state.is_chance():
        state.apply(state.sample_chance(random.Random(3)))
    narrator = narrator_for(state, 0)
    assert narrator.card_lines(state, "d1") == ["on d1: your castle, 10 HP left"]
    assert narrator.card_lines(state, "D6") == ["on d6: the opponent's castle, 10 HP left"]


def test_a_card_on_the_board_shows_its_reach_from_its_square():
    typed, session = moves_until(
        "anabasis",
        3,
        0,
        lambda s: any(
            e["owner"] == 0 and e["card"] == "Militia" for e in s.view(0)["grid"].values()
        ),
        choose=lambda moves: next(
            (m for m in moves if m.text.startswith("place Militia")), moves[0]
        ),
    )
    square = next(q for q, e in session.state.view(0)["grid"].items() if e["card"] == "Militia")
    lines = session.narrator.card_lines(session.state, square)
    board = lines[-7:]
    assert board[0].split() == list("abcdefg")
    marked = {
        (rank_line.split()[0], f)
        for rank_line in board[1:]
        for f, mark in zip("abcdefg", rank_line.split()[1:])
        if mark in "ma*"
    }
    file, rank = square[0], int(square[1])
    # Militia moves one square forward or sideways and attacks the three squares ahead
    assert (str(rank + 1), file) in marked
    assert all(abs(int(r) - rank) <= 1 for r, _ in marked)


def test_cards_on_demand_hero(tmp_path):
    script = "card Fire Drake\ncard Flame Warlord\ncard op.F1\ncard Fireball\nquit\n"
    out = run_cli(
        "play",
        "hero",
        "--seed",
        "3",
        "--seat",
        "0",
        "--level",
        LEVEL,
        input_text=script,
        home=tmp_path,
    ).stdout
    out = flat(out)
    assert "Fire Drake (red unit, cost 5, condition (R)(R)(1))" in out
    assert "FLYING: can be guarded only by units with FLYING or RANGED" in out
    assert "Flame Warlord (avatar, red, Human)" in out and "charisma 5" in out
    assert "for a 500-power token of your avatar's race" in out  # RULES B6
    assert "no unit in op.F1" in out
    assert "deals 2000 damage to the unit" in out


def test_illegal_moves_say_which_rule_blocks_them_anabasis(tmp_path):
    script = (
        "buy Knight\nbuy Dragon\nplace Militia e5\nplace Militia d1\nmove a1-a2\nset Militia\n"
        "quit\n"
    )
    out = flat(
        run_cli(
            "play",
            "anabasis",
            "--seed",
            "3",
            "--seat",
            "0",
            "--level",
            LEVEL,
            input_text=script,
            home=tmp_path,
        ).stdout
    )
    assert "'buy Knight' is not legal now: Knight costs 7 funds and you have 3" in out
    assert "'buy Dragon' is not legal now: Dragon is not face up in the market" in out
    assert "e5 is outside your home zone (ranks 1-2)" in out
    assert "d1 is a castle" in out
    assert "'move a1-a2' is not legal now: that is done in Field, and this is Standby 1" in out
    assert "Militia is a character: only events are set" in out


def test_anabasis_mistyped_words_squares_and_event_slots(tmp_path):
    """Issue 49, item 7: 'did you mean' for a move word and a card name (as
    Hero has), a wrong square named as such, and `card SLOT` (as `help` says)."""
    script = "palce Militia c2\nplace Militai c2\nbuy Village a7\ncard 1\ncard 7\nquit\n"
    out = flat(
        run_cli(
            "play",
            "anabasis",
            "--seed",
            "3",
            "--seat",
            "0",
            "--level",
            LEVEL,
            input_text=script,
            home=tmp_path,
        ).stdout
    )
    assert "unknown move 'palce' (did you mean place?)" in out
    assert "unknown card 'Militai' (did you mean Militia?)" in out
    assert "'a7' is not a square (a1 to g6)" in out and "unknown card 'Village a7'" not in out
    assert "your slot 1 (face down):" in out  # the starting event dealt there
    assert "no event slot 7: your slots are 1 to 3" in out


def test_card_slot_shows_the_event_set_there():
    typed, session = moves_until(
        "anabasis",
        3,
        0,
        lambda s: any(s.view(0)["players"][0]["slots"]),
        choose=lambda moves: next((m for m in moves if m.text.startswith("set ")), moves[0]),
    )
    view = session.state.view(0)
    number, slot = next((i + 1, s) for i, s in enumerate(view["players"][0]["slots"]) if s)
    lines = session.narrator.card_lines(session.state, str(number))
    assert lines[0] == f"your slot {number} (face down):"
    assert lines[1].startswith(f"{slot['card']} (event, cost")


def test_hero_mistyped_move_words_are_answered_like_card_names():
    from xenophon.hero.notation import parse_action
    from xenophon.kernel.errors import NotationError

    with pytest.raises(NotationError, match=r"unknown move 'atack' \(did you mean attack\?\)"):
        parse_action("atack F1 > avatar", load_card_set())


def test_a_defend_window_asks_again_after_a_fast_move(tmp_path, monkeypatch, capsys):
    """Issue 49, item 8: after a Retainer (or a fast operation) in a defend
    window the prompt returns with the question again, though it reads the
    same (here made so: the legal moves summed up alike)."""
    import io

    import xenophon.hero.describe
    from xenophon.cli.main import main

    typed, session = moves_until("hero", 4, 0, lambda s: s.view(0)["phase"] == "defend")
    script = "\n".join([*typed, "retainer discard Goblin Raider", "quit"]) + "\n"
    monkeypatch.setattr(xenophon.hero.describe, "legal_summary", lambda state: "some moves")
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("NO_COLOR", "1")
    main(["play", "hero", "--seed", "4", "--seat", "0", "--level", LEVEL])
    out = capsys.readouterr().out
    after = flat(out.split("retainer discard Goblin Raider", 1)[1])
    question = "'guard UNIT' with a standby unit, use a fast operation or the Retainer"
    assert question in after.split("your move>")[0], after[:600]


def with_hand(state, seat, names):
    """The position with `seat`'s hand exchanged for `names`, from its deck
    (every card stays in exactly one zone)."""
    data = state.to_dict()
    player = data["players"][seat]
    deck = dict(player["deck"])
    for name, n in player["hand"].items():
        deck[name] = deck.get(name, 0) + n
    for name in names:
        deck[name] -= 1
    player["deck"] = {name: n for name, n in deck.items() if n}
    player["hand"] = {name: names.count(name) for name in names}
    player["hand_size"], player["deck_size"] = len(names), sum(player["deck"].values())
    return state.game.state_from_dict(data)


def test_illegal_moves_say_which_rule_blocks_them_hero():
    def own_action(seat):
        return lambda s: s.view(seat)["phase"] == "action" and s.view(seat)["active"] == seat

    _, session = moves_until("hero", 3, 0, own_action(0))
    why, state = session.narrator.why_illegal, session.state
    position = with_hand(state, 0, ["Fire Drake", "Fireball"])
    code = position.parse_code
    assert "its condition (R)(R)(1) is unmet: your field holds 1 card (red 1)" in why(
        position, code("deploy Fire Drake back")
    )
    assert "Goblin Raider is not in your hand" in why(position, code("deploy Goblin Raider back"))
    assert "Fireball is an operation" in why(position, code("deploy Fireball back"))
    assert "attacks are declared in your own battle phase" in why(
        position, code("attack F1 > avatar")
    )
    data = position.to_dict()
    data["players"][0]["charisma_used"] = 4
    spent = state.game.state_from_dict(data)
    assert "Fireball costs 2 charisma and you have 1 of 5 left this turn" in why(
        spent, code("play Fireball on op.F1")
    )
    _, session = moves_until("hero", 3, 1, own_action(1))
    position = with_hand(session.state, 1, ["Ancient Wyrm"])
    assert "its condition (G)(G)(2) is unmet: your field holds" in session.narrator.why_illegal(
        position, position.parse_code("deploy Ancient Wyrm back")
    )


def test_an_illegal_move_at_the_prompt_gives_its_reason(tmp_path):
    typed, session = moves_until("hero", 3, 0, lambda s: True)
    hand = session.state.view(0)["players"][0]["hand"]
    absent = next(
        c.name for c in session.state.game.cards.cards if c.is_unit and c.name not in hand
    )
    out = flat(
        run_cli(
            "play",
            "hero",
            "--seed",
            "3",
            "--seat",
            "0",
            "--level",
            LEVEL,
            input_text=f"deploy {absent} back\nquit\n",
            home=tmp_path,
        ).stdout
    )
    assert f"'deploy {absent} back' is not legal now: {absent} is not in your hand" in out


# -- a thinking AI, hints, undo --------------------------------------------------------------
def test_the_ai_shows_it_is_thinking_on_a_terminal_only(terminal, tmp_path):
    term = terminal("play", "anabasis", "--seed", "3", "--seat", "1", "--level", "1.2s")
    out = term.read_until("your move> ", timeout=300)
    # the same words whatever the AI's cards: nothing of its search (issue 46)
    assert "\r\x1b[K  the AI is thinking..." in out
    assert "iterations" not in out and "best" not in out and "win chance" not in out
    # the human's own search shows its progress
    term.send("hint\n")
    out = term.read_until("AI's view for you", timeout=300)
    assert re.search(r"thinking +\d+\.\d s, [\d,]+ iterations, best \S.* \(\d+%\)", out)
    piped = run_cli(
        "play",
        "anabasis",
        "--seed",
        "3",
        "--seat",
        "1",
        "--level",
        "1.2s",
        input_text="quit\n",
        home=tmp_path,
    )
    assert "thinking" not in piped.stdout and "\x1b" not in piped.stdout


def test_hint_says_only_move(tmp_path):
    def single(state):
        return len(state.legal_moves()) == 1

    typed, _ = moves_until("hero", 4, 1, single, choose=lambda moves: moves[-1])
    script = "\n".join(typed + ["hint", "quit"]) + "\n"
    out = run_cli(
        "play",
        "hero",
        "--seed",
        "4",
        "--seat",
        "1",
        "--level",
        LEVEL,
        input_text=script,
        home=tmp_path,
    ).stdout
    assert re.search(r"only move: \S", out)
    assert "(0 visits)" not in out


def test_undo_goes_back_past_a_resume(tmp_path):
    saved = tmp_path / "game.jsonl"
    first = run_cli(
        "play",
        "anabasis",
        "--seed",
        "3",
        "--seat",
        "0",
        "--level",
        LEVEL,
        input_text=f"end\nend\nsave {saved}\nquit\n",
        home=tmp_path,
    )
    assert first.returncode == 0, first.stderr
    resumed = run_cli(
        "play", "--resume", saved, input_text="undo\nundo\nundo\nquit\n", home=tmp_path
    )
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.count("Back to your previous decision.") == 2
    assert "Nothing to undo" in resumed.stdout
    assert "your turn: Standby 1" in resumed.stdout.split("Back to your previous decision.")[-1]


# -- line editing ---------------------------------------------------------------------------
def test_no_escape_sequence_is_echoed_in_an_error(tmp_path):
    out = run_cli(
        "play",
        "anabasis",
        "--seed",
        "3",
        "--seat",
        "0",
        "--level",
        LEVEL,
        input_text="\x1b[Amove\x1b[D z9\nquit\n",
        home=tmp_path,
    ).stdout
    assert "\x1b" not in out and "^[" not in out
    assert clean("\x1b[A\x1b[1;5Cbuy\x1bOP Militia\t\x07") == "buy Militia "


def test_history_and_tab_completion_on_a_terminal(terminal):
    term = terminal("play", "anabasis", "--seed", "3", "--seat", "0", "--level", LEVEL)
    term.read_until("your move> ")
    term.send("card Spearman\r")
    term.read_until("your move> ", count=2)  # readline reads the keys from here on
    time.sleep(0.5)
    before = len(term.output)
    term.send("\x1b[A\r")  # the up arrow recalls the last line
    out = term.read_until("forward up", timeout=60, count=2)
    assert out.count("Spearman (character") == 2
    assert "^[[A" not in out[before:] and "unknown move" not in out[before:]
    term.read_until("your move> ", count=3)
    term.send("hin\t\r")  # Tab completes a command
    assert "AI's view for you" in term.read_until("AI's view for you")
    term.read_until("your move> ", count=4)
    term.send("buy Villag\t")  # and a legal move (the first that fits)
    term.send("\r")
    out = term.read_until("you bought Village")
    assert "unknown" not in out.split("buy Villag")[-1]


# -- levels -------------------------------------------------------------------------------
def result_of(values, visits):
    moves = [MoveStat(object(), v, p, 0.0) for p, v in zip(values, visits)]
    return SearchResult(0, moves, sum(visits), 0, 0, 0, 0.0)


def test_weak_levels_choose_among_the_best_moves_by_value():
    result = result_of([0.60, 0.58, 0.40, 0.59], [500, 300, 200, 2])
    rng = random.Random(1)
    picks = [softmax_choice(result, 0.05, rng) for _ in range(2000)]
    counts = {m: picks.count(m.move) for m in result.moves}
    best, second, bad, rare = result.moves
    assert counts[rare] == 0  # too few visits to be trusted
    assert counts[best] > counts[second] > counts[bad]
    assert counts[bad] < 40  # 0.2 worse: e^-4 as often as the best
    assert all(softmax_choice(result, 0.0, rng) is best.move for _ in range(20))


def test_levels_are_named_by_their_measured_elo(tmp_path):
    for game in GAMES:
        elos = ladder_elos(game)
        assert set(elos) == {level.name for level in LEVELS.values() if level.iterations}
        assert elos["beginner"] == 1000
    out = flat(
        run_cli(
            "play",
            "anabasis",
            "--seed",
            "3",
            "--seat",
            "0",
            "--elo",
            "1000",
            input_text="quit\n",
            home=tmp_path,
        ).stdout
    )
    assert "level beginner (Elo 1000 on the anabasis ladder" in out
    refused = run_cli(
        "play", "anabasis", "--elo", "1200", "--level", "easy", input_text="quit\n", home=tmp_path
    )
    assert refused.returncode != 0 and "--level or --elo" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_level_bot_plays_legal_moves():
    state = game_from_spec("anabasis", seed=2).new_initial_state()
    rng = random.Random(2)
    bot = LevelBot(LEVELS["beginner"], seed=5)
    for _ in range(80):
        if state.is_terminal():
            break
        move = state.sample_chance(rng) if state.is_chance() else bot.choose(state)
        state.apply(move)


@pytest.mark.parametrize("game", GAMES)
def test_every_position_of_random_games_can_be_told(game):
    """Random games through the session: every step narrated, every prompt
    put, every card on the board described, and an illegal move at every
    decision answered, without an error."""
    from xenophon.kernel.errors import XenophonError

    for seed in range(3):
        rng = random.Random(seed)
        session = new_game(game_from_spec(game, seed=seed), seed % 2, LEVEL, seed).session(None)
        ai = bot_for_level("beginner", 0)
        samples = (
            [f"{f}{r}" for f in "abcdefg" for r in range(1, 7)]
            if game == "anabasis"
            else [f"{p}{row}{i}" for p in ("", "op.") for row in "FB" for i in range(1, 6)]
        )
        texts = (
            [m.text for m in session.state.legal_moves()] if not session.state.is_chance() else []
        )

        def tell_and_choose(session):
            nonlocal texts
            for line in session.take_events():
                assert line and "None" not in line, line
            assert session.narrator.asking(session.state)
            for word in samples:
                try:
                    assert session.narrator.card_lines(session.state, word)
                except KeyError:
                    pass
            legal = session.state.legal_moves()
            texts = (texts + [m.text for m in legal])[-40:]
            for text in rng.sample(texts, min(5, len(texts))):
                try:
                    session.state.move(text)
                except XenophonError:
                    try:
                        session.human_play(text)
                    except XenophonError as error:
                        assert "Traceback" not in str(error)
            return rng.choice(legal)

        play_through(session, ai, tell_and_choose)
        for line in session.take_events():
            assert line and "None" not in line, line


def test_illegal_guards_abilities_and_targets_say_which_rule_blocks_them():
    def own_action(seat):
        return lambda s: s.view(seat)["phase"] == "action" and s.view(seat)["active"] == seat

    _, session = moves_until("hero", 3, 0, own_action(0))
    why, state = session.narrator.why_illegal, session.state
    assert "a guard is declared only when the opponent attacks" in why(
        state, state.parse_code("guard B1")
    )
    assert "no card of yours is waiting for a target" in why(state, state.parse_code("target F1"))
    avatar = state.view(0)["players"][0]["avatar"]
    ability = state.game.cards.avatar_by_name(avatar).ability
    reason = why(state, state.parse_code("ability"))
    if ability.kind == "activated":
        assert reason.startswith("that is not a legal target of") or "once a turn" in reason
    else:
        assert f"{avatar} has no ability to use" in reason


def test_every_illegal_guard_ability_and_target_of_random_games_has_a_reason():
    from xenophon.hero.describe import why_illegal
    from xenophon.hero.notation import ABILITY, ALL_SLOTS, GUARD, MY_SLOTS, NONE, TARGET
    from xenophon.kernel.codes import encode

    codes = (
        [encode(GUARD, 0, y) for y in MY_SLOTS]
        + [encode(TARGET, 0, y) for y in ALL_SLOTS]
        + [encode(ABILITY, 0, y) for y in [*ALL_SLOTS, NONE]]
    )
    rng, checked = random.Random(5), 0
    for seed in range(6):
        state = game_from_spec("hero", seed=seed).new_initial_state()
        while not state.is_terminal():
            player = state.current_player
            if player < 0:
                state.apply_code(state.sample_chance(rng).code)
                continue
            legal = set(state.legal_actions())
            for code in codes:
                if code not in legal:
                    assert why_illegal(state, code, player), (state.view(player), code)
                    checked += 1
            state.apply(rng.choice(state.legal_moves()))
    assert checked > 1000


# -- words under the board and the lists (issue 49, items 9 and 11) -------------------------
def test_moves_tells_buying_from_buying_and_placing_and_the_idle_ap_is_not_shown(tmp_path):
    out = play("anabasis", "moves\nquit\n", tmp_path, seed=4).stdout
    assert "buy Village a1" in out and "buy Village " in out
    assert "'buy CARD' puts the card in your flow" in flat(out)
    you = next(line for line in out.splitlines() if line.startswith("You (seat 0)"))
    opponent = next(line for line in out.splitlines() if line.startswith("Opponent (seat 1)"))
    assert " AP 3 " in you and " AP " not in opponent  # seat 1's AP is set at its Standby 1


def test_the_hero_board_has_a_legend(tmp_path):
    out = play("hero", "quit\n", tmp_path, seed=4).stdout
    legend = flat(out.split("Legend:")[1])
    for words in ("power/attack", "standby: may attack or guard", "(stays in row): cannot change"):
        assert words in legend


class FixedHints:
    """A hint search that answers the first legal moves with these values and visits."""

    def __init__(self, values, visits):
        self.values, self.visits = values, visits

    def reseed(self, seed):
        pass

    def analyse(self, state, **progress):
        moves = state.legal_moves()
        stats = [MoveStat(m, n, v, 0.0) for m, v, n in zip(moves, self.values, self.visits)]
        return SearchResult(0, stats, sum(self.visits), 0, 0, 0, 0.0)


@pytest.mark.parametrize("values, noted", [((0.42, 0.44, 0.30), True), ((0.5, 0.4, 0.3), False)])
def test_hints_out_of_order_say_why(values, noted):
    import io

    from xenophon.cli.play import HINT_ORDER, TerminalSession

    start = new_game(game_from_spec("hero", seed=4), 0, LEVEL, 4)
    while start.state.is_chance():
        start.state.apply(start.chance.draw(start.state).code)
    out = io.StringIO()
    session = TerminalSession(
        start.state,
        start.record,
        [],
        0,
        None,
        FixedHints(values, (1730, 200, 50)),
        start.chance,
        out,
        False,
        None,
    )
    session.show_hint()
    assert (flat(HINT_ORDER) in flat(out.getvalue())) == noted
    assert "1730 visits" in out.getvalue()


# -- where the game is saved (issue 49, item 14) ----------------------------------------------
def test_the_start_says_where_the_game_goes_and_a_resumed_game_is_updated_in_place(tmp_path):
    first = play("hero", "end\nquit\n", tmp_path, seed=3)
    games = tmp_path / "xenophon" / "games"
    (path,) = games.glob("*.jsonl")
    opening = flat(first.stdout.split("your move>")[0])
    assert f"Leaving ('quit', Ctrl-C) saves the game to {path}" in opening
    lines = path.read_text().count("\n")
    resumed = run_cli("play", "--resume", path, input_text="undo\nquit\n", home=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert f"saves the game to {path} (its own file, updated in place)" in flat(resumed.stdout)
    assert f"Game saved to {path}" in resumed.stdout
    assert list(games.glob("*.jsonl")) == [path]  # no second file
    assert path.read_text().count("\n") < lines  # the undo is in it


def test_a_refused_move_says_once_what_to_type(tmp_path):
    """`'pass' is not legal now; type 'moves' to see the legal moves` was
    followed by `(type 'moves' for the legal moves, ...)`: said once now."""
    out = play("hero", "pass\nplace Militia c2\nquit\n", tmp_path, seed=4).stdout
    refused = out.split("your move> pass\n")[1].split("your move>")[0]
    assert "'pass' is not legal now" in refused and refused.count("type 'moves'") == 1, refused
    assert "(type 'help' for commands)" in refused
    other = out.split("your move> place Militia c2\n")[1].split("your move>")[0]
    assert other.count("type 'moves'") == 1, other


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("seat", [0, 1])
def test_a_new_game_left_before_the_first_move_leaves_no_file(tmp_path, game, seat):
    """As a web board's tab closed before its human's first move: nothing is
    written, and the line that named the file at the start is answered by
    one saying nothing was saved (the AI may have moved first)."""
    left = run_cli(
        "play", game, "--seat", seat, "--level", "20", input_text="quit\n", home=tmp_path
    )
    assert left.returncode == 0, left.stderr
    path = re.search(r"saves the game to (\S+)", left.stdout).group(1)
    assert "(once you have moved: a game left before that leaves no file)" in left.stdout
    assert f"Nothing was played: no game saved ({path} was not written)." in left.stdout
    assert "Game saved" not in left.stdout
    assert not list(tmp_path.rglob("*.jsonl"))
    ended = run_cli("play", game, "--seat", seat, "--level", "20", input_text="", home=tmp_path)
    assert ended.returncode == 0 and "Nothing was played" in ended.stdout  # the end of the input
    assert not list(tmp_path.rglob("*.jsonl"))


def test_a_failed_update_keeps_the_earlier_save(tmp_path, monkeypatch):
    from xenophon.kernel import files
    from xenophon.play.session import resumed_game

    path = tmp_path / "game.jsonl"
    shutil.copy(Path(__file__).parent / "data" / "hero-units.jsonl", path)
    earlier = path.read_bytes()
    session = resumed_game(path, None).session(path)
    session.written.append(path)
    session.human_play("end")

    def broken(source, target):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(files.os, "replace", broken)
    monkeypatch.chdir(tmp_path)
    saved, reasons = session.save_somewhere()
    assert saved is None and "cannot write" in reasons[0]
    assert path.read_bytes() == earlier
    assert [p.name for p in tmp_path.iterdir()] == ["game.jsonl"]  # no temporary left
    monkeypatch.undo()
    assert session.save_somewhere()[0] == path and path.read_bytes() != earlier


def test_the_data_folder_is_the_systems_and_an_earlier_one_is_still_found(tmp_path, monkeypatch):
    import platformdirs

    from xenophon.kernel.files import user_data_folder

    system = tmp_path / "Library" / "Application Support" / "xenophon"
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name, appauthor: str(system))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert user_data_folder() == system
    earlier = tmp_path / ".local" / "share" / "xenophon"
    earlier.mkdir(parents=True)
    assert user_data_folder() == earlier  # games and keys of an earlier version
    system.mkdir(parents=True)
    assert user_data_folder() == system
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert user_data_folder() == tmp_path / "data" / "xenophon"


# -- a guided first game (issue 49: "the rules in the program") -----------------------------
DECIDING = {
    "anabasis": {"standby1", "field", "standby2", "response", "nullify", "evade"},
    "hero": {"action", "window", "battle", "defend"},
}


@pytest.mark.parametrize("game", GAMES)
def test_every_decision_has_a_lesson_in_players_words(game):
    from xenophon.kernel.plugin import find_plugin

    lessons = find_plugin(game).lessons
    assert set(lessons) == DECIDING[game]
    for text in lessons.values():
        assert not re.search(r"\b(standby1|standby2|phase (window|defend|nullify))\b", text)


@pytest.mark.parametrize("game, first", [("anabasis", "Standby 1"), ("hero", "Action phase")])
def test_learn_teaches_how_to_win_and_each_decision_once(tmp_path, game, first):
    out = run_cli(
        "learn", game, "--seed", "3", input_text="end\npass\n" * 15 + "quit\n", home=tmp_path
    ).stdout
    assert out.startswith("How to win:")
    assert "A turn, step by step:" in out and "at level beginner" in out
    lessons = [line for line in out.splitlines() if line.startswith("Lesson: ")]
    assert f"Lesson: This is your {first}" in lessons[0]
    assert len(lessons) == len(set(lessons)) >= 2  # each kind once, though turns come again
    assert len(re.findall(rf"-- turn \d+, your {first}", out, re.IGNORECASE)) >= 2
    (saved,) = (tmp_path / "xenophon" / "games").glob("*.jsonl")
    resumed = run_cli("play", "--resume", saved, input_text="quit\n", home=tmp_path)
    assert resumed.returncode == 0 and "at level beginner" in resumed.stdout


@pytest.mark.parametrize("game", GAMES)
def test_rules_at_the_prompt_say_how_to_win_and_a_turn(game, tmp_path):
    """'rules' at the prompt prints how to win and a turn step by step (the
    opening of `xenophon rules GAME`), and 'help' lists it: a player in a
    game need not leave it to learn the rules."""
    out = play(game, "help\nrules\nquit\n", tmp_path).stdout
    assert re.search(r"^  rules +how to win", out, re.MULTILINE)
    told = out.split("your move> rules")[1]
    assert told.lstrip().startswith("How to win:") and "A turn, step by step:" in told
    assert "xenophon rules " + game in flat(told)


def test_the_start_names_the_games_options_that_are_not_its_usual_ones(tmp_path):
    """'--mode expert' (a variant of the rules) is said at the start, beside
    the level: 'anabasis (mode expert): ...'; a usual game says nothing more."""
    common = ("--seed", 3, "--seat", 0, "--level", LEVEL)
    expert = run_cli(
        "play", "anabasis", "--mode", "expert", *common, input_text="quit\n", home=tmp_path
    ).stdout
    assert expert.startswith("anabasis (mode expert): you are seat 0"), expert[:200]
    usual = run_cli("play", "anabasis", *common, input_text="quit\n", home=tmp_path).stdout
    assert usual.startswith("anabasis: you are seat 0"), usual[:200]
    decks = run_cli(
        "play",
        "hero",
        "--decks",
        "wild_grove,crimson_conqueror",
        *common,
        input_text="quit\n",
        home=tmp_path,
    ).stdout
    assert decks.startswith("hero (decks wild_grove+crimson_conqueror): you are"), decks[:200]


@pytest.mark.parametrize(
    "game, own_forms, other_forms",
    [
        ("anabasis", ["card SQUARE", "card N:"], ["card UNIT", "card a"]),
        ("hero", ["card a", "card op.a", "card F1"], ["card SQUARE", "card N"]),
    ],
)
def test_help_names_only_the_card_forms_of_its_game(tmp_path, game, own_forms, other_forms):
    out = play(game, "help\nquit\n", tmp_path).stdout
    start = out.index("card NAME") + len("card NAME")
    help_text = out[start : out.index("hint ")]
    for form in own_forms:
        assert form in help_text
    for form in other_forms:
        assert form not in help_text


@pytest.mark.parametrize("game, first", [("anabasis", "Standby 1"), ("hero", "Action phase")])
def test_a_resumed_guided_game_goes_on_with_the_lessons_not_yet_given(tmp_path, game, first):
    out = run_cli("learn", game, "--seed", "3", input_text="end\nquit\n", home=tmp_path).stdout
    (saved,) = (tmp_path / "xenophon" / "games").glob("*.jsonl")
    assert f"Resume it with: xenophon learn --resume {saved}" in out
    assert f"Lesson: This is your {first}" in out
    resumed = run_cli(
        "learn", "--resume", saved, input_text="end\npass\n" * 15 + "quit\n", home=tmp_path
    )
    assert resumed.returncode == 0 and "at level beginner" in resumed.stdout
    assert not resumed.stdout.startswith("How to win:")  # the opening was read already
    lessons = [line for line in resumed.stdout.splitlines() if line.startswith("Lesson: ")]
    assert lessons and not any(f"This is your {first}" in line for line in lessons)
    for args, said in (
        ((game, "--resume", saved), "give no game or --seed"),
        ((), "which game? xenophon learn"),
    ):
        refused = run_cli("learn", *args, home=tmp_path)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1
        assert said in refused.stderr


def one_answer_position():
    """A position of a random Anabasis game where the player to move has
    exactly one legal move."""
    for seed in range(50):
        state = make_game("anabasis", seed=seed).new_initial_state()
        rng = random.Random(seed)
        for _ in range(600):
            if state.is_terminal():
                break
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            if len(state.legal_moves()) == 1:
                return state
            state.apply(rng.choice(state.legal_moves()))
    raise AssertionError("no position with one legal move")


def test_a_question_with_one_answer_answers_itself_when_asked_to():
    """Issue 66 item 4: with --auto-answer (on by default in `learn`, off in
    `play`), a question whose only legal answer is, say, 'pass' is answered
    for the player and said in one line; with a choice, or without the
    option, the player is asked."""
    from types import SimpleNamespace

    from xenophon.cli.play import TerminalSession

    said = []
    state = one_answer_position()
    session = SimpleNamespace(auto_answer=True, state=state, said=str, say=said.append)
    only = state.legal_moves()[0].text
    assert TerminalSession.only_answer(session) == only
    assert said == [f"your move> {only}   (the only legal answer, played for you: --auto-answer)"]
    session.auto_answer = False
    assert TerminalSession.only_answer(session) is None
    state.apply(state.legal_moves()[0])
    while state.is_chance() or len(state.legal_moves()) == 1:
        state.apply(
            state.sample_chance(random.Random(0)) if state.is_chance() else state.legal_moves()[0]
        )
    session = SimpleNamespace(auto_answer=True, state=state, said=str, say=said.append)
    assert TerminalSession.only_answer(session) is None


@pytest.mark.parametrize("command, default", [("learn", "on"), ("play", "off")])
def test_the_auto_answer_option_is_on_in_learn_and_off_in_play(tmp_path, command, default):
    helped = run_cli(command, "--help", home=tmp_path).stdout
    assert "--auto-answer" in helped and f"(default {default})" in " ".join(helped.split())
