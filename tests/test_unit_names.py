"""Hero units keep their letter while they are on the field
(xenophon.hero.names): one step at a time on made-up fields, through whole
games (every legal move reads back to itself), across a resume, and at the
terminal with a record file of tests/data."""

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xenophon.hero.names import UnitNames, names_through
from xenophon.kernel.errors import NotationError
from xenophon.kernel.registry import game_from_spec
from xenophon.play.levels import bot_for_level
from xenophon.play.session import new_game, play_through, resumed_game

UNITS_RECORD = Path(__file__).parent / "data" / "hero-units.jsonl"


def unit(card, **state):
    return {"card": card, "used": False, "damage": 0, **state}


def view(mine_front=(), mine_back=(), theirs_front=(), theirs_back=(), attack=None):
    def side(front, back):
        return {
            "front": [unit(c) if isinstance(c, str) else c for c in front],
            "back": [unit(c) if isinstance(c, str) else c for c in back],
        }

    return {
        "active": 0,
        "attack": attack,
        "players": [side(mine_front, mine_back), side(theirs_front, theirs_back)],
    }


def follow(*steps):
    """The names after (view, actor, text) steps from an empty field."""
    views = [view()] + [step[0] for step in steps]
    return names_through(views, [(actor, text) for _, actor, text in steps])


def test_a_unit_keeps_its_letter_when_it_or_another_moves():
    names = follow(
        (view(mine_back=["Mercenary"]), 0, "deploy Mercenary back"),
        (view(mine_back=["Mercenary", "Great Bear"]), 0, "deploy Great Bear back"),
        (view(mine_back=["Mercenary", "Great Bear", "Mercenary"]), 0, "deploy Mercenary back"),
        (view(["Mercenary"], ["Great Bear", "Mercenary"]), 0, "move B1"),
    )
    assert names.rows[0] == (("a",), ("b", "c"))
    # the slot B1 now holds another unit; the letter a still names the one that moved
    assert names.notation("move a", 0) == "move F1"
    assert names.notation("move c", 0) == "move B2"
    assert names.words("move B2", 0, 0) == "move c"
    # the opponent's move names slots from its side: op.B1 is our b
    assert names.words("attack F1 > op.B1", 1, 0) == "attack op.F1 > b"


def test_a_unit_keeps_its_letter_when_another_dies_and_letters_are_not_given_again_at_once():
    names = follow(
        (view(theirs_front=["Goblin Raider"]), 1, "deploy Goblin Raider front"),
        (view(theirs_front=["Goblin Raider", "Sky Scout"]), 1, "deploy Sky Scout front"),
        (view(theirs_front=["Sky Scout"]), 0, "play Fireball on op.F1"),
        (view(theirs_front=["Sky Scout", "Goblin Raider"]), 1, "deploy Goblin Raider front"),
    )
    assert names.rows[1] == (("b", "c"), ())
    assert names.words("attack F1 > op.F2", 0, 0) == "attack F1 > op.c"
    assert names.notation("play Fireball on op.b", 0) == "play Fireball on op.F1"


def test_of_two_units_alike_the_one_the_step_names_is_the_one_that_left():
    first = (view(theirs_front=["Goblin Raider"]), 1, "deploy Goblin Raider front")
    both = (view(theirs_front=["Goblin Raider"] * 2), 1, "deploy Goblin Raider front")
    one = view(theirs_front=["Goblin Raider"])
    assert follow(first, both, (one, 0, "play Fireball on op.F1")).rows[1][0] == ("b",)
    assert follow(first, both, (one, 0, "play Fireball on op.F2")).rows[1][0] == ("a",)
    # a battle: the units of the attack under way are the ones that may leave
    battle = view(mine_front=["Goblin Raider"] * 2, attack={"attacker": "F1", "target": "avatar"})
    names = follow(
        (view(mine_front=["Goblin Raider"]), 0, "deploy Goblin Raider front"),
        (view(mine_front=["Goblin Raider"] * 2), 0, "deploy Goblin Raider front"),
        (battle, 0, "attack F1 > avatar"),
        (view(mine_front=["Goblin Raider"]), 1, "pass"),
    )
    assert names.rows[0][0] == ("b",)
    # a unit whose state tells it apart is told apart
    used = unit("Goblin Raider", used=True)
    names = follow(
        (view(mine_front=["Goblin Raider"]), 0, "deploy Goblin Raider front"),
        (view(mine_front=["Goblin Raider", used]), 0, "deploy Goblin Raider front"),
        (view(mine_front=[used]), None, None),
    )
    assert names.rows[0][0] == ("b",)


def test_a_letter_of_no_unit_is_refused_in_words():
    names = follow((view(mine_back=["Mercenary"]), 0, "deploy Mercenary back"))
    with pytest.raises(NotationError, match="you have no unit 'z'"):
        names.notation("move z", 0)
    with pytest.raises(NotationError, match="the opponent has no unit 'op.a'"):
        names.notation("play Fireball on op.a", 0)
    assert names.notation("move B1", 0) == "move B1"  # slots are still read
    assert names.notation("deploy Mercenary back", 0) == "deploy Mercenary back"


def builder(rng):
    """A player who deploys what it can, else moves at random: a field with units."""

    def choose(session):
        moves = session.state.legal_moves()
        deploys = [m for m in moves if m.text.startswith("deploy")]
        return rng.choice(deploys or moves)

    return choose


def lettered_session(seed, seat=0):
    session = new_game(game_from_spec("hero", seed=seed), seat, "easy", seed).session(None)
    session.narrator.lettered = True
    return session


@pytest.mark.parametrize("seed", [5, 11])
def test_every_legal_move_reads_back_to_itself_through_a_whole_game(seed):
    session = lettered_session(seed, seat=seed % 2)
    narrator, checked, lettered = session.narrator, 0, 0
    play = builder(random.Random(seed))

    cards_of: dict = {}  # (seat, letter) -> the card it named at the last decision

    def choose(s):
        nonlocal checked, lettered, cards_of
        seen = s.state.view(s.human)["players"]
        now = {
            (seat, letter): seen[seat][row][index]["card"]
            for seat in (0, 1)
            for r, row in enumerate(("front", "back"))
            for index, letter in enumerate(narrator.names.rows[seat][r])
        }
        # a letter names the same card for as long as it is on the field
        assert all(cards_of[key] == card for key, card in now.items() if key in cards_of)
        cards_of = now
        for move in s.state.legal_moves():
            words = narrator.as_seen(move.text, s.human)
            assert narrator.read_move(words) == move.text
            checked += 1
            lettered += words != move.text
        return play(s)

    play_through(session, bot_for_level("easy", 0), choose)
    assert checked > 100 and lettered > 30


def test_a_resumed_game_has_the_letters_it_had(tmp_path):
    session = lettered_session(5)
    ai = bot_for_level("easy", 0)
    play_through(
        session, ai, builder(random.Random(5)), stop=lambda state: state.view(0)["turn"] >= 9
    )
    path = session.save(tmp_path / "game.jsonl")
    resumed = resumed_game(path, None).session(None)
    assert resumed.narrator.names.rows == session.narrator.names.rows
    assert any(session.narrator.names.rows[0])


def test_undo_takes_the_letters_back(tmp_path):
    start = resumed_game(UNITS_RECORD, None)
    session = start.session(None)
    session.narrator.lettered = True
    before = session.narrator.names
    session.human_play("move b")
    assert session.narrator.names != before
    session.undo()
    assert session.narrator.names == before


def test_the_terminal_names_units_by_letters_in_an_older_record(tmp_path):
    """tests/data/hero-units.jsonl: a game in progress written with slot
    notation (records keep it); resumed, its units have letters that stay."""
    record = tmp_path / "game.jsonl"
    shutil.copy(UNITS_RECORD, record)
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "NO_COLOR": "1"}
    out = subprocess.run(
        [sys.executable, "-m", "xenophon.cli.main", "play", "--resume", str(record)],
        input="move b\nmove b\nmoves\ncard d\nmove z\nquit\n",
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    ).stdout
    board = out.split("your move>")[0]
    cells = cell_names(board)  # the board's rows: each unit's letter over its card
    assert cells["b"] == "Goblin Raider" and cells["d"] == "Flame Lancer"
    assert cells["op.e"] == "Great Bear" and "B1 " not in board
    # b moved: it cannot move again this turn, and the Flame Lancer was not moved in its stead
    assert "'move b' is not legal now: Goblin Raider cannot change row" in out
    assert "move d" in out.split("your move> moves")[1] and "move B" not in out
    assert "d: yours, power 2000" in out
    assert "you have no unit 'z'" in out


def test_a_game_followed_from_a_position_letters_the_units_it_finds():
    """A narrator that starts at a position (not the start) letters the
    units there in slot order, then follows them as usual."""
    start = view(mine_back=["Mercenary", "Great Bear"])
    names = UnitNames().after(start, view(mine_back=["Great Bear"]), 1, "play Fireball on op.B1")
    assert names.rows[0] == ((), ("b",))


@pytest.mark.parametrize("lettered", [True, False])
def test_the_attack_header_names_both_units_as_the_question_does(lettered):
    """Issue 49, item 10: no '(attack: F1 > F1)' under 'the opponent's Great
    Bear (op.F1) attacks your ... (F1)': the board's header names the
    attacker and its target from the seat's side, as the question does."""
    session = new_game(game_from_spec("hero", seed=4), 0, "easy", 4).session(None)
    session.narrator.lettered = lettered
    play_through(
        session,
        bot_for_level("easy", 0),
        lambda s: s.state.legal_moves()[0],
        stop=lambda state: state.view(0)["phase"] == "defend",
    )
    header = session.narrator.board(session.state).splitlines()[0]
    attacker, target = header.split("(attack: ")[1].rstrip(")").split(" > ")
    question = session.narrator.asking(session.state)
    assert attacker.startswith("op.") and f"({attacker}) attacks" in question
    assert target == "avatar" and "attacks your avatar" in question or f"({target})" in question
    assert not target.startswith("op.")


def test_selfplay_writes_its_records_with_the_letters():
    """The lab's self-play records name units as the play records do (format
    3, "notation": "names"), and read back to the game that was played."""
    from xenophon.lab.selfplay import selfplay_game, selfplay_job
    from xenophon.play.records import parse_record, replay, rows_text

    [job] = selfplay_job("hero", {}, ["random", "random"], seed=5)
    head, *lines = job["record"]
    assert head["format_version"] == 3 and head["notation"] == "names"
    moves = [line["move"] for line in lines if "move" in line and line["seat"] != "chance"]
    assert not any(re.search(r"\b[FB][1-5]\b", move) for move in moves)
    assert any(re.fullmatch(r"move [a-z]", move) for move in moves)
    written = parse_record(rows_text(job["record"]), "selfplay record")
    played = game_from_spec("hero", seed=5)
    in_slots = selfplay_game(game_from_spec("hero", seed=5), ["random", "random"], 5)
    final, _ = replay(written, played)
    assert final.returns() == in_slots.result
    assert [line["move"] for line in written.lines] == [line["move"] for line in in_slots.lines]


def test_the_questions_legal_moves_name_units_by_their_letters():
    """A window's, a defence's and a target's question list the legal
    answers as 'moves' does: by the units' letters (`guard c`, `play
    Fireball on op.b`), not by slots (`guard B1`) that shift."""
    asked = []

    def choose(session):
        if session.narrator.asks_again(session.state):
            asked.append(session.narrator.asking(session.state).split("Legal:")[-1])
        return random.Random(len(asked)).choice(session.state.legal_moves())

    for seed in (11, 12, 13):
        session = new_game(game_from_spec("hero", seed=seed), 0, "beginner", seed).session(None)
        play_through(session, bot_for_level("beginner", seed), choose)
    assert any(re.search(r"(guard|on) (op\.)?[a-z]\b", legal) for legal in asked)
    assert not [legal for legal in asked if re.search(r"\b(op\.)?[FB][1-5]\b", legal)]


def test_a_guard_is_said_with_the_unit_that_guards_and_what_it_guards():
    """A guard (the human's or the AI's) is a line of its own in the story,
    'the opponent's Forest Guardian (op.d) guards your ...': without it the
    guard's unit was first met as 'destroyed' or 'takes damage'."""
    said = []
    for seed in (11, 12, 13, 14):
        session = new_game(game_from_spec("hero", seed=seed), seed % 2, "beginner", seed)
        session = session.session(None)
        ai, rng = bot_for_level("beginner", seed), random.Random(seed)
        while session.to_move() != "over":
            who = session.to_move()
            if who == "chance":
                session.chance_step()
                continue
            if who == "ai":
                played = session.ai_play(ai, session.ai_search(ai)).shown
            else:
                moves = session.state.legal_moves()
                guards = [m for m in moves if m.text.startswith("guard")]
                played = session.human_play(rng.choice(guards or moves)).text
            lines = session.take_events()
            if played.startswith("guard"):
                said.append(lines)
    assert len(said) >= 2
    for lines in said:
        assert re.fullmatch(
            r"(your|the opponent's) [A-Za-z' ]+ \((op\.)?[a-z]\) guards "
            r"(your|the opponent's) (avatar|[A-Za-z' ]+ \((op\.)?[a-z]\))",
            lines[0],
        ), lines


@pytest.mark.parametrize(
    "typed, example",
    [
        ("atack a > avatar", "attack a > op.b|avatar"),
        ("move", "'move b'"),
        ("guard", "'guard c'"),
        ("attack a", "'attack a > op.b'"),
        ("ability a", "'ability on UNIT'"),
        ("target", "'target op.b'"),
        ("play Fireball on", "a unit is missing after 'on'"),
    ],
)
def test_a_malformed_move_is_explained_with_letters(typed, example):
    """Where the game names units by letters, a malformed move's examples do
    too ('attack a > op.b'), not by the slots ('attack F1 > op.F2') the
    question, 'moves' and the rules no longer use."""
    from xenophon.kernel.errors import XenophonError

    session = new_game(game_from_spec("hero", seed=11), 0, "beginner", 11).session(None)
    with pytest.raises(XenophonError) as refused:
        session.human_play(typed)
    assert example in str(refused.value)
    said = str(refused.value).replace("its place, F1-F5 or B1-B5 (op.F1-op.B5)", "")
    assert not re.search(r"\b(op\.)?[FB][1-5]\b|SLOT|slot", said), refused.value


def cell_names(board):
    """{letter: card} of a Hero board drawn as rows (xenophon.hero.render):
    each cell's first line starts with the letter, its second is the card."""
    lines = board.splitlines()
    found = {}
    for top, below in zip(lines, lines[1:]):
        for start in range(0, len(top), 16):
            words = top[start : start + 15].split()
            if len(words) == 2 and "/" in words[1]:
                found[words[0]] = below[start : start + 15].strip()
    return found
