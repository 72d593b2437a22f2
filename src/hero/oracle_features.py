"""The learned evaluation's Hero features for one side, computed the slow and
readable way from the oracle's state: the reference the C features
(src/engine_c/hero/features.c) are tested against (tests/test_evaluation.py,
through xenophon.kernel.oracle.reference_features)."""

from __future__ import annotations

import math
from typing import Any

from xenophon.hero import oracle

KEYWORDS = {
    "ranged": "RANGED",
    "blitz": "BLITZ",
    "first_strike": "FIRST_STRIKE",
    "flying": "FLYING",
    "protection": "PROTECTION",
    "horde": "HORDE",
}
DECK_SAFE = 5  # a deck of this many cards is safe (deck_safety)


def castable(st: Any, p: int) -> float:
    """Cards in hand whose cost fits the charisma left this turn."""
    player = st.players[p]
    left = player.avatar.charisma - player.charisma_used
    return float(sum(n for c, n in player.hand.items() if st.card(c).cost <= left))


def exposed(st: Any, p: int) -> float:
    """Used front-row units the enemy's strongest unit could destroy, less
    standby front-row units, at least 0."""
    enemy = st.players[1 - p]
    enemy_power = max(
        (st.power(1 - p, u) for row in (oracle.FRONT, oracle.BACK) for u in enemy.rows[row]),
        default=0,
    )
    front = st.players[p].rows[oracle.FRONT]
    at_risk = sum(1 for u in front if u.used and st.power(p, u) <= enemy_power)
    guards = sum(1 for u in front if not u.used)
    return float(max(at_risk - guards, 0))


def unguarded_attack(st: Any, p: int) -> float:
    """The attack of p's next battle beyond the enemy's standby guards, each
    guarding one of the strongest attacks."""
    active = st.active == p
    units = [u for row in (oracle.FRONT, oracle.BACK) for u in st.players[p].rows[row]]
    attackers = [u for u in units if not u.used] if active else [u for u in units if not u.is_token]
    enemy = [u for row in (oracle.FRONT, oracle.BACK) for u in st.players[1 - p].rows[row]]
    guards = [u for u in enemy if not u.used and (active or not u.is_token)]
    attacks = sorted(st.attack_value(p, u) for u in attackers)
    return float(sum(attacks[: max(len(attacks) - len(guards), 0)]))


def feature_side(st: Any, p: int) -> dict[str, float]:
    player = st.players[p]
    avatar = player.avatar
    hp = max(player.hp, 0)
    side = dict.fromkeys(
        (
            "front_units",
            "back_units",
            "front_power",
            "back_power",
            "front_attack",
            "back_attack",
            "damage",
            "tokens",
            "ready_units",
            *KEYWORDS,
            "hand_units",
            "hand_power",
            "hand_cost",
            "known",
        ),
        0.0,
    )
    on_field = [0.0] * len(st.game.cards.cards)
    for row, name in ((oracle.FRONT, "front"), (oracle.BACK, "back")):
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
            for feature, keyword in KEYWORDS.items():
                side[feature] += keyword in keywords
    for card_id, n in player.hand.items():
        card = st.card(card_id)
        side["hand_cost"] += n * card.cost / 10.0
        if card.is_unit:
            unit = oracle.Unit(card_id)
            side["hand_units"] += n
            side["hand_power"] += n * (st.power(p, unit) / 1000.0 + st.attack_value(p, unit))
        side["known"] += player.known.get(card_id, 0)
    deck = sum(player.deck.values())
    attack = side["front_attack"] + side["back_attack"]
    enemy_hp = max(st.players[1 - p].hp, 0)
    side.update(
        {
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
            "deck_safety": min(deck, DECK_SAFE) / DECK_SAFE,
            "deck_danger": 1.0 / (1 + deck),
            "charisma_left": float(avatar.charisma - player.charisma_used),
            "ability_used": float(bool(player.ability_used)),
            "castable": castable(st, p),
            "exposed": exposed(st, p),
            "unguarded_attack": unguarded_attack(st, p),
        }
    )
    side["unguarded_lethal"] = float(side["unguarded_attack"] >= enemy_hp)
    # one feature per card of the set, by group, in card id order
    for card in st.game.cards.cards:
        side[f"in_hand:{card.name}"] = float(player.hand.get(card.id, 0))
    for card in st.game.cards.cards:
        side[f"in_deck:{card.name}"] = player.deck.get(card.id, 0) / deck if deck else 0.0
    for card in st.game.cards.cards:
        side[f"on_field:{card.name}"] = on_field[card.id]
    return side
