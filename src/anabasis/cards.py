"""Anabasis card data: loading and validating a card file (TOML).

A card file defines patterns, characters, territories, events and field cards
(docs/anabasis-engine.md §11.2 says what every field means; the reference set
of §11.6 is shipped as ``data/anabasis/cards.toml``). What every card file
shares (reading, field checks, digests) is :mod:`xenophon.kernel.cardfile`.
Card ids follow the order of the file: characters, then territories, then
events; field cards are numbered on their own. Both the C core and the
pure-Python oracle are driven by the :class:`CardSet` this module returns, so
adding or changing a card needs no recompilation.

>>> cards = load_card_set()
>>> cards.by_name("archer").attack.name
'ARC2'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xenophon.kernel.cardfile import (
    CardFile,
    CardFileReader,
    NameRule,
    find_by_name,
    packaged_data,
    read_card_file,
)
from xenophon.kernel.errors import shown

# The card vocabulary, owned here: each list is in the order the C core
# numbers it (src/engine_c/anabasis/anabasis.h: ANA_CHARACTER.., ANA_KW_* bits,
# ANA_PILE_*, ANA_EV_* from 1, ANA_FX_* from 1), and CardSet.core_data() hands
# the core those numbers, so the binding holds no names.
CARD_KINDS = ("character", "territory", "event")
KEYWORDS = ("ARMORED", "CHARGE", "SIEGE", "COMMAND")
EVENT_EFFECTS = {
    # effect -> (timing, needs an amount)
    "flood": ("own-turn", True),
    "evasion": ("response", False),
    "nullify": ("response", False),
    "rally": ("own-turn", True),
    "forced_march": ("own-turn", True),
    "windfall": ("own-turn", True),
    "ambush": ("response", False),
    "fortify": ("response", False),
    "sabotage": ("own-turn", True),
}
FIELD_EFFECTS = ("hit", "income_funds", "move_cost", "price", "attack_cost")
PILES = ("A", "B", "C")
#: the market places the core numbers: the piles, then the row
CORE_PILES = PILES + ("row",)
#: the core's number of "no pile" (ANA_PILE_NONE) and of "no effect" (ANA_*_NONE)
NO_PILE, NO_EFFECT = 0xFF, 0
MAX_CARD_TYPES = 48  # action codes hold a card id in 6 bits; the C tables are sized for 48
MAX_FIELD_CARDS = 16
MAX_PATTERN_SIZE = 13  # offsets beyond +-6 cannot reach any square of a 7 x 6 grid
#: letters, spaces, hyphens and apostrophes: a square's name (a1..g6) holds a digit
NAME_RULE = NameRule(
    re.compile(r"[A-Za-z][A-Za-z' -]*"),
    "a name must start with a letter, hold only letters, spaces, hyphens and "
    "apostrophes, and not look like a square",
)


@dataclass(frozen=True)
class Pattern:
    """A movement or attack diagram as (file offset, rank offset) jumps for seat 0.

    A positive rank offset is forward (towards rank 6); seat 1 uses the
    negated offsets (the diagram turned by 180 degrees).
    """

    name: str
    offsets: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Card:
    """One card type of the deck-building cards (character, territory or event)."""

    id: int
    name: str
    japanese: str
    kind: str  # "character", "territory" or "event"
    cost: int
    copies: int  # copies in the market
    start_copies: int = 0  # copies each player starts with
    pile: str | None = None  # market pile: "A", "B", "C" (characters), "row" or None
    hp: int = 0
    atk: int = 0
    hit: int = 0
    crit: int = 0
    move: Pattern | None = None
    attack: Pattern | None = None
    keywords: frozenset[str] = frozenset()
    ap_income: int = 0
    funds_income: int = 0
    effect: str | None = None  # events: one of EVENT_EFFECTS
    amount: int = 0

    @property
    def timing(self) -> str | None:
        return EVENT_EFFECTS[self.effect][0] if self.effect else None


@dataclass(frozen=True)
class FieldCard:
    """An Expert-mode field card."""

    id: int
    name: str
    japanese: str
    duration: int
    effect: str
    amount: int


@dataclass(frozen=True)
class CardSet:
    """Every card of one card file, indexed by id and by name."""

    path: str
    digest: str
    cards: tuple[Card, ...]
    fields: tuple[FieldCard, ...]

    def by_name(self, name: str) -> Card:
        """The card of that name, ignoring case; KeyError if there is none."""
        return find_by_name(self.cards, name)

    def field_by_name(self, name: str) -> FieldCard:
        return find_by_name(self.fields, name)

    def of_kind(self, kind: str) -> tuple[Card, ...]:
        return tuple(card for card in self.cards if card.kind == kind)

    def core_data(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """The card set as the C core's tables take it (xenophon._core.anabasis.Tables):
        plain numbers in the core's numbering, one tuple a card (name, the
        fields of AnaCardSpec, the move and attack offsets flattened) and a
        field card (name, duration, effect, amount)."""
        cards = [
            (card.name, _card_numbers(card), _flat(card.move), _flat(card.attack))
            for card in self.cards
        ]
        fields = [
            (field.name, field.duration, FIELD_EFFECTS.index(field.effect) + 1, field.amount)
            for field in self.fields
        ]
        return cards, fields


def _card_numbers(card: Card) -> tuple[int, ...]:
    """kind, cost, copies, start_copies, pile, hp, atk, hit, crit, keywords,
    ap_income, funds_income, effect, amount (the order of the binding's reader)."""
    pile = NO_PILE if card.pile is None else CORE_PILES.index(card.pile)
    keywords = sum(1 << KEYWORDS.index(keyword) for keyword in card.keywords)
    effect = NO_EFFECT if card.effect is None else list(EVENT_EFFECTS).index(card.effect) + 1
    return (
        CARD_KINDS.index(card.kind),
        card.cost,
        card.copies,
        card.start_copies,
        pile,
        card.hp,
        card.atk,
        card.hit,
        card.crit,
        keywords,
        card.ap_income,
        card.funds_income,
        effect,
        card.amount,
    )


def _flat(pattern: Pattern | None) -> list[int]:
    return [step for offset in pattern.offsets for step in offset] if pattern else []


def default_card_path() -> Path:
    return packaged_data("anabasis", "cards.toml")


def load_card_set(path: str | Path | None = None) -> CardSet:
    """Load and validate an Anabasis card file (the reference set by default)."""
    path = Path(path) if path is not None else default_card_path()
    return _CardFileReader(read_card_file(path, "card file")).card_set()


class _CardFileReader(CardFileReader):
    """Turns an Anabasis card file into a CardSet, raising CardFileError on the first fault."""

    def __init__(self, file: CardFile):
        super().__init__(file)
        self.patterns: dict[str, Pattern] = {}

    def card_set(self) -> CardSet:
        self.check_sections(
            tables=("patterns",), lists=("character", "territory", "event", "field")
        )
        self.patterns = {
            name: self.pattern(name, diagram) for name, diagram in self.table("patterns").items()
        }
        cards: list[Card] = []
        for kind, read in (
            ("character", self.character),
            ("territory", self.territory),
            ("event", self.event),
        ):
            cards += self.read_entries(kind, read, first_id=len(cards))
        fields = self.read_entries("field", self.field)
        self.check_unique_names(cards, "card")
        self.check_unique_names(fields, "field card")
        self.check_defined([c for c in cards if c.kind == "character"], "character")
        self.check_at_most(cards, MAX_CARD_TYPES, "cards")
        self.check_at_most(fields, MAX_FIELD_CARDS, "field cards")
        self.check_starting_cards(cards)
        return CardSet(self.path, self.file.digest, tuple(cards), tuple(fields))

    def check_starting_cards(self, cards: list[Card]) -> None:
        """Setup places one starting territory and deals three event slots
        (docs/anabasis-engine.md §2.2)."""
        territories = [c for c in cards if c.kind == "territory" and c.start_copies]
        if len(territories) > 1:
            raise self.fail(
                f"territory '{territories[1].name}'",
                "only one territory can start on the board (start_copies)",
            )
        events = [c for c in cards if c.kind == "event" and c.start_copies]
        if len(events) > 3:
            raise self.fail(
                f"event '{events[3].name}'", "at most three events start in the three event slots"
            )

    # -- patterns -----------------------------------------------------------
    def pattern(self, name: str, diagram: Any) -> Pattern:
        where = f"pattern '{shown(name)}'"
        if not isinstance(diagram, str):
            raise self.fail(where, "must be a multi-line string")
        rows = [row.strip() for row in diagram.strip().splitlines() if row.strip()]
        size = len(rows)
        if size % 2 == 0 or size > MAX_PATTERN_SIZE or any(len(r) != size for r in rows):
            raise self.fail(
                where, f"must be an odd square of at most {MAX_PATTERN_SIZE} rows and columns"
            )
        if any(ch not in ".xC" for row in rows for ch in row):
            raise self.fail(where, "may only contain '.', 'x' and 'C'")
        centre = size // 2
        centres = [(i, j) for i, row in enumerate(rows) for j, ch in enumerate(row) if ch == "C"]
        if centres != [(centre, centre)]:
            raise self.fail(where, "must hold exactly one 'C', at its centre")
        offsets = tuple(
            sorted(
                (j - centre, centre - i)
                for i, row in enumerate(rows)
                for j, ch in enumerate(row)
                if ch == "x"
            )
        )
        return Pattern(name, offsets)

    # -- cards --------------------------------------------------------------
    def card_header(self, entry: dict[str, Any], kind: str) -> tuple[str, str, str]:
        return self.header(entry, kind, f"{kind} without a name", NAME_RULE)

    def pattern_ref(self, entry: dict[str, Any], key: str, where: str) -> Pattern:
        name = self.text(entry, key, where)
        if name not in self.patterns:
            raise self.fail(where, f"unknown pattern '{shown(name)}' in field '{key}'")
        return self.patterns[name]

    def character(self, card_id: int, entry: dict[str, Any]) -> Card:
        name, where, japanese = self.card_header(entry, "character")
        self.check_fields(
            entry,
            {
                "name",
                "japanese",
                "pile",
                "cost",
                "hp",
                "atk",
                "hit",
                "crit",
                "move",
                "attack",
                "keywords",
                "copies",
                "start_copies",
            },
            where,
        )
        pile = self.choice(entry, "pile", where, PILES + ("start",))
        return Card(
            id=card_id,
            name=name,
            japanese=japanese,
            kind="character",
            cost=self.number(entry, "cost", where, low=1, high=99),
            copies=self.number(entry, "copies", where, high=20 if pile != "start" else 0),
            start_copies=self.number(entry, "start_copies", where, default=0, high=20),
            pile=None if pile == "start" else pile,
            hp=self.number(entry, "hp", where, low=1, high=99),
            atk=self.number(entry, "atk", where, high=99),
            hit=self.number(entry, "hit", where, high=100),
            crit=self.number(entry, "crit", where, high=100),
            move=self.pattern_ref(entry, "move", where),
            attack=self.pattern_ref(entry, "attack", where),
            keywords=self.keywords(entry, where, KEYWORDS),
        )

    def territory(self, card_id: int, entry: dict[str, Any]) -> Card:
        name, where, japanese = self.card_header(entry, "territory")
        self.check_fields(
            entry,
            {
                "name",
                "japanese",
                "cost",
                "hp",
                "ap_income",
                "funds_income",
                "copies",
                "start_copies",
            },
            where,
        )
        start = self.number(entry, "start_copies", where, default=0, high=1)
        return Card(
            id=card_id,
            name=name,
            japanese=japanese,
            kind="territory",
            cost=self.number(entry, "cost", where, low=1, high=99),
            copies=self.number(entry, "copies", where, high=20),
            start_copies=start,
            pile="row",
            hp=self.number(entry, "hp", where, low=1, high=99),
            ap_income=self.number(entry, "ap_income", where, high=20),
            funds_income=self.number(entry, "funds_income", where, high=20),
        )

    def event(self, card_id: int, entry: dict[str, Any]) -> Card:
        name, where, japanese = self.card_header(entry, "event")
        self.check_fields(
            entry, {"name", "japanese", "cost", "effect", "amount", "copies", "start_copies"}, where
        )
        effect = self.choice(entry, "effect", where, EVENT_EFFECTS)
        needs_amount = EVENT_EFFECTS[effect][1]
        amount = self.number(entry, "amount", where, default=None if needs_amount else 0, high=99)
        return Card(
            id=card_id,
            name=name,
            japanese=japanese,
            kind="event",
            cost=self.number(entry, "cost", where, low=1, high=99),
            copies=self.number(entry, "copies", where, high=20),
            start_copies=self.number(entry, "start_copies", where, default=0, high=1),
            pile="row",
            effect=effect,
            amount=amount,
        )

    def field(self, field_id: int, entry: dict[str, Any]) -> FieldCard:
        name, where, japanese = self.card_header(entry, "field")
        self.check_fields(entry, {"name", "japanese", "duration", "effect", "amount"}, where)
        effect = self.choice(entry, "effect", where, sorted(FIELD_EFFECTS))
        low = -100 if effect in ("hit", "price") else 0  # costs and income cannot go negative
        amount = self.in_range(self.whole_number(entry, "amount", where), "amount", where, low, 100)
        return FieldCard(
            field_id,
            name,
            japanese,
            self.number(entry, "duration", where, low=1, high=50),
            effect,
            amount,
        )
