"""Error lines quote what a user or a file gave safely: control characters
escaped (no escape sequence, bell or newline reaches the terminal, and the
line stays one), long text cut with "...", and a failed save said in words.
`xenophon.kernel.errors.shown` owns this; the command line's own tests of it
are in test_record_files.py."""

import json
import re

import pytest

from conftest import GAME_NAMES
from xenophon.anabasis.cards import load_card_set as load_anabasis_cards
from xenophon.hero.cards import load_card_set as load_hero_cards
from xenophon.hero.cards import load_deck
from xenophon.kernel.cardfile import packaged_data
from xenophon.kernel.errors import MAX_LINE, MAX_SHOWN, XenophonError, one_line, shown
from xenophon.kernel.registry import make_game
from xenophon.protocol import engine

#: what a line must never hold: C0 and C1 controls, DEL, line separators
RAW = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: text a hostile file quotes: an OSC title, a bell, a colour, a newline, a
#: line separator, a right-to-left override, and 5,000 more characters
HOSTILE = "\x1b]0;pwned\x07\x1b[31mred\nnext line\u2028\u202e" + "y" * 5000


def assert_one_clean_line(message: str) -> None:
    assert not RAW.search(message), repr(message[:300])
    assert len(message) <= MAX_LINE + 3, len(message)


# -- the helper --------------------------------------------------------------------
def test_shown_escapes_control_characters_as_python_writes_them():
    assert shown("a\x1b[31mb\x07c\nd\re\tf") == "a\\x1b[31mb\\x07c\\nd\\re\\tf"
    assert shown("\x85\x9b\x7f") == "\\x85\\x9b\\x7f"
    assert shown("\u2028\u2029\u202e\u2066\udcff") == "\\u2028\\u2029\\u202e\\u2066\\udcff"
    assert shown("Militia, 民兵 é") == "Militia, 民兵 é"  # printable text is kept


def test_shown_cuts_long_text_with_an_ellipsis():
    assert shown("x" * MAX_SHOWN) == "x" * MAX_SHOWN
    assert shown("x" * (MAX_SHOWN + 1)) == "x" * MAX_SHOWN + "..."
    assert shown("x" * 10_000_000, 5) == "xxxxx..."
    escaped = shown("\x1b" * 300)  # escapes count towards the cut
    assert len(escaped) == MAX_SHOWN + 3 and escaped.endswith("...")
    assert shown("x" * 5000, None) == "x" * 5000
    assert one_line("y" * 10_000) == "y" * MAX_LINE + "..."


def test_every_project_error_is_one_line():
    error = XenophonError(f"file{HOSTILE[:40]}: bad")
    assert_one_clean_line(str(error))
    assert "\\x1b]0;pwned\\x07" in str(error) and "\\n" in str(error)


# -- card and deck files -------------------------------------------------------------
def string_mutants(text: str) -> list[str]:
    """The file with one of its quoted strings (a value or a key) replaced by
    HOSTILE, as a TOML escape, for each string in turn."""
    hostile = json.dumps(HOSTILE)  # a TOML basic string takes JSON's escapes
    spans = [match.span() for match in re.finditer(r'"(?:[^"\\\n]|\\.)*"', text)]
    bare_keys = [match.span(1) for match in re.finditer(r"^([a-z_]+) =", text, re.MULTILINE)]
    return [text[:start] + hostile + text[end:] for start, end in spans + bare_keys]


CARD_FILES = {
    "anabasis cards": (packaged_data("anabasis", "cards.toml"), load_anabasis_cards),
    "hero cards": (packaged_data("hero", "cards.toml"), load_hero_cards),
    "hero deck": (
        packaged_data("hero", "decks", "wild_grove.toml"),
        lambda path: load_deck(path, load_hero_cards()),
    ),
}


@pytest.mark.parametrize("kind", sorted(CARD_FILES))
def test_card_file_errors_quote_hostile_text_on_one_short_line(kind, tmp_path):
    """A newline in a card, key or deck name split the one line of its error
    (24 of 1,750 card mutants); an escape sequence reached the terminal."""
    source, load = CARD_FILES[kind]
    mutants = string_mutants(source.read_text())
    assert len(mutants) > 10
    refused = 0
    for number, text in enumerate(mutants):
        path = tmp_path / f"mutant{number}.toml"
        path.write_text(text)
        try:
            load(path)
        except XenophonError as error:
            refused += 1
            assert_one_clean_line(str(error))
            assert len(str(error)) < len(str(path)) + 4 * MAX_SHOWN + 200, str(error)
    assert refused > len(mutants) // 4  # the mutants are refused, not all accepted


# -- moves, specs, settings and queries ---------------------------------------------
@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_hostile_move_is_quoted_on_one_short_line(game):
    state = make_game(game, seed=1).new_initial_state()
    for text in (HOSTILE, "x" * 10_000_000, "buy " + HOSTILE, "place " + HOSTILE + " c2"):
        with pytest.raises(XenophonError) as caught:
            state.move(text)
        assert_one_clean_line(str(caught.value))
        assert len(str(caught.value)) < 2 * MAX_SHOWN + 300


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_card_command_quotes_an_unknown_name_on_one_short_line(game):
    from xenophon.kernel.narration import narrator_for

    state = make_game(game, seed=1).new_initial_state()
    with pytest.raises(KeyError) as caught:
        narrator_for(state, 0).card_lines(state, HOSTILE)
    assert_one_clean_line(caught.value.args[0])
    assert len(caught.value.args[0]) < MAX_SHOWN + 100


def test_specs_and_levels_quote_hostile_text_on_one_short_line():
    from xenophon.kernel.registry import game_from_spec
    from xenophon.play.levels import bot_for_level
    from xenophon.play.players import make_bot

    attempts = [
        lambda: game_from_spec(HOSTILE),
        lambda: game_from_spec("anabasis:mode=" + HOSTILE),
        lambda: game_from_spec("anabasis:" + HOSTILE + "=1"),
        lambda: make_bot(HOSTILE, 0),
        lambda: make_bot("ismcts:iterations=" + HOSTILE, 0),
        lambda: make_bot("ismcts:" + HOSTILE + "=1", 0),
        lambda: bot_for_level(HOSTILE, 0),
        lambda: make_game("hero", decks=(HOSTILE, "wild_grove")),
    ]
    for attempt in attempts:
        with pytest.raises(XenophonError) as caught:
            attempt()
        assert_one_clean_line(str(caught.value))
        assert len(str(caught.value)) < 3 * MAX_SHOWN + 400, str(caught.value)


def test_engine_error_answers_quote_a_10_mb_move_cut_short():
    """A move of 10 MB was echoed whole in the error answer (twice)."""
    import io

    lines = [
        json.dumps({"id": 1, "game": "anabasis", "moves": ["x" * 10_000_000]}),
        json.dumps({"id": 2, "game": "anabasis", HOSTILE: 1}),
        json.dumps({"id": 3, "game": "anabasis", "moves": [], "top": HOSTILE}),
    ]
    out = io.BytesIO()
    engine.serve(io.BytesIO("\n".join(lines).encode() + b"\n"), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    for answer in answers:
        assert_one_clean_line(answer["error"])
        assert len(answer["error"]) < 2 * MAX_SHOWN + 400, answer["error"][:500]
        assert "..." in answer["error"]
