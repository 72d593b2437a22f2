"""The seat-view notation: what one seat observes of an action hidden from it.

A seat sees its own draws and every public action in the game's notation;
of an action hidden from it (the opponent's draws, which event the opponent
set face down, which starting event was dealt to which of the opponent's
slots) it sees only what the action changed in its view: that the opponent
drew a card, that the opponent's slot 2 now holds a face-down event. That is
written as one line of plain words starting with "opponent" (docs/records.md,
"Seat-view records"), computed from the seat's view of the state
(`State.view`), so it names no engine key and reads in any later version.

>>> is_hidden_text("opponent draws a card"), is_hidden_text("draw Militia")
(True, False)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from xenophon.kernel.game import CHANCE, State, plural

OPPONENT = "opponent"


def is_hidden_text(text: str) -> bool:
    """Whether a line of seat-view notation describes a hidden action (the
    game's notation has no move starting with "opponent")."""
    return normal(text).startswith(OPPONENT + " ")


def normal(text: str) -> str:
    """A description as compared: lower case, single spaces."""
    return " ".join(text.lower().split())


def hidden_text(state: State, code: int, seat: int) -> str:
    """What `seat` sees of the action `code` (legal in `state`, and not
    observed by `seat`): the change it makes to the opponent's side of the
    seat's view, in words."""
    other = 1 - seat
    by_chance = state.current_player == CHANCE
    before = state.view(seat)["players"][other]
    state.apply_code(code)
    try:
        after = state.view(seat)["players"][other]
    finally:
        state.undo()
    slots = _new_face_down_slots(before, after)
    if slots:
        where = ", ".join(str(slot + 1) for slot in slots)
        noun = "an event" if len(slots) == 1 else f"{len(slots)} events"
        verb = "is dealt" if by_chance else "sets"
        return f"{OPPONENT} {verb} {noun} face down in slot{'s' if len(slots) > 1 else ''} {where}"
    drawn = after["hand_size"] - before["hand_size"]
    if drawn > 0:
        return f"{OPPONENT} draws {'a card' if drawn == 1 else plural(drawn, 'card')}"
    word = state.format_code(code).split()[0]
    return f"{OPPONENT} {word}: a hidden card"


def _new_face_down_slots(before: dict[str, Any], after: dict[str, Any]) -> list[int]:
    """The slots that hold a face-down card after the action and did not
    before (none in a game without face-down slots)."""

    def face_down(slot: Any) -> bool:
        return slot is not None and not slot["face_up"]

    return [
        index
        for index, (old, new) in enumerate(zip(before.get("slots", []), after.get("slots", [])))
        if face_down(new) and not face_down(old)
    ]


def unseen(state: State, seat: int) -> Counter[str]:
    """The opponent's cards `seat` cannot see (a full state's hand, deck and
    face-down slots, less the cards known to be in the hand): the multiset
    the seat's resampling redraws (docs/anabasis-engine.md §9.2,
    docs/hero-engine.md §11.2)."""
    other = state.to_dict()["players"][1 - seat]
    cards = Counter(other["hand"]) + Counter(other["deck"])
    cards.update(
        slot["card"] for slot in other.get("slots", []) if slot is not None and not slot["face_up"]
    )
    return cards - Counter(other.get("known", {}))


def revealed(state: State, code: int, seat: int) -> list[str]:
    """The opponent's cards that the action `code` (legal in `state`) shows
    `seat` for the first time, sorted: what leaves the unseen multiset (a card
    placed, played or discarded, an event turned face up)."""
    before = unseen(state, seat)
    state.apply_code(code)
    try:
        after = unseen(state, seat)
    finally:
        state.undo()
    return sorted((before - after).elements())


def unnamed_reveals(state: State, code: int, seat: int) -> list[str]:
    """The cards `code` reveals to `seat` that its text does not name (the
    event in a face-down slot that `event 2` turns up): a seat-view line
    writes them, so that a rebuilt world shows the seat the same cards."""
    text = state.format_code(code)
    return [name for name in revealed(state, code, seat) if name not in text]
