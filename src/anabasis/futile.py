"""The moves that spend something for nothing (GamePlugin.futile_moves); a
search with `futile_moves=skip` (the default) leaves them out of its root
unless nothing else is legal (docs/search.md, "Futile moves"). Each is never
better than a move still searched, by the rules (RULES.md A5-A7):

- a Flood Disaster on a rank where no enemy character stands (issue 47): its
  only effect is on the player's own characters, and its card is gone;
- a Rally on a character that can strike nothing more this turn: Rally adds
  to the strikes it makes until the end of the turn, and in its own turn a
  character strikes only when it attacks (`cannot_strike`);
- a move that brings back a position of this turn's own run of decisions
  with fewer AP, e.g. b2-b1 then b1-b2 (`undoes_earlier`): the player had it
  all before and spent AP to lose it.
"""

from __future__ import annotations

from typing import Any

from xenophon.anabasis.notation import EVENT, FILES, MOVE, parse_square, square_name
from xenophon.kernel.codes import decode
from xenophon.kernel.history import own_run_dicts

CASTLES = ("d1", "d6")  # seat 0's, seat 1's
CHARGE = "CHARGE"


def enemy_character_ranks(view: dict[str, Any], cards: Any, seat: int) -> set[int]:
    """The ranks (0-5) where a character of the other seat stands."""
    return {
        parse_square(square) // len(FILES)
        for square, piece in view["grid"].items()
        if piece["owner"] != seat and cards.by_name(piece["card"]).kind == "character"
    }


def futile_moves(state: Any) -> list[int]:
    """The codes of the legal moves named above, read from the acting seat's
    own view (the grid, its own slots) and the position's history."""
    if state.is_terminal() or state.is_chance():
        return []
    seat = state.current_player
    view = state.view(seat)
    cards = state.game.cards
    slots = view["players"][seat]["slots"]
    futile = []
    legal = state.backend.legal_actions()
    for code in legal:
        kind, slot, arg = decode(code)
        if kind != EVENT or slots[slot] is None:
            continue
        effect = cards.by_name(slots[slot]["card"]).effect
        if effect == "flood" and arg not in enemy_character_ranks(view, cards, seat):
            futile.append(code)
        elif effect == "rally" and cannot_strike(view, cards, seat, square_name(arg)):
            futile.append(code)
    return futile + undoing_moves(state, [code for code in legal if decode(code)[0] == MOVE])


# -- Rally --------------------------------------------------------------------


def cannot_strike(view: dict[str, Any], cards: Any, seat: int, square: str) -> bool:
    """The character of `seat` on `square` can attack no enemy card this turn,
    however the rest of the turn goes: over every square it could reach with
    every AP the seat has or can gain (its face-down Forced Marches), a move
    costing 1 AP and an attack none (the cheapest any field card makes them),
    its attack pattern meets no square where an enemy card stands or could
    stand (an enemy character's own move from where it stands: an Emergency
    Evasion moves it during this turn)."""
    piece = view["grid"].get(square)
    if piece is None or piece["owner"] != seat:
        return False
    card = cards.by_name(piece["card"])
    budget = available_ap(view, cards, seat) - (0 if piece["ready"] else 1)
    if budget < 0:
        return True
    reached = reachable_squares(square, card.move.offsets, seat, budget)
    struck = {target for place in reached for target in jumps(place, card.attack.offsets, seat)}
    return not struck & enemy_squares(view, cards, seat)


def available_ap(view: dict[str, Any], cards: Any, seat: int) -> int:
    """The seat's AP and what its face-down Forced Marches would add."""
    player = view["players"][seat]
    marches = [
        cards.by_name(slot["card"]).amount
        for slot in player["slots"]
        if slot is not None
        and not slot["face_up"]
        and cards.by_name(slot["card"]).effect == "forced_march"
    ]
    return player["ap"] + sum(marches)


def jumps(square: str, offsets: Any, seat: int) -> set[str]:
    """The squares one jump of a pattern away (seat 1's turned by 180 degrees),
    on the board and not a castle."""
    q = parse_square(square)
    file, rank = q % len(FILES), q // len(FILES)
    sign = 1 if seat == 0 else -1
    out = set()
    for df, dr in offsets:
        f, r = file + sign * df, rank + sign * dr
        if 0 <= f < len(FILES) and 0 <= r < 6:
            out.add(square_name(r * len(FILES) + f))
    return out


def reachable_squares(square: str, offsets: Any, seat: int, moves: int) -> set[str]:
    """The squares within `moves` jumps of the move pattern, ignoring what
    stands on them (a square freed later in the turn is counted)."""
    reached, frontier = {square}, {square}
    for _ in range(moves):
        frontier = {
            s for place in frontier for s in jumps(place, offsets, seat) if s not in CASTLES
        } - reached
        if not frontier:
            break
        reached |= frontier
    return reached


def enemy_squares(view: dict[str, Any], cards: Any, seat: int) -> set[str]:
    """Where an enemy card stands or could stand this turn: its cards on the
    grid, its castle, and one move of each of its characters."""
    squares = {CASTLES[1 - seat]}
    for square, piece in view["grid"].items():
        if piece["owner"] == seat:
            continue
        squares.add(square)
        card = cards.by_name(piece["card"])
        if card.kind == "character":
            squares |= jumps(square, card.move.offsets, 1 - seat)
    return squares


# -- a move and its undo ------------------------------------------------------


def undoing_moves(state: Any, moves: list[int]) -> list[int]:
    """The `moves` whose position is one of this turn's own run of decisions
    with fewer AP (`dominated_by`); none without a history."""
    if not moves:
        return []
    earlier = own_run_dicts(state, keep=lambda before: before["phase"] == "field")
    if not earlier:
        return []
    cards, seat = state.game.cards, state.current_player
    futile = []
    for code in moves:
        trial = state.copy()
        trial.apply_code(code)
        after = trial.to_dict()
        if any(dominated_by(after, before, cards, seat) for before in earlier):
            futile.append(code)
    return futile


def dominated_by(after: dict[str, Any], before: dict[str, Any], cards: Any, seat: int) -> bool:
    """`after` is `before` with AP spent: the same position but the seat's AP
    and the *moved* mark of characters without CHARGE, with at least as many
    AP spent as marks gained (a moved character attacks free, which saves at
    most the 1 AP of one attack, and that is all a mark does for a character
    without CHARGE: RULES.md A5, A8)."""
    spent = before["players"][seat]["ap"] - after["players"][seat]["ap"]
    if spent <= 0 or after["grid"].keys() != before["grid"].keys():
        return False
    marks = 0
    for square, piece in after["grid"].items():
        old = before["grid"][square]
        if piece == old:
            continue
        if {**piece, "moved": old["moved"]} != old or old["moved"] or piece["owner"] != seat:
            return False
        if CHARGE in cards.by_name(piece["card"]).keywords:
            return False
        marks += 1
    if marks > spent:
        return False
    rest_after = {k: v for k, v in after.items() if k not in ("grid", "players")}
    rest_before = {k: v for k, v in before.items() if k not in ("grid", "players")}
    players_after = [{**p, "ap": 0} for p in after["players"]]
    players_before = [{**p, "ap": 0} for p in before["players"]]
    return rest_after == rest_before and players_after == players_before
