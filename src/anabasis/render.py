"""Text rendering of an Anabasis position from one seat's point of view.

Only what that seat may see is drawn: the opponent's hand is a count, their
face-down events are shown face down. The grid is drawn from the seat's side
(its own home zone at the bottom) and fits in 80 columns.
"""

from __future__ import annotations

from xenophon.anabasis.cards import CardSet
from xenophon.kernel.game import count_text, plural, wrapped
from xenophon.kernel.narration import clamp_hp

FILES = "abcdefg"
CELL = 11
CASTLES = {3: 0, 38: 1}
CEMETERY_LIMITS = {"standard": 8, "expert": 12}
GREEN, RED, BOLD, RESET = "\033[32m", "\033[31m", "\033[1m", "\033[0m"
#: every phase as a player names it (never the engine's word: docs/play.md)
PHASE_WORDS = {
    "standby1": "Standby 1",
    "field": "Field phase",
    "standby2": "Standby 2",
    "response": "answering an attack",
    "nullify": "answering an event",
    "evade": "evading an attack",
    "chance": "cards dealt",
    "over": "game over",
}


def short_names(cards: CardSet) -> dict[str, str]:
    """A distinct three-letter label for every card that can stand on the grid."""
    labels: dict[str, str] = {}
    used: set[str] = set()
    for card in cards.cards:
        if card.kind == "event":
            continue
        letters = card.name.replace(" ", "").replace("-", "").replace("'", "")
        label = letters[:3]
        index = 3
        while label in used and index < len(letters):
            label = letters[:2] + letters[index]
            index += 1
        used.add(label)
        labels[card.name] = label
    return labels


def _cell(
    entry: dict | None, square: int, seat: int, labels: dict[str, str], cards: CardSet, color: bool
) -> str:
    if entry is None:
        if square in CASTLES:
            text = "[castle]"
            mine = CASTLES[square] == seat
        else:
            return ".".ljust(CELL)
    else:
        card = cards.by_name(entry["card"])
        mine = entry["owner"] == seat
        hp_left = card.hp - entry["damage"]
        if card.kind == "territory":
            state = "?" if entry["face_down"] else "t"
        else:
            state = "m" if entry["moved"] else ("r" if entry["ready"] else "x")
        bonus = f"+{entry['atk_bonus']}" if entry.get("atk_bonus") else ""
        attack = f"/{card.atk}" if card.kind == "character" else ""
        text = f"{'+' if mine else '-'}{labels[card.name]}{hp_left}{attack}{state}{bonus}"
    padded = text.ljust(CELL)
    if color:
        return (GREEN if mine else RED) + padded + RESET
    return padded


def render_grid(state: dict, cards: CardSet, seat: int, color: bool = False) -> list[str]:
    labels = short_names(cards)
    files = range(7) if seat == 0 else range(6, -1, -1)
    ranks = range(5, -1, -1) if seat == 0 else range(6)
    header = "   " + "".join(FILES[f].ljust(CELL) for f in files)
    lines = [header.rstrip()]
    for rank in ranks:
        cells = [
            _cell(
                state["grid"].get(f"{FILES[f]}{rank + 1}"), rank * 7 + f, seat, labels, cards, color
            )
            for f in files
        ]
        lines.append(f"{rank + 1}  " + "".join(cells).rstrip())
    return lines


def _slots_text(slots: list, visible: bool) -> str:
    parts = []
    for number, slot in enumerate(slots, start=1):
        if slot is None:
            parts.append(f"{number}:empty")
        elif slot["face_up"]:
            parts.append(f"{number}:{slot['card']} (spent)")
        else:
            parts.append(f"{number}:{slot['card'] if visible else 'face down'}")
    return "  ".join(parts)


def _player_lines(state: dict, player: int, seat: int, mode: str, cards: CardSet) -> list[str]:
    info = state["players"][player]
    # events go to the cemetery too but do not count towards its limit
    cemetery = sum(n for name, n in info["cemetery"].items() if cards.by_name(name).kind != "event")
    who = "You" if player == seat else "Opponent"
    hand = (
        count_text(info["hand"]) if player == seat else plural(sum(info["hand"].values()), "card")
    )
    # AP is set anew at each Standby 1: the other player's is of a turn gone by
    ap = f"AP {info['ap']}  " if player == state["active"] else ""
    return [
        f"{who} (seat {player}): castle {clamp_hp(info['castle_hp'])}  {ap}"
        f"funds {info['funds']}  deck {sum(info['deck'].values())}  "
        f"cemetery {cemetery}/{CEMETERY_LIMITS[mode]}",
        *wrapped("hand", hand),
        *wrapped("flow", count_text(info["flow"])),
        *wrapped("events", _slots_text(info["slots"], player == seat)),
    ]


def turn_status(state: dict, seat: int) -> str:
    """'Turn 3, your turn: Field phase' (or the result once the game is over)."""
    whose = "your" if state["active"] == seat else "the opponent's"
    status = f"Turn {state['turn']}, {whose} turn"
    if state["result"] is not None:
        r0, _ = state["result"]
        return status + ": game over, " + ("draw" if r0 == 0 else f"seat {0 if r0 > 0 else 1} wins")
    return status + f": {PHASE_WORDS[state['phase']]}"


def render_state(
    state: dict, cards: CardSet, seat: int, mode: str = "standard", color: bool = False
) -> str:
    """The whole screen for `seat`: status line, grid, both players, market."""
    status = turn_status(state, seat)
    if state["field"]:
        field = state["field"]
        status += f"   field: {field['active']} ({field['remaining']} left)"
    lines = [status, ""] + render_grid(state, cards, seat, color) + [""]
    lines += _player_lines(state, 1 - seat, seat, mode, cards) + _player_lines(
        state, seat, seat, mode, cards
    )
    market = state["market"]
    tops = "  ".join(f"{pile}: {top or '-'}" for pile, top in zip("ABC", market["tops"]))
    lines += [
        "",
        f"Market  {tops}",
        *wrapped("row", count_text(market["row"])),
        "Legend: +yours -theirs, card, HP left/ATK, then r ready, m moved, x exhausted,",
        "        t territory, ? face-down territory, +N Rally bonus; 'card c3' explains",
    ]
    return "\n".join(lines)
