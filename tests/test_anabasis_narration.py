"""Anabasis told in words (xenophon.anabasis.describe): what issue 49 item 8
found unclear in the terminal's lines — the counter-strike unnamed, "2 HPs
left", nothing said after a Nullify, and a Nullify window that offered a
Nullify the player did not hold."""

import copy
import random

from xenophon.anabasis.describe import AnabasisNarrator
from xenophon.kernel.registry import make_game


def narrator_and_view(seat=0):
    state = make_game("anabasis", seed=1).new_initial_state()
    while state.is_chance():
        state.apply(state.sample_chance(random.Random(1)))
    return AnabasisNarrator(state, seat), state.view(seat)


def test_damage_says_hp_left_without_a_plural():
    narrator, before = narrator_and_view()
    square, entry = next((q, e) for q, e in before["grid"].items() if e["card"] == "Village")
    after = copy.deepcopy(before)
    after["grid"][square]["damage"] = entry["damage"] + 1
    left = narrator.cards.by_name("Village").hp - entry["damage"] - 1
    lines = narrator._grid_lines(before["grid"], after["grid"], None)
    assert lines == [f"your Village on {square} takes 1 damage ({left} HP left)"]


def test_the_counter_strike_is_named_and_an_ambush_strikes_first():
    narrator, view = narrator_and_view()
    narrator.events(view, view, 0, "attack c2xc3")
    assert narrator.chance_phrase("strike", ["hit"], 1) == "strike: hit"
    assert narrator.chance_phrase("strike", ["miss"], 1) == "counter-strike: miss"
    narrator.events(view, view, 0, "attack c2xc3")
    narrator.activated(1, "Ambush")
    assert narrator.chance_phrase("strike", ["hit"], 1) == "ambush strike: hit"
    assert narrator.chance_phrase("strike", ["crit"], 1) == "strike: crit"


def test_a_nullify_says_what_it_cancelled():
    narrator, view = narrator_and_view()
    assert narrator.activated(1, "Ambush") == []
    assert narrator.activated(0, "Nullify") == [
        "the opponent's Ambush is cancelled: it has no effect"
    ]
    narrator.events(view, view, 0, "attack c2xc3")
    narrator.ambush = False  # a new battle: the target strikes back second
    assert narrator.chance_phrase("strike", ["hit"], 1) == "strike: hit"


def nullify_windows():
    """A nullify window of each kind, from random games: {holds a Nullify: (state, seat)}."""
    found = {}
    for seed in range(300):
        game = make_game("anabasis", seed=seed)
        state, rng = game.new_initial_state(), random.Random(seed)
        for _ in range(400):
            if state.is_terminal() or len(found) == 2:
                break
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            seat = state.current_player
            view = state.view(seat)
            if view["phase"] == "nullify":
                held = any(
                    slot
                    and not slot["face_up"]
                    and game.cards.by_name(slot["card"]).effect == "nullify"
                    for slot in view["players"][seat]["slots"]
                )
                found.setdefault(held, (state.copy(), seat))
            state.apply(rng.choice(state.legal_moves()))
    assert len(found) == 2
    return found


def test_the_nullify_window_offers_a_nullify_only_to_its_holder():
    for held, (state, seat) in nullify_windows().items():
        question = AnabasisNarrator(state, seat).asking(state)
        assert question.startswith("Nullify window:")
        if held:
            assert "with your Nullify cancels it" in question
        else:
            assert "you hold no Nullify: 'pass' lets it happen" in question
            assert "with your Nullify" not in question


def test_a_territory_bought_onto_the_board_says_where_it_stands():
    """'buy Village a1' stands the Village on a1 at once: the line says so
    ('you bought Village for 2 funds' alone left the new card on the board
    unexplained)."""
    state = make_game("anabasis", seed=1).new_initial_state()
    while state.is_chance():
        state.apply(state.sample_chance(random.Random(1)))
    narrator = AnabasisNarrator(state, 0)
    move = next(m for m in state.legal_moves() if m.text.startswith("buy Village "))
    square = move.text.split()[-1]
    before = state.view(0)
    state.apply(move)
    lines = narrator.events(before, state.view(0), 0, move.text)
    assert lines[0].startswith("you bought Village for 2 funds (")
    assert lines[0].endswith(f"left) and stood it on {square}, face down until your next Standby 1")
    assert not [line for line in lines[1:] if square in line], lines
