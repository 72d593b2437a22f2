"""The learned evaluation's features, computed the slow and readable way from
the oracle's state: the reference the C features (src/engine_c/*/features.c)
are tested against (tests/test_evaluation.py).

Each feature is a per-side value, the evaluating player's minus the other
seat's, named as the C core names it (``Tables.feature_names``).

>>> from xenophon.anabasis import Game
>>> game = Game(seed=1)
>>> state = game.new_initial_state()
>>> state.resolve_chance(game.rng)
>>> reference_features(state, 0)["first_seat"]
1.0
"""
from __future__ import annotations

import math
from typing import Any

from xenophon.reference import anabasis as oracle_anabasis
from xenophon.reference import hero as oracle_hero

HERO_KEYWORDS = {"ranged": "RANGED", "blitz": "BLITZ", "first_strike": "FIRST_STRIKE",
                 "flying": "FLYING", "protection": "PROTECTION", "horde": "HORDE"}
HERO_DECK_SAFE = 5          # a deck of this many cards is safe (deck_safety)


def _differences(mine: dict[str, float], theirs: dict[str, float]) -> dict[str, float]:
    return {name: float(mine[name] - theirs[name]) for name in mine}


# -- Anabasis -----------------------------------------------------------------

def _anabasis_side(st: Any, p: int) -> dict[str, float]:
    game = st.game
    cards = game.cards.cards
    player = st.players[p]
    enemy_castle = oracle_anabasis.CASTLE[1 - p]
    castles = set(oracle_anabasis.CASTLE)
    v: dict[str, float] = dict.fromkeys(
        ("material", "characters", "damage", "threat", "territories", "funds_income",
         "ap_income"), 0.0)
    grid = [0.0] * len(cards)
    struck: set[int] = set()
    for q, piece in st.grid.items():
        if piece.owner != p:
            continue
        card = cards[piece.card]
        grid[card.id] += 1
        if card.kind == "character":
            reach = set(game.reach(card.attack, p, q)) if card.attack else set()
            v["material"] += card.cost * (card.hp - piece.damage) / card.hp / 20.0
            v["characters"] += 1
            v["damage"] += piece.damage
            v["threat"] += enemy_castle in reach
            struck |= reach
        elif not piece.face_down:
            v["territories"] += 1
            v["funds_income"] += card.funds_income
            v["ap_income"] += card.ap_income
    enemies = {q for q, piece in st.grid.items()
               if piece.owner != p and cards[piece.card].kind == "character"}
    cemetery = sum(n for c, n in player.cemetery.items() if cards[c].kind != "event")
    face_up_market = [c for c in st.tops if c is not None] + \
        [c for c, n in st.row.items() for _ in range(n)]
    owned = [float(player.deck.get(c, 0) + player.hand.get(c, 0) + player.flow.get(c, 0))
             for c in range(len(cards))]
    slots = [slot for slot in player.slots if slot is not None]
    for slot in slots:
        owned[slot.card] += 1
    side = {
        "to_move": float(st.active == p),
        "first_seat": float(p == 0),
        "castle": player.castle_hp / game.castle_hp,
        "castle_danger": 1.0 / (1 + max(player.castle_hp, 0)),
        "cemetery": cemetery / game.cemetery_limit,
        "cemetery_danger": 1.0 / (1 + max(game.cemetery_limit - cemetery, 0)),
        "material": v["material"],
        "characters": v["characters"],
        "damage": v["damage"],
        "threat": v["threat"],
        "tempo_threat": v["threat"] if st.active == p else 0.0,
        "castle_pressure": v["threat"] / (1 + max(st.players[1 - p].castle_hp, 0)),
        "attacked_squares": float(len(struck - castles)),
        "attacked_enemies": float(len(struck & enemies)),
        "tempo_attacks": float(len(struck & enemies)) if st.active == p else 0.0,
        "ready": float(sum(1 for q, piece in st.grid.items() if piece.owner == p
                           and cards[piece.card].kind == "character" and piece.ready)),
        "advanced": float(sum(1 for q, piece in st.grid.items() if piece.owner == p
                              and cards[piece.card].kind == "character"
                              and oracle_anabasis.in_home_zone(1 - p, q))),
        "territories": v["territories"],
        "funds_income": v["funds_income"],
        "ap_income": v["ap_income"],
        "funds": float(player.funds),
        "ap": float(player.ap),
        "affordable": float(sum(st._price(c) <= player.funds for c in face_up_market)),
        "deck": float(sum(player.deck.values())),
        "hand": float(sum(player.hand.values())),
        "flow": float(sum(player.flow.values())),
        "slots": float(len(slots)),
        "slots_up": float(sum(slot.face_up for slot in slots)),
    }
    for card in cards:
        side[f"grid:{card.name}"] = grid[card.id]
    for card in cards:
        side[f"owned:{card.name}"] = owned[card.id]
    return side


# -- Hero ---------------------------------------------------------------------

def _hero_side(st: Any, p: int) -> dict[str, float]:
    player = st.players[p]
    avatar = player.avatar
    hp = max(player.hp, 0)
    side = dict.fromkeys(
        ("front_units", "back_units", "front_power", "back_power", "front_attack",
         "back_attack", "damage", "tokens", "ready_units", *HERO_KEYWORDS,
         "hand_units", "hand_power", "hand_cost", "known"), 0.0)
    on_field = [0.0] * len(st.game.cards.cards)
    for row, name in ((oracle_hero.FRONT, "front"), (oracle_hero.BACK, "back")):
        for unit in player.rows[row]:
            side[f"{name}_units"] += 1
            side[f"{name}_power"] += st.power(p, unit) / 1000.0
            side[f"{name}_attack"] += st.attack_value(p, unit)
            side["damage"] += unit.damage / 1000.0
            side["tokens"] += unit.is_token
            if not unit.is_token:
                on_field[unit.card] += 1
            side["ready_units"] += not unit.used
            keywords = st._keywords(unit)
            for feature, keyword in HERO_KEYWORDS.items():
                side[feature] += keyword in keywords
    for card_id, n in player.hand.items():
        card = st.card(card_id)
        side["hand_cost"] += n * card.cost / 10.0
        if card.is_unit:
            unit = oracle_hero.Unit(card_id)
            side["hand_units"] += n
            side["hand_power"] += n * (st.power(p, unit) / 1000.0 + st.attack_value(p, unit))
        side["known"] += player.known.get(card_id, 0)
    deck = sum(player.deck.values())
    attack = side["front_attack"] + side["back_attack"]
    enemy_hp = max(st.players[1 - p].hp, 0)
    side.update({
        "pressure": attack / (1 + enemy_hp),
        "lethal": float(attack >= enemy_hp),
        "tempo_attack": attack if st.active == p else 0.0,
        "to_move": float(st.active == p),
        "first_seat": float(p == 0),
        "hp_sqrt": math.sqrt(min(hp / avatar.hp, 1.0)),
        "hp": player.hp / avatar.hp,
        "hp_danger": 1.0 / (1 + hp),
        "hand": float(sum(player.hand.values())),
        "deck": float(deck),
        "deck_safety": min(deck, HERO_DECK_SAFE) / HERO_DECK_SAFE,
        "deck_danger": 1.0 / (1 + deck),
        "charisma_left": float(avatar.charisma - player.charisma_used),
        "ability_used": float(bool(player.ability_used)),
    })
    # one feature per card of the set, by group, in card id order
    for card in st.game.cards.cards:
        side[f"in_hand:{card.name}"] = float(player.hand.get(card.id, 0))
    for card in st.game.cards.cards:
        side[f"in_deck:{card.name}"] = player.deck.get(card.id, 0) / deck if deck else 0.0
    for card in st.game.cards.cards:
        side[f"on_field:{card.name}"] = on_field[card.id]
    return side


SIDES = {"anabasis": _anabasis_side, "hero": _hero_side}


def reference_features(state: Any, player: int) -> dict[str, float]:
    """{feature name: value} of a public `State` (either game) for `player`,
    computed on the oracle's copy of the position."""
    from xenophon.game import _engine_factory
    oracle = _engine_factory("oracle", state.game.name)(state.game)
    st = oracle.state_from_dict(state.to_dict())
    side = SIDES[state.game.name]
    return _differences(side(st, player), side(st, 1 - player))
