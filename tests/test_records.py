"""Records: exact replay, atomic saving, redaction for one seat (nothing
hidden leaks, and the seat's view can be rebuilt line by line)."""

import random

import pytest

from xenophon.anabasis import Game as AnabasisGame
from xenophon.hero import Game as HeroGame
from xenophon.kernel.game import CHANCE
from xenophon.play.records import (
    RecordError,
    load_record,
    make_game_for,
    new_record,
    redact,
    replay,
)

GAMES = {"anabasis": AnabasisGame, "hero": HeroGame}


def random_record(name, seed, limit=400):
    game = GAMES[name](seed=seed)
    rng = random.Random(seed)
    state = game.new_initial_state()
    record = new_record(game, ["random", "random"])
    states = []
    while not state.is_terminal() and len(record.lines) < limit:
        player = state.current_player
        move = state.sample_chance(rng) if player == CHANCE else rng.choice(state.legal_moves())
        state.apply_code(move.code)
        record.add(player, move.text)
        states.append(state.copy())
    return game, record, states


@pytest.mark.parametrize("name", sorted(GAMES))
def test_full_record_replays_exactly(name, tmp_path):
    game, record, states = random_record(name, 1)
    path = record.save(tmp_path / "game.jsonl")
    assert not list(tmp_path.glob("*.tmp"))
    loaded = load_record(path)
    final, before = replay(loaded, make_game_for(loaded))
    assert final.to_bytes() == states[-1].to_bytes()
    assert len(before) == len(record.lines)


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("seat", [0, 1])
def test_redacted_record_hides_and_rebuilds_the_view(name, seat, tmp_path):
    game, record, states = random_record(name, 2 + seat)
    redacted = redact(record, game, seat)
    assert redacted.view == seat
    for full, line in zip(record.lines, redacted.lines):
        if line.get("hidden"):
            assert full["seat"] != seat
    if name == "anabasis":
        visible_deals = [l for l in redacted.lines if l.get("move", "").startswith("deal ")]
        assert len(visible_deals) == 3  # the seat's own three, not one of the others
    else:
        opponent_draws_hidden = sum(1 for l in redacted.lines if l.get("hidden"))
        assert opponent_draws_hidden >= 5  # at least the opponent's opening hand
    path = redacted.save(tmp_path / "seat.jsonl")
    loaded = load_record(path)
    rebuilt, before = replay(loaded, make_game_for(loaded), seed=3)
    assert rebuilt.information_set_key(seat) == states[-1].information_set_key(seat)
    for index in range(0, len(before), 25):
        expected = states[index - 1] if index else game.new_initial_state()
        assert before[index].information_set_key(seat) == expected.information_set_key(seat)


def test_record_with_another_card_set_is_refused(tmp_path):
    game, record, _ = random_record("anabasis", 4, limit=30)
    record.card_digest = "0" * 64
    path = record.save(tmp_path / "game.jsonl")
    with pytest.raises(RecordError, match="another card set"):
        make_game_for(load_record(path))


def test_edited_redacted_record_is_refused(tmp_path):
    game, record, _ = random_record("anabasis", 5, limit=80)
    redacted = redact(record, game, 0)
    redacted.lines[60]["key"] = "0123456789abcdef"
    path = redacted.save(tmp_path / "seat.jsonl")
    loaded = load_record(path)
    with pytest.raises(RecordError, match="no world consistent"):
        replay(loaded, make_game_for(loaded))
