"""Every card's effect told in full (issue 66 item 1): in both games, the
line a card's effect is told by names the card and every unit it touched,
by the name the seat reads on its board (a Hero unit's letter, an Anabasis
square)."""

import random
import re
from collections import Counter

import pytest

from xenophon.hero.cards import Deck, load_card_set
from xenophon.hero.describe import HeroNarrator
from xenophon.hero.game import Game as HeroGame
from xenophon.kernel.game import CHANCE
from xenophon.kernel.narration import narrator_for
from xenophon.kernel.registry import make_game

CARDS = load_card_set()


def unit(card, used=False):
    printed = CARDS.by_name(card)
    return {
        "card": card,
        "token": False,
        "power": printed.power,
        "attack": printed.attack,
        "damage": 0,
        "used": used,
        "can_move": True,
        "pump_power": 0,
        "pump_attack": 0,
    }


#: a field of player 0's that meets every card's condition (a card of each
#: colour twice, nine in all with the avatar) and one of player 1's with
#: units an effect destroys, damages, taps or returns
MY_FRONT = [
    unit("Goblin Raider", used=True),
    unit("Flame Lancer"),
    unit("Skeleton Soldier"),
    unit("Sky Scout"),
    unit("Wolf Pack"),
]
MY_BACK = [unit("Skeleton Soldier"), unit("Sky Scout"), unit("Wolf Pack")]
THEIR_FRONT = [unit("Sky Scout"), unit("Great Bear", used=True)]
THEIR_BACK = [unit("Forest Guardian")]


DECK_REST = {"Mercenary": 10}


def deck_of(cards, avatar, units, hand):
    """A deck holding exactly the units on the field, the hand and the rest."""
    wanted = Counter(u["card"] for u in units) + Counter(hand) + Counter(DECK_REST)
    counts = tuple(wanted[card.name] for card in cards.cards)
    return Deck("test", cards.avatar_by_name(avatar), counts, cards.digest)


def hero_state(card):
    """Player 0's Action phase with `card` in hand, the fields above."""
    cards = CARDS
    decks = [
        deck_of(cards, "Flame Warlord", MY_FRONT + MY_BACK, {card: 1}),
        deck_of(cards, "Night Queen", THEIR_FRONT + THEIR_BACK, {}),
    ]
    game = HeroGame(decks, seed=1, cards=cards)
    data = game.new_initial_state().to_dict()
    data.update(turn=3, active=0, current=0, phase="action", pending=None, attack=None)
    for player, (hand, front, back) in enumerate(
        (({card: 1}, MY_FRONT, MY_BACK), ({}, THEIR_FRONT, THEIR_BACK))
    ):
        data["players"][player].update(
            hand=hand,
            hand_size=len(hand),
            known={},
            deck=dict(DECK_REST),
            deck_size=10,
            graveyard={},
            exile={},
            charisma_used=0,
            ability_used=False,
            front=[dict(u) for u in front],
            back=[dict(u) for u in back],
        )
    return game.state_from_dict(data)


def touched_labels(before, after, names_before, names_after):
    """The labels (a, op.b) of the units a step changed or removed, found
    without the narrator: each side's letters, unit by unit."""
    labels = set()
    for owner, prefix in ((0, ""), (1, "op.")):
        for names, view, other_names, other in (
            (names_before, before, names_after, after),
            (names_after, after, names_before, before),
        ):
            for row, units in enumerate(
                (view["players"][owner]["front"], view["players"][owner]["back"])
            ):
                for index, entry in enumerate(units):
                    letter = names.name(owner, row, index)
                    match = [
                        other_units[i]
                        for r, other_units in enumerate(
                            (other["players"][owner]["front"], other["players"][owner]["back"])
                        )
                        for i in range(len(other_units))
                        if other_names.name(owner, r, i) == letter
                    ]
                    if not match or any(
                        match[0][k] != entry[k] for k in ("power", "attack", "damage", "used")
                    ):
                        labels.add(prefix + letter)
    return labels


def effect_steps(state):
    """Each way to use the card in hand or the avatar's ability: the steps
    (texts) that resolve it (a deploy and its target; a draw's cards)."""
    for move in state.legal_moves():
        if move.text.split()[0] not in ("play", "deploy", "ability"):
            continue
        after = state.copy()
        after.apply(move)
        if after.is_chance():
            yield [move.text, after.legal_moves()[0].text]
        elif after.view(0).get("pending"):
            for target in after.legal_moves():
                yield [move.text, target.text]
        else:
            yield [move.text]


def narrate(state, texts):
    """The lines of the steps and the units they touched."""
    narrator = HeroNarrator(state, 0)
    lines, touched = [], set()
    for text in texts:
        before = state.view(0)
        names_before = narrator.names.covering(before)
        actor = CHANCE if state.is_chance() else state.current_player
        state.apply(state.move(text))
        after = state.view(0)
        lines += narrator.events(before, after, actor, text)
        touched |= touched_labels(before, after, names_before, narrator.names)
    return lines, touched


def hero_sources():
    cards = make_game("hero", seed=1).cards
    return [card.name for card in cards.cards if card.effects]


@pytest.mark.parametrize("card", hero_sources())
def test_every_hero_effect_names_its_card_and_each_unit_it_touched(card):
    state = hero_state(card)
    ways = list(effect_steps(state))
    assert any(card in " ".join(texts) for texts in ways), f"{card} is never playable here"
    for texts in ways:
        if card not in texts[0] and not texts[0].startswith("ability"):
            continue
        source = card if card in texts[0] else "Flame Warlord"
        lines, touched = narrate(state.copy(), texts)
        told = [line for line in lines if source in line]
        assert told, (texts, lines)
        for label in touched - {"a" if texts[0].startswith("deploy") else ""}:
            assert any(f"({label})" in line for line in told), (texts, label, lines)


def anabasis_events():
    cards = make_game("anabasis", seed=1).cards
    return {card.name for card in cards.cards if card.kind == "event"}


def changed_squares(before, after):
    """The squares whose card, owner, damage or ATK bonus a step changed."""
    keys = ("card", "owner", "damage", "atk_bonus")
    return {
        square
        for square in set(before["grid"]) | set(after["grid"])
        if [before["grid"].get(square, {}).get(k) for k in keys]
        != [after["grid"].get(square, {}).get(k) for k in keys]
    }


def eager_move(state, rng):
    """A random move, with events bought, set and activated whenever they can be."""
    moves = state.legal_moves()
    for kind in ("event", "set", "buy"):
        eager = [m for m in moves if m.text.split()[0] == kind]
        if kind == "buy":
            eager = [m for m in eager if m.text.split()[1] in EVENT_WORDS_FIRST]
        if eager and rng.random() < 0.8:
            return rng.choice(eager)
    return rng.choice(moves)


#: first words of the events' names (what 'buy' is followed by)
EVENT_WORDS_FIRST = {name.split()[0] for name in anabasis_events()}


#: what an event's line says it did, where no square shows it
OUTCOME_WORDS = {
    "evasion": "the attack is cancelled",
    "ambush": "strikes the attacker first",
    "fortify": "deals no damage",
    "forced_march": " AP (",
    "windfall": " funds (",
}


def test_every_anabasis_event_names_its_card_and_each_square_it_touched():
    wanted, seen = anabasis_events(), set()
    for seed in range(40):
        state = make_game("anabasis", seed=seed).new_initial_state()
        rng = random.Random(seed)
        narrator = narrator_for(state, 0)
        told, squares, card = [], set(), None
        for _ in range(1500):
            if state.is_terminal() or seen == wanted:
                break
            actor = CHANCE if state.is_chance() else state.current_player
            move = state.sample_chance(rng) if actor == CHANCE else eager_move(state, rng)
            before = state.view(0)
            text = move.text if state.observed_by(move.code, 0) else None
            state.apply(move)
            after = state.view(0)
            lines = narrator.events(before, after, actor, text)
            activated = [line for line in lines if " activated " in line]
            if activated:
                card = next(name for name in wanted if f"activated {name}" in activated[0])
                told, squares = [], set()
            if card is None:
                continue
            told += lines
            squares |= changed_squares(before, after)
            if after["phase"] != "nullify":  # the event has taken effect (or been cancelled)
                naming = [line for line in told if card in line]
                assert naming, (card, told)
                for square in squares:  # named with what happened to it
                    assert any(
                        square in line and re.search(r"damage|destroyed|ATK|moves", line)
                        for line in naming
                    ), (card, square, told)
                effect = narrator.cards.by_name(card).effect
                if effect in OUTCOME_WORDS and not any("it has no effect" in line for line in told):
                    words = OUTCOME_WORDS[effect]
                    assert any(words in line for line in naming), (card, words, told)
                seen.add(card)
                card = None
    assert seen == wanted
