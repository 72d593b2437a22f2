"""Words for a game in progress, from one seat's point of view: what just
happened, what the seat is asked now, why the game ended.

Everything here is computed from what the seat sees and nothing else: the
seat's view of the state (`State.view(seat)`, equal for every state the seat
cannot tell apart) before and after a step, and the step's text only when
the seat observed it (`State.observed_by`); a hidden step is known by its
kind alone (its first word, as in the seat's view of a record). Each game has
a `Narrator` subclass, which its plugin names; `narrator_for(state, seat)`
gives the right one.
"""

from __future__ import annotations

from collections import Counter

from xenophon.kernel.errors import XenophonError
from xenophon.kernel.game import State
from xenophon.kernel.plugin import find_plugin

#: what stands for a step the seat did not see (a record's view says the same)
HIDDEN = "(hidden from you)"


def clamp_hp(hp: int) -> int:
    """HP as shown: a castle or avatar below 0 is at 0 (the rules let the
    counter go below; the game is over either way)."""
    return max(0, hp)


def gained(before: dict[str, int] | None, after: dict[str, int] | None) -> Counter:
    """What a multiset gained from `before` to `after`."""
    return Counter(after or {}) - Counter(before or {})


class Narrator:
    """One seat's account of a game; subclasses know their game's words."""

    #: what `card` takes besides a card's name, for the help ("card SQUARE")
    card_forms = ""

    def __init__(self, state: State, seat: int):
        self.game = state.game
        self.seat = seat
        # whether pieces are named by the names the game gives them beside the
        # engine's notation (xenophon.kernel.naming): the notation everywhere
        self.lettered = True

    def whose(self, player: int) -> str:
        return "your" if player == self.seat else "the opponent's"

    def who(self, player: int) -> str:
        return "you" if player == self.seat else "the opponent"

    # -- steps ----------------------------------------------------------------
    def events(self, before: dict, after: dict, actor: int, text: str | None) -> list[str]:
        """The lines for one step: `before` and `after` are the seat's views,
        `actor` the player who moved (CHANCE for an outcome), `text` the
        step's notation or None when the seat did not see which it was."""
        raise NotImplementedError

    #: the kinds of chance outcome folded into one line while they come in a row
    folded_kinds: frozenset[str] = frozenset()

    def folds(self, kind: str) -> bool:
        return kind in self.folded_kinds

    def chance_line(self, outcomes: list[tuple[str, str | None]]) -> str:
        """Chance outcomes folded into one line: each is (kind word, text or
        None when the seat did not see which outcome it was), grouped by kind
        and visibility in the order they came."""
        groups: dict[tuple[str, bool], list[str]] = {}
        for kind, text in outcomes:
            groups.setdefault((kind, text is not None), []).append(
                text.partition(" ")[2] if text else ""
            )
        return "; ".join(
            self.chance_phrase(kind, names if visible else None, len(names))
            for (kind, visible), names in groups.items()
        )

    def chance_phrase(self, kind: str, names: list[str] | None, count: int) -> str:
        """One kind of outcome: the `names` seen, or None and only their `count`."""
        raise NotImplementedError

    def as_seen(self, text: str, actor: int) -> str:
        """A move of `actor`'s as the seat reads it (the same text, unless the
        game's notation is relative to the mover)."""
        return text

    def moves_note(self, texts: list[str]) -> list[str]:
        """Lines under a list of legal moves (`texts`, in the seat's words)
        that tell apart moves which read alike (none by default)."""
        return []

    def read_move(self, text: str) -> str:
        """A move the seat wrote in its words, in the game's notation (the
        same text, unless the game names things for the seat in words of its
        own for its pieces)."""
        return text

    def refusal(self, message: str) -> str:
        """A malformed move's message in the seat's words (the same, unless
        the game names its pieces for the seat otherwise than its notation's
        examples do)."""
        return message

    def rewind(self, steps: int) -> None:
        """Back to the game after its first `steps` steps (an undo): what the
        narrator keeps of the game so far is cut to them."""

    def labels(self, state: State) -> dict[str, str]:
        """The names of the pieces on the board as the seat reads them, by the
        page's anchor of each (xenophon.web.catalogue): none for a game
        whose notation needs no names of its own."""
        return {}

    def board(self, state: State, color: bool = False) -> str:
        """The board as the seat is shown it."""
        return state.render(self.seat, color=color)

    # -- cards and rules ----------------------------------------------------------
    def card_lines(self, state: State, word: str) -> list[str]:
        """`card WORD`: the card of that name, or the one on that square or
        slot, as the seat sees it; KeyError naming what is unknown."""
        raise NotImplementedError

    def why_illegal(self, state: State, code: int) -> str | None:
        """The rule that keeps the seat's well-formed move `code` from being
        legal now (None when no single rule says it)."""
        raise NotImplementedError

    # -- the prompt and the end -------------------------------------------------
    def phase_line(self, view: dict) -> str | None:
        """A line when a turn or phase begins (None when there is nothing to say)."""
        raise NotImplementedError

    def asking(self, state: State) -> str:
        """What the seat is asked to decide now, in one or two lines."""
        raise NotImplementedError

    def asks_again(self, state: State) -> bool:
        """Whether the question is put again after the seat's own move though
        it reads the same: in a window of the opponent's turn (a defence, a
        response) the seat answers once more after a fast move."""
        return False

    def end_reason(self, view: dict) -> str:
        raise NotImplementedError

    def result_line(self, view: dict) -> str:
        r0 = view["result"][0]
        if r0 == 0:
            outcome = "a draw"
        else:
            outcome = f"seat {0 if r0 > 0 else 1} wins"
        return f"Game over, {outcome}: {self.end_reason(view)}."


def legal_summary(state: State, most: int = 6) -> str:
    """The legal moves when there are few of them, else their kinds."""
    moves = [m.text for m in state.legal_moves()]
    if len(moves) <= most:
        return ", ".join(moves)
    kinds = list(dict.fromkeys(m.split()[0] for m in moves))
    return f"{len(moves)} moves ({', '.join(kinds)}; type 'moves' for all)"


def narrator_for(state: State, seat: int) -> Narrator:
    """The narrator of the state's game for `seat` (its plugin's)."""
    plugin = find_plugin(state.game.name)
    if plugin is None:
        raise XenophonError(f"no narrator for {state.game.name}")
    return plugin.narrator(state, seat)


__all__ = ["HIDDEN", "Narrator", "narrator_for", "clamp_hp", "gained", "legal_summary"]
