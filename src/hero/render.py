"""Text rendering of a Hero position from one seat's point of view (80 columns).

The opponent's hand is shown as a count (with the cards known to be there,
returned by bounce); one unit per line: slot, name, power/attack, damage,
standby or used, and whether it may still change row."""

from __future__ import annotations

from collections.abc import Sequence

from xenophon.hero.cards import Deck, HeroCardSet
from xenophon.kernel.game import count_text, plural, wrapped
from xenophon.kernel.narration import clamp_hp

GREEN, RED, RESET = "\033[32m", "\033[31m", "\033[0m"


def _unit_line(slot: str, unit: dict) -> str:
    state = "used" if unit["used"] else "standby"
    damage = f"  damage {unit['damage']}" if unit["damage"] else ""
    fixed = "" if unit["can_move"] else "  (stays in row)"
    return (
        f"    {slot:<6} {unit['card']:<18} {unit['power']:>5}/{unit['attack']:<2} "
        f"{state}{damage}{fixed}"
    )


def _rows(player: dict, prefix: str, top_first: Sequence[str]) -> list[str]:
    lines = []
    for row in top_first:
        units = player[row]
        letter = "F" if row == "front" else "B"
        lines.append(f"  {row}:" + ("" if units else " -"))
        lines += [_unit_line(f"{prefix}{letter}{i + 1}", u) for i, u in enumerate(units)]
    return lines


def _player_lines(
    state: dict, player: int, seat: int, cards: HeroCardSet, decks: Sequence[Deck], color: bool
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
    rows = _rows(info, prefix, ("front", "back") if mine else ("back", "front"))
    grave = wrapped("graveyard", count_text(info["graveyard"]))
    return [head] + (rows + hand + grave if mine else hand + grave + rows)


def render_state(
    state: dict, cards: HeroCardSet, decks: Sequence[Deck], seat: int, color: bool = False
) -> str:
    status = f"Turn {state['turn']}, seat {state['active']}'s turn"
    if state["result"] is not None:
        r0 = state["result"][0]
        status += ": game over, " + ("draw" if r0 == 0 else f"seat {0 if r0 > 0 else 1} wins")
    else:
        status += f", phase {state['phase']}"
    attack = state.get("attack")
    if attack:
        status += f"  (attack: {attack['attacker'] or 'gone'} > {attack['target'] or 'gone'})"
    lines = [status, ""]
    lines += _player_lines(state, 1 - seat, seat, cards, decks, color)
    lines += ["  " + "-" * 40]
    lines += _player_lines(state, seat, seat, cards, decks, color)
    return "\n".join(lines)
