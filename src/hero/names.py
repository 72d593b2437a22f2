"""Stable names for the units on a Hero field: a letter that stays with a unit
from the step it enters the field to the step it leaves (docs/play.md,
"Unit names").

The rules name a unit by its slot (`F1`..`B5`, docs/hero-engine.md §8), and
rows are left-packed (E-2): when a unit moves or leaves, the units after it
shift, so a slot name is a place, not a unit. A player reads and writes the
letters instead: `move c`, `attack c > op.a`, `play Fireball on op.b`. The
C core keeps no identity for a unit, so the letters are derived here from
the game's steps, one after another (`UnitNames.after`): a record is
written with the letters and read back into slots by replaying it
(docs/records.md, "Pieces by name"), and the letters of any position follow
from replaying the game to it.

Each side letters its units `a`..`z` in the order they enter, going on from
the last letter given (so a letter just freed is not given again at once).
A unit that changes row keeps its letter. When a step removes one of two
units that nothing tells apart (the same card in the same state, side by
side), the one the step involved (its target, or the battle's units) is
taken to have left, and otherwise the later one.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from string import ascii_lowercase

from xenophon.hero.notation import ROW_SIZE, parse_slot, slot_name
from xenophon.kernel.errors import NotationError

ROWS = ("front", "back")
#: a slot token of the notation, mine or the opponent's
SLOT_TOKEN = re.compile(r"\b(op\.)?([FB][1-5])\b", re.IGNORECASE)
#: a name as a player writes it: a letter, the opponent's with op.
NAME_TOKEN = re.compile(r"(op\.)?([a-z])", re.IGNORECASE)
#: where a move names a unit: after move/guard/target/on, and both ends of an attack
_NAMED_AT = re.compile(
    r"^(?P<head>(?:move|guard|target)\s+)(?P<a>\S+)\s*$"
    r"|^(?P<attack>attack\s+)(?P<b>[^\s>]+)\s*>\s*(?P<c>\S+)\s*$"
    r"|^(?P<on>.*\s+on\s+)(?P<d>\S+)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class UnitNames:
    """The letters of both sides' units, row by row, in slot order."""

    rows: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (((), ()), ((), ()))
    next_letter: tuple[int, int] = (0, 0)

    # -- reading ------------------------------------------------------------------
    def name(self, seat: int, row: int, index: int) -> str:
        """The letter of seat `seat`'s unit at `index` of `row` (0 front, 1 back)."""
        return self.rows[seat][row][index]

    def at_slot(self, seat: int, slot: str) -> str | None:
        """The letter of the unit `seat` calls `slot` ('F1'..'B5'; None: no unit)."""
        row, index = divmod(parse_slot(slot, theirs=False), ROW_SIZE)
        letters = self.rows[seat][row]
        return letters[index] if index < len(letters) else None

    def slot_of(self, seat: int, letter: str) -> str | None:
        """The slot ('F1'..'B5', as `seat` names it) of `seat`'s unit `letter`."""
        for row, letters in enumerate(self.rows[seat]):
            if letter.lower() in letters:
                return slot_name(row * ROW_SIZE + letters.index(letter.lower()))
        return None

    # -- the seat's words and the notation ---------------------------------------
    def words(self, text: str, actor: int, seat: int) -> str:
        """`actor`'s move `text` (slots named from the actor's side) with each
        unit named by its letter as `seat` reads it (op. for the other side's)."""

        def named(match: re.Match) -> str:
            owner = 1 - actor if match.group(1) else actor
            slot = match.group(2).upper()
            name = self.at_slot(owner, slot) or slot  # no unit there: the slot
            return name if owner == seat else f"op.{name}"

        return SLOT_TOKEN.sub(named, text)

    def notation(self, text: str, seat: int) -> str:
        """`seat`'s move written with letters, as the notation writes it
        (slots); what is not a letter of a unit on the field is left as it is,
        for the notation to accept (a slot) or explain."""
        match = _NAMED_AT.match(text.strip())
        if match is None:
            return text
        out, last = [], 0
        for group in ("a", "b", "c", "d"):
            if match.group(group) is None:
                continue
            start, end = match.span(group)
            out += [text.strip()[last:start], self.slot_for(match.group(group), seat)]
            last = end
        return "".join(out) + text.strip()[last:]

    def slot_for(self, word: str, seat: int) -> str:
        """The slot (as `seat` writes it) of the unit `word` names, a letter
        with op. for the opponent's; any other word as it is."""
        token = NAME_TOKEN.fullmatch(word)
        if token is None:
            return word
        owner = 1 - seat if token.group(1) else seat
        slot = self.slot_of(owner, token.group(2))
        if slot is None:
            side = "the opponent has" if owner != seat else "you have"
            raise NotationError(f"{side} no unit '{word}' (the letters are on the board)")
        return f"op.{slot}" if owner != seat else slot

    def named_view(self, view: dict, seat: int) -> dict:
        """`view` (a view of the state, whose units these names cover) with
        each unit carrying its letter as `seat` writes it in a move: `name`,
        'c' for its own, 'op.c' for the opponent's."""
        players = []
        for owner, player in enumerate(view["players"]):
            prefix = "" if owner == seat else "op."
            rows = {
                ROWS[row]: [
                    {**unit, "name": prefix + self.name(owner, row, index)}
                    for index, unit in enumerate(player[ROWS[row]])
                ]
                for row in (0, 1)
            }
            players.append({**player, **rows})
        return {**view, "players": players}

    # -- following the game ------------------------------------------------------
    def after(self, before: dict, after: dict, actor: int | None, text: str | None) -> UnitNames:
        """The names after one step from `before` to `after` (views of the
        state, whose fields are public); `text` is the step's notation (None
        when hidden), `actor` its player (None for chance)."""
        return self.covering(before)._after(before, after, actor, text)

    def covering(self, view: dict) -> UnitNames:
        """These names with a letter for every unit of `view` (a game followed
        from a position other than the start: its units are lettered in slot
        order, front row first; names for units no longer there are dropped)."""
        counts = [[len(view["players"][seat][row]) for row in ROWS] for seat in (0, 1)]
        if all(len(self.rows[seat][row]) == counts[seat][row] for seat in (0, 1) for row in (0, 1)):
            return self
        rows, nexts = [], list(self.next_letter)
        for seat in (0, 1):
            side: list[tuple[str, ...]] = []
            for row in (0, 1):
                letters = list(self.rows[seat][row][: counts[seat][row]])
                while len(letters) < counts[seat][row]:
                    kept = [list(self.rows[seat][other]) for other in (0, 1)]
                    letter, nexts[seat] = _fresh(kept, {}, letters, side, nexts[seat])
                    letters.append(letter)
                side.append(tuple(letters))
            rows.append(tuple(side))
        return UnitNames(tuple(rows), (nexts[0], nexts[1]))  # type: ignore[arg-type]

    def _after(self, before: dict, after: dict, actor: int | None, text: str | None) -> UnitNames:
        moved = _moved_unit(text, actor)
        involved = _involved(before, text, actor)
        rows, nexts = [], list(self.next_letter)
        for seat in (0, 1):
            incoming: dict[int, list[str]] = {0: [], 1: []}
            kept: list[list[str]] = []
            for row in (0, 1):
                letters = list(self.rows[seat][row])
                old = before["players"][seat][ROWS[row]]
                if moved is not None and moved[0] == seat and moved[1] == row:
                    incoming[1 - row].append(letters.pop(moved[2]))
                    old = old[: moved[2]] + old[moved[2] + 1 :]
                    skip = {i - (i > moved[2]) for i in involved[seat][row] if i != moved[2]}
                else:
                    skip = set(involved[seat][row])
                new = after["players"][seat][ROWS[row]]
                kept.append(_survivors(letters, old, new, skip))
            side: list[tuple[str, ...]] = []
            for row in (0, 1):
                count = len(after["players"][seat][ROWS[row]]) - len(kept[row])
                entering = incoming[row][:count]
                while len(entering) < count:
                    letter, nexts[seat] = _fresh(kept, incoming, entering, side, nexts[seat])
                    entering.append(letter)
                side.append(tuple(kept[row] + entering))
            rows.append(tuple(side))
        return UnitNames(tuple(rows), (nexts[0], nexts[1]))  # type: ignore[arg-type]


def _fresh(kept: list, incoming: dict, entering: list, side: list, start: int) -> tuple[str, int]:
    """The next letter not in use on the side, from `start` on (wrapping)."""
    used = set(itertools.chain(*kept, *incoming.values(), entering, *side))
    for step in range(len(ascii_lowercase)):
        index = (start + step) % len(ascii_lowercase)
        if ascii_lowercase[index] not in used:
            return ascii_lowercase[index], index + 1
    raise ValueError("more than 26 units on one side")


def _moved_unit(text: str | None, actor: int | None) -> tuple[int, int, int] | None:
    """(seat, row, index) of the unit a `move` step takes to its other row."""
    if not text or actor is None or not text.startswith("move "):
        return None
    row, index = divmod(parse_slot(text.split()[1], theirs=False), ROW_SIZE)
    return actor, row, index


def _involved(before: dict, text: str | None, actor: int | None) -> list[list[list[int]]]:
    """Per seat and row, the indexes of the units the step names or that
    fight the battle under way: when a step removes one of two units that
    look the same, it is one of these."""
    involved: list[list[list[int]]] = [[[], []], [[], []]]
    refs: list[tuple[int, str]] = []
    if text and actor is not None:
        refs += [
            (1 - actor if m.group(1) else actor, m.group(2).upper())
            for m in SLOT_TOKEN.finditer(text)
        ]
    attack = before.get("attack")
    if attack:
        active = before["active"]
        refs += [(active, attack["attacker"]), (1 - active, attack["target"])]
    for owner, slot in refs:
        if slot and slot != "avatar":
            row, index = divmod(parse_slot(slot, theirs=False), ROW_SIZE)
            involved[owner][row].append(index)
    return involved


def _survivors(letters: list[str], old: list[dict], new: list[dict], skip: set[int]) -> list[str]:
    """The letters of the units of `old` that are still in the row `new` (in
    order, at its front; what follows them entered): the most units that
    fit, then the ones most like the units they would be, then not the
    `skip`ped ones, then the earlier ones."""
    for count in range(min(len(old), len(new)), -1, -1):
        best, best_score = None, None
        for chosen in itertools.combinations(range(len(old)), count):
            if any(old[i]["card"] != new[k]["card"] for k, i in enumerate(chosen)):
                continue
            same = sum(old[i] == new[k] for k, i in enumerate(chosen))
            score = (same, -len(skip.intersection(chosen)), [-i for i in chosen])
            if best_score is None or score > best_score:
                best, best_score = chosen, score
        if best is not None:
            return [letters[i] for i in best]
    return []


def names_through(views: list[dict], steps: list[tuple[int | None, str | None]]) -> UnitNames:
    """The names after a game's steps: `views[i]` the view before step `i`
    and `views[-1]` after the last; `steps[i]` its (actor, text)."""
    names = UnitNames()
    for (actor, text), before, after in zip(steps, views, views[1:]):
        names = names.after(before, after, actor, text)
    return names


__all__ = ["UnitNames", "names_through"]
