"""The notation's names for pieces everywhere (xenophon.kernel.naming; for
Hero, the units' letters of xenophon.hero.names): records written in them
and read back to the same game, older records in slots still read, the
engine protocol taking and giving letters, and the letters a seat is told
derived from what it sees alone."""

import io
import json
import random
import re
from pathlib import Path

import pytest

from harness import random_record
from xenophon.kernel.errors import XenophonError
from xenophon.kernel.naming import MoveNames
from xenophon.kernel.registry import make_game
from xenophon.play.records import (
    NAMED_FORMAT,
    load_record,
    make_game_for,
    named,
    names_before,
    new_record,
    parse_record,
    record_names,
    redact,
    replay,
    seat_view,
)
from xenophon.protocol.engine import legal_moves_query, new_game, serve

DATA = Path(__file__).parent / "data"
SLOT = re.compile(r"\b(op\.)?[FB][1-5]\b")


def hero_record(seed=4, lines=400):
    """A Hero game of random players who deploy when they can (up to
    `lines` steps or its end): units come, move, fight and go."""
    game = make_game("hero", seed=seed)
    record = new_record(game, ["random", "random"])
    state, rng = game.new_initial_state(), random.Random(seed)
    while len(record.lines) < lines and not state.is_terminal():
        if state.is_chance():
            move = state.sample_chance(rng)
        else:
            legal = state.legal_moves()
            deploys = [m for m in legal if m.text.startswith("deploy")]
            move = rng.choice(deploys if deploys and rng.random() < 0.7 else legal)
        record.add(state.current_player, state.apply(move).text)
    return record


def moves(record):
    return [line.get("move") for line in record.lines]


def test_a_record_is_written_in_letters_and_read_back_to_the_same_game(tmp_path):
    record = hero_record()
    game = make_game_for(record)
    final, _ = replay(record, game)
    path = named(record, game).save(tmp_path / "game.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert rows[0]["format_version"] == NAMED_FORMAT and rows[0]["notation"] == "names"
    written = [row["move"] for row in rows[1:] if row.get("seat") != "chance"]
    assert not any(SLOT.search(text) for text in written)
    assert sum(bool(re.search(r"\b(op\.)?[a-z]\b", text)) for text in written) > 20
    back = load_record(path)
    assert back.names
    again, _ = replay(back, make_game_for(back))
    assert moves(back) == moves(record) and not back.names
    assert again.to_bytes() == final.to_bytes()


def test_a_seat_view_record_in_letters_reads_back(tmp_path):
    record = hero_record(seed=6, lines=300)
    game = make_game_for(record)
    view = seat_view(record, game, 1)
    path = named(view, game).save(tmp_path / "view.jsonl")
    back = load_record(path)
    assert back.view == 1 and back.names
    replay(back, make_game_for(back))
    assert moves(back) == moves(view)


def test_an_older_record_in_slots_still_reads():
    """tests/data/hero-units.jsonl was written before the letters: its moves
    name slots, it replays as before, and written again it is in letters."""
    record = load_record(DATA / "hero-units.jsonl")
    assert not record.names
    assert any(SLOT.search(text or "") for text in moves(record))
    before = moves(record)
    game = make_game_for(record)
    final, _ = replay(record, game)
    assert moves(record) == before
    again = parse_record(named(record, game).text(), "again")
    assert again.names and not any(SLOT.search(text or "") for text in moves(again))
    assert replay(again, make_game_for(again))[0].to_bytes() == final.to_bytes()
    assert not load_record(DATA / "legacy-seal" / "hero-save.jsonl").names


def test_a_letter_of_no_unit_in_a_record_is_one_clear_error(tmp_path):
    record = hero_record(seed=4, lines=120)
    game = make_game_for(record)
    text = named(record, game).text()
    broken = re.sub(r'"move": "move [a-z]"', '"move": "move z"', text, count=1)
    assert broken != text, "no 'move' step in the game: the test saw nothing"
    copy = parse_record(broken, "game.jsonl")
    with pytest.raises(XenophonError, match=r"game.jsonl|line \d+: you have no unit 'z'"):
        make_game_for(copy)


def test_a_record_with_an_unknown_notation_is_refused():
    text = named(hero_record(lines=40), make_game("hero", seed=4)).text()
    with pytest.raises(XenophonError, match="'notation' must be"):
        parse_record(text.replace('"notation": "names"', '"notation": "runes"'), "x")


def test_anabasis_records_are_unchanged_by_names():
    record = random_record("anabasis", 2, 200)
    game = make_game_for(record)
    same = named(record, game)
    assert moves(same) == moves(record) and not same.names
    assert same.header()["format_version"] == 1 and "notation" not in same.header()


# -- what a seat is told -----------------------------------------------------------
@pytest.mark.parametrize("seed", [4, 8])
def test_a_seats_letters_come_from_its_own_view(seed):
    """The letters follow from public steps alone: followed from either
    seat's views of the true game, from a seat-view record (its hidden
    steps rebuilt in worlds of the seat's information) or from a redacted
    one, they are the same at every step."""
    record = hero_record(seed=seed, lines=300)
    game = make_game_for(record)
    final, before = replay(record, game)
    states = before + [final]
    true = [names.names for names in names_before(record, game.name, states, seat=0)]
    assert true == [names.names for names in names_before(record, game.name, states, seat=1)]
    assert any(true[-1].rows[seat] != ((), ()) for seat in (0, 1))
    for seat in (0, 1):
        for seen in (seat_view(record, game, seat), redact(record, game, seat)):
            seen_final, seen_before = replay(seen, game)
            seen_names = names_before(seen, game.name, seen_before + [seen_final])
            assert [names.names for names in seen_names] == true
            assert record_names(seen, game, seen_before, seen_final).names == true[-1]


# -- the engine protocol ---------------------------------------------------------
def letter_game():
    """Decisions of a seeded Hero game in letters, as a protocol client plays
    them: the first legal move that names a unit when there is one."""
    played = []
    for _ in range(80):
        answer = new_game({"game": "hero", "seed": 3, "seat": 0, "moves": played})
        if answer["to_move"] != 0:
            answer = new_game({"game": "hero", "seed": 3, "seat": 1, "moves": played})
        legal = answer["legal_moves"]
        assert not any(SLOT.search(text) for text in legal), legal
        named_moves = [t for t in legal if re.match(r"(move|attack|guard) ", t)]
        deploys = [t for t in legal if t.startswith("deploy")]
        played.append((named_moves or deploys or legal)[-1])
    return played


def test_the_protocol_takes_and_gives_letters():
    played = letter_game()
    assert sum(bool(re.match(r"(move|attack|guard) ", text)) for text in played) > 3
    final = new_game({"game": "hero", "seed": 3, "seat": 0, "moves": played})
    seen = [text for text in final["observations"] if isinstance(text, str)]
    assert not any(SLOT.search(text) for text in seen)
    assert any(re.match(r"(move|attack|guard) ", text) for text in seen)


def a_position_with_units():
    """Engine texts of a Hero game from its start (chance included) until
    seat 0 may move a unit; the state, the names and that move's slot text."""
    game = make_game("hero", seed=1)
    state, names, texts = game.new_initial_state(), MoveNames("hero"), []
    while True:
        if state.is_chance():
            move = state.chance_outcomes()[0][0]
        else:
            legal = state.legal_moves()
            moving = [m for m in legal if m.text.startswith("move ")]
            if moving and state.current_player == 0:
                return state, names, texts, moving[-1].text
            move = next((m for m in legal if m.text.startswith("deploy")), legal[0])
        before = state.copy()
        state.apply(move)
        names.step(before, state, before.current_player, move.text)
        texts.append(move.text)


def test_the_protocol_still_reads_a_slot_and_refuses_a_letter_of_no_unit():
    state, names, texts, slot_move = a_position_with_units()
    letter_move = names.said(state, slot_move)
    assert letter_move != slot_move and not SLOT.search(letter_move)
    by_letter = legal_moves_query({"game": "hero", "seed": 1, "moves": texts + [letter_move]})
    by_slot = legal_moves_query({"game": "hero", "seed": 1, "moves": texts + [slot_move]})
    assert by_letter == by_slot
    assert letter_move in legal_moves_query({"game": "hero", "moves": texts})["legal_moves"]
    out = io.BytesIO()
    query = {"command": "legal_moves", "game": "hero", "moves": texts + ["move z"]}
    serve(io.BytesIO(json.dumps(query).encode() + b"\n"), out)
    answer = json.loads(out.getvalue().decode().splitlines()[-1])
    assert "no unit 'z'" in answer["error"], answer


@pytest.mark.parametrize("name, notation", [("hero", "names"), ("anabasis", None)])
def test_a_saved_game_in_progress_is_written_in_names_and_resumes(tmp_path, name, notation):
    from xenophon.play.levels import bot_for_level
    from xenophon.play.session import new_game as new_session
    from xenophon.play.session import play_through, resumed_game

    session = new_session(make_game(name, seed=5), 0, "easy", 5).session(None)
    rng = random.Random(5)
    play_through(
        session,
        bot_for_level("easy", 0),
        lambda s: rng.choice(s.state.legal_moves()),
        stop=lambda state: state.view(0)["turn"] >= 7,
    )
    path = session.save(tmp_path / "game.jsonl")
    head = json.loads(path.read_text().splitlines()[0])
    assert head.get("notation") == notation and "sealed" in head
    resumed = resumed_game(path, None)
    assert resumed.state.to_bytes() == session.state.to_bytes()
    assert resumed.view_lines == session.view_lines
