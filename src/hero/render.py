"""Text rendering of a Hero position from one seat's point of view (80 columns).

The opponent's hand is shown as a count (with the cards known to be there,
returned by bounce); each row is drawn as it stands, its units side by side
in their places (the opponent's back row at the top, yours at the bottom),
each a cell: its name and power/attack, its card, standby or used, damage,
and whether it may still change row."""

from __future__ import annotations

from collections.abc import Sequence

from xenophon.hero.cards import Deck, HeroCardSet
from xenophon.hero.names import ROWS, UnitNames
from xenophon.kernel.game import count_text, plural, wrapped
from xenophon.kernel.narration import clamp_hp

GREEN, RED, RESET = "\033[32m", "\033[31m", "\033[0m"
#: every phase as a player names it (never the engine's word: docs/play.md)
PHASE_WORDS = {
    "setup": "drawing the starting hands",
    "draw": "drawing a card",
    "action": "Action phase",
    "window": "last answer before the Battle phase",
    "battle": "Battle phase",
    "defend": "defending an attack",
    "over": "game over",
}


#: a unit's cell on the board: its width, and the gap between two cells
CELL, GAP = 15, 1


def _fitted(text: str) -> str:
    """`text` in one cell: cut with a '.' when too long, padded otherwise."""
    return (text if len(text) <= CELL else text[: CELL - 1] + ".").ljust(CELL)


def _unit_cell(name: str, unit: dict) -> list[str]:
    """A unit's cell, three lines: its name and power/attack, its card, its
    state (standby or used, damage, whether it stays in its row)."""
    state = "used" if unit["used"] else "standby"
    damage = f" dmg {unit['damage']}" if unit["damage"] else ""
    fixed = "" if unit["can_move"] else " stays"
    return [
        _fitted(f"{name} {unit['power']}/{unit['attack']}"),
        _fitted(unit["card"]),
        _fitted(state + damage + fixed),
    ]


#: what a unit's line says, under the board
LEGEND = [
    "Legend: each unit in its place in its row: name, power/attack, card, state.",
    "        power/attack: power is the damage it deals in a battle and the damage",
    "        that destroys it this turn, attack the HP it takes from an avatar;",
    "        standby: may attack or guard, used: may not; dmg: damage taken this",
    "        turn; stays (stays in row): cannot change row this turn. 'card UNIT'",
    "        tells more.",
]


def _seen_unit(slot: str | None, owner: int, seat: int, names: UnitNames | None) -> str:
    """The unit `owner` calls `slot`, as `seat` reads it ('gone': no unit)."""
    if slot is None:
        return "gone"
    name = (names.at_slot(owner, slot) if names else None) or slot
    return name if owner == seat else f"op.{name}"


def _rows(
    player: dict, prefix: str, top_first: Sequence[str], letters: Sequence[Sequence[str]] | None
) -> list[str]:
    """The rows, each unit named by its slot, or by its letter when `letters`
    (the side's, front and back: xenophon.hero.names) are given."""
    lines = []
    for row in top_first:
        units = player[row]
        lines.append(f"  {row}:" + ("" if units else " -"))
        cells = [
            _unit_cell(
                prefix + (letters[ROWS.index(row)][i] if letters else f"{row[0].upper()}{i + 1}"),
                unit,
            )
            for i, unit in enumerate(units)
        ]
        for part in range(3 if cells else 0):
            lines.append((" " * GAP).join(cell[part] for cell in cells).rstrip())
    return lines


def _player_lines(
    state: dict, player: int, seat: int, cards: HeroCardSet, color: bool, names: UnitNames | None
) -> list[str]:
    info = state["players"][player]
    avatar = cards.avatar_by_name(info["avatar"])
    mine = player == seat
    who = "You" if mine else "Opponent"
    head = (
        f"{who} (seat {player}): {avatar.name}  HP {clamp_hp(info['hp'])}/{avatar.hp}  "
        f"charisma used {info['charisma_used']}/{avatar.charisma}  deck {info['deck_size']}"
    )
    if color:
        head = (GREEN if mine else RED) + head + RESET
    if mine:
        hand = wrapped("hand", count_text(info["hand"]))
    else:
        known = f" (known: {count_text(info['known'])})" if info["known"] else ""
        hand = wrapped("hand", plural(info["hand_size"], "card") + known)
    prefix = "" if mine else "op."
    letters = names.rows[player] if names else None
    rows = _rows(info, prefix, ("front", "back") if mine else ("back", "front"), letters)
    grave = wrapped("graveyard", count_text(info["graveyard"]))
    return [head] + (rows + hand + grave if mine else hand + grave + rows)


def render_state(
    state: dict,
    cards: HeroCardSet,
    decks: Sequence[Deck],
    seat: int,
    color: bool = False,
    names: UnitNames | None = None,
) -> str:
    """The whole screen for `seat`; units named by their slots, or by their
    letters (`names`, xenophon.hero.names) when given."""
    whose = "your" if state["active"] == seat else "the opponent's"
    status = f"Turn {state['turn']}, {whose} turn"
    if state["result"] is not None:
        r0 = state["result"][0]
        status += ": game over, " + ("draw" if r0 == 0 else f"seat {0 if r0 > 0 else 1} wins")
    else:
        status += f": {PHASE_WORDS[state['phase']]}"
    attack = state.get("attack")
    if attack:
        active = state["active"]
        attacker = _seen_unit(attack["attacker"], active, seat, names)
        target = attack["target"]
        target = "avatar" if target == "avatar" else _seen_unit(target, 1 - active, seat, names)
        status += f"  (attack: {attacker} > {target})"
    lines = [status, ""]
    lines += _player_lines(state, 1 - seat, seat, cards, color, names)
    lines += ["  " + "-" * 40]
    lines += _player_lines(state, seat, seat, cards, color, names)
    lines += LEGEND
    return "\n".join(lines)
