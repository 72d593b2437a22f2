"""The learned evaluation's Anabasis features for one side, computed the slow
and readable way from the oracle's state: the reference the C features
(src/engine_c/anabasis/features.c) are tested against (tests/test_evaluation.py,
through xenophon.kernel.oracle.reference_features)."""

from __future__ import annotations

from typing import Any

from xenophon.anabasis import oracle


def castle_reach(st: Any, p: int) -> float:
    """The attack of p's characters that can strike the enemy castle from
    their square or after one move onto an empty square."""
    game = st.game
    enemy_castle = oracle.CASTLE[1 - p]
    empty = set(range(oracle.N_FILES * oracle.N_RANKS)) - set(st.grid) - set(oracle.CASTLE)
    attack = 0.0
    for q, piece in st.grid.items():
        card = game.cards.cards[piece.card]
        if piece.owner != p or card.kind != "character" or not card.attack:
            continue
        moves = set(game.reach(card.move, p, q)) & empty if card.move else set()
        if any(enemy_castle in game.reach(card.attack, p, sq) for sq in {q} | moves):
            attack += card.atk + piece.atk_bonus
    return attack


def flood_margin(st: Any, p: int) -> float:
    """The most enemy characters less own on one rank, at least 0."""
    best = 0
    for rank in range(oracle.N_RANKS):
        margin = 0
        for q, piece in st.grid.items():
            if q // oracle.N_FILES == rank and st.game.cards.cards[piece.card].kind == "character":
                margin += 1 if piece.owner != p else -1
        best = max(best, margin)
    return float(best)


def event_sides(st: Any, p: int, threat: float, attacked_enemies: float) -> dict[str, float]:
    """Held events (hand and face-down slots) and their option values."""
    cards = st.game.cards.cards
    held = [cards[c].effect for c, n in st.players[p].hand.items() for _ in range(n)]
    held = [effect for effect in held if effect]
    face_down = [cards[s.card].effect for s in st.players[p].slots if s and not s.face_up]
    held += face_down
    enemy_face_down = any(s and not s.face_up for s in st.players[1 - p].slots)
    floods = held.count("flood")
    return {
        "held_events": float(len(held)),
        "flood_targets": floods * flood_margin(st, p) if floods else 0.0,
        "rally_targets": float(held.count("rally")) if threat or attacked_enemies else 0.0,
        "nullify_cover": float(face_down.count("nullify")) if enemy_face_down else 0.0,
    }


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
    side.update(event_sides(st, p, side["threat"], side["attacked_enemies"]))
    side["castle_reach"] = castle_reach(st, p)
    for card in cards:
        side[f"grid:{card.name}"] = grid[card.id]
    for card in cards:
        side[f"owned:{card.name}"] = owned[card.id]
    return side
