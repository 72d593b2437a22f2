"""The learned evaluation's Anabasis features for one side, computed the slow
and readable way from the oracle's state: the reference the C features
(src/engine_c/anabasis/features.c) are tested against (tests/test_evaluation.py,
through xenophon.kernel.oracle.reference_features)."""

from __future__ import annotations

from typing import Any

from xenophon.anabasis import oracle


def feature_side(st: Any, p: int) -> dict[str, float]:
    game = st.game
    cards = game.cards.cards
    player = st.players[p]
    enemy_castle = oracle.CASTLE[1 - p]
    castles = set(oracle.CASTLE)
    v: dict[str, float] = dict.fromkeys(
        ("material", "characters", "damage", "threat", "territories", "funds_income", "ap_income"),
        0.0,
    )
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
    enemies = {
        q
        for q, piece in st.grid.items()
        if piece.owner != p and cards[piece.card].kind == "character"
    }
    cemetery = sum(n for c, n in player.cemetery.items() if cards[c].kind != "event")
    face_up_market = [c for c in st.tops if c is not None] + [
        c for c, n in st.row.items() for _ in range(n)
    ]
    owned = [
        float(player.deck.get(c, 0) + player.hand.get(c, 0) + player.flow.get(c, 0))
        for c in range(len(cards))
    ]
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
        "ready": float(
            sum(
                1
                for q, piece in st.grid.items()
                if piece.owner == p and cards[piece.card].kind == "character" and piece.ready
            )
        ),
        "advanced": float(
            sum(
                1
                for q, piece in st.grid.items()
                if piece.owner == p
                and cards[piece.card].kind == "character"
                and oracle.in_home_zone(1 - p, q)
            )
        ),
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
